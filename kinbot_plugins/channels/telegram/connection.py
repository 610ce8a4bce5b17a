"""One Telegram bot connected to KinBot, through python-telegram-bot's ``Bot`` (the Bot API
over HTTPS, at the ``base_url`` of its settings).

Receiving is long polling by default: ``getUpdates`` from the stored offset, each update
handed to the inbox before the offset moves past it, so a restart neither skips nor repeats
one. In webhook mode Telegram posts each update to the plugin's route instead, which answers
only once the inbox has stored it (Telegram sends it again otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Sequence
from typing import Any

from telegram import Bot, ReplyParameters, Update, User
from telegram import error as tg
from telegram.constants import ChatAction, ParseMode
from telegram.request import HTTPXRequest

from kinbot_core.channels import ChannelAuthFailed, Inbox, OutgoingMedia
from kinbot_plugins.channels.telegram.errors import is_parse_error, translated
from kinbot_plugins.channels.telegram.formatting import markdown_to_telegram_html
from kinbot_plugins.channels.telegram.settings import TelegramSettings
from kinbot_plugins.channels.telegram.updates import incoming
from kinbot_plugins.channels.telegram.webhook_registry import webhook_connections

logger = logging.getLogger(__name__)

#: The kinds of update asked for: only messages (not edits, reactions, members…).
ALLOWED_UPDATES = ["message"]
#: Seconds a request other than the long poll may take.
REQUEST_TIMEOUT = 20.0
#: Images sent as photos (shown in the chat); others, and larger ones, go as documents.
PHOTO_TYPES = ("image/jpeg", "image/png", "image/webp")
#: Telegram's limit on an uploaded photo.
MAX_PHOTO_BYTES = 10 * 1024 * 1024


def webhook_secret(token: str) -> str:
    """The ``secret_token`` Telegram sends back with each webhook call: derived from the bot
    token, so it needs no setting of its own and changes with it."""
    return hmac.new(token.encode(), b"kinbot-telegram-webhook", hashlib.sha256).hexdigest()


class TelegramConnection:
    """Implements ``kinbot_core.channels.ChannelConnection`` for one bot."""

    def __init__(self, settings: TelegramSettings, inbox: Inbox) -> None:
        self.settings = settings
        self.inbox = inbox
        token = settings.bot_token.get_secret_value()
        self.secret = webhook_secret(token)
        timeouts: dict[str, Any] = {
            "connect_timeout": REQUEST_TIMEOUT,
            "read_timeout": REQUEST_TIMEOUT,
            "write_timeout": REQUEST_TIMEOUT,
            "pool_timeout": REQUEST_TIMEOUT,
        }
        self.bot = Bot(
            token,
            base_url=settings.base_url,
            base_file_url=settings.base_file_url,
            request=HTTPXRequest(connection_pool_size=8, **timeouts),
            get_updates_request=HTTPXRequest(connection_pool_size=1, **timeouts),
        )
        self._me: User | None = None
        #: One update at a time reaches the inbox (webhook calls may come in parallel).
        self._handling = asyncio.Lock()

    # -- receiving -------------------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self.bot.initialize()
            self._me = self.bot.bot
        except tg.InvalidToken:
            raise ChannelAuthFailed("Telegram refused the bot token") from None
        except tg.TelegramError as exc:
            raise translated(exc) from None
        if self.settings.mode == "webhook":
            await self._serve_webhook()
        else:
            await self._poll()

    async def _poll(self) -> None:
        try:
            await self.bot.delete_webhook()
        except tg.TelegramError as exc:
            raise translated(exc) from None
        cursor = self.inbox.cursor
        offset = int(cursor) if cursor and cursor.lstrip("-").isdigit() else None
        while True:
            try:
                updates = await self.bot.get_updates(
                    offset=offset,
                    timeout=self.settings.poll_timeout_seconds,
                    allowed_updates=ALLOWED_UPDATES,
                )
            except tg.TelegramError as exc:
                raise translated(exc) from None
            self.inbox.connected()
            for update in updates:
                await self.handle(update)
                offset = update.update_id + 1

    async def _serve_webhook(self) -> None:
        url = f"{self.settings.webhook_url}/api/ext/telegram/webhook/{self.inbox.connection_id}"
        try:
            await self.bot.set_webhook(
                url, secret_token=self.secret, allowed_updates=ALLOWED_UPDATES
            )
        except tg.TelegramError as exc:
            raise translated(exc) from None
        webhook_connections[self.inbox.connection_id] = self
        self.inbox.connected()
        try:
            await asyncio.Event().wait()  # updates arrive through the route
        finally:
            webhook_connections.pop(self.inbox.connection_id, None)

    async def handle(self, update: Update) -> None:
        """Hand one update to the inbox (an update of no interest only moves the cursor).
        Raises a ``ChannelError`` if a file of it cannot be downloaded."""
        me = self._me
        if me is None:
            raise RuntimeError("the connection has not started")
        async with self._handling:
            try:
                message = await incoming(update, self.bot, me)
            except tg.TelegramError as exc:
                raise translated(exc) from None
            if message is None:
                await self.inbox.advance(str(update.update_id + 1))
                return
            await self.inbox.deliver(message)

    def update_of(self, payload: dict[str, Any]) -> Update:
        """A webhook call's JSON as an update of this bot."""
        return Update.de_json(payload, self.bot)

    # -- sending ---------------------------------------------------------------------------

    async def send(
        self,
        chat_id: str,
        text: str,
        *,
        media: Sequence[OutgoingMedia] = (),
        reply_to: str | None = None,
    ) -> list[str]:
        ids: list[str] = []
        reply = _reply_parameters(chat_id, reply_to)
        try:
            if text.strip():
                ids.append(await self._send_text(chat_id, text, reply))
                reply = None
            for item in media:
                ids.append(await self._send_file(chat_id, item, reply))
                reply = None
        except tg.TelegramError as exc:
            raise translated(exc) from None
        return ids

    async def _send_text(self, chat_id: str, text: str, reply: ReplyParameters | None) -> str:
        try:
            sent = await self.bot.send_message(
                chat_id,
                markdown_to_telegram_html(text) or text,
                parse_mode=ParseMode.HTML,
                reply_parameters=reply,
                link_preview_options=None,
            )
        except tg.BadRequest as exc:
            if not is_parse_error(exc):
                raise
            logger.info("Telegram refused the formatting of a message: sent as plain text")
            sent = await self.bot.send_message(chat_id, text, reply_parameters=reply)
        return str(sent.message_id)

    async def _send_file(
        self, chat_id: str, item: OutgoingMedia, reply: ReplyParameters | None
    ) -> str:
        if item.mime_type in PHOTO_TYPES and len(item.data) <= MAX_PHOTO_BYTES:
            sent = await self.bot.send_photo(
                chat_id, item.data, filename=item.filename, reply_parameters=reply
            )
        else:
            sent = await self.bot.send_document(
                chat_id, item.data, filename=item.filename, reply_parameters=reply
            )
        return str(sent.message_id)

    async def typing(self, chat_id: str) -> None:
        with contextlib.suppress(tg.TelegramError):  # only a courtesy
            await self.bot.send_chat_action(chat_id, ChatAction.TYPING)

    async def close(self) -> None:
        webhook_connections.pop(self.inbox.connection_id, None)
        with contextlib.suppress(tg.TelegramError):
            await self.bot.shutdown()


def _reply_parameters(chat_id: str, reply_to: str | None) -> ReplyParameters | None:
    """In a group, a reply quotes the message it answers (in a direct chat it is plain)."""
    if reply_to is None or not chat_id.startswith("-"):
        return None
    message_id = reply_to.rpartition(":")[2]
    if not message_id.isdigit():
        return None
    return ReplyParameters(int(message_id), allow_sending_without_reply=True)

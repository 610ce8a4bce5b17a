"""The Telegram channel: Kins talk with the family through a Telegram bot.

Registers the ``telegram`` channel type (``register_channels``) and the route Telegram calls
in webhook mode (``register_routes``: ``POST /api/ext/telegram/webhook/<connection id>``,
checked with the secret token KinBot gave Telegram). Set-up: docs/channels.md.

The bot library (python-telegram-bot, with httpx) is imported when a connection opens, not
with the plugin: it would cost every start a third of a second where no bot is set up.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from quart import request
from werkzeug.exceptions import BadRequest, NotFound, Unauthorized

from kinbot_core import PluginRoute, hookimpl
from kinbot_core.channels import ChannelError, Inbox
from kinbot_plugins.channels.telegram.settings import TelegramSettings
from kinbot_plugins.channels.telegram.webhook_registry import WEBHOOK_PATH, webhook_connections

if TYPE_CHECKING:
    from kinbot_plugins.channels.telegram.connection import TelegramConnection

# python-telegram-bot's documented opt-in to its next major version's durations (timedelta
# instead of int seconds; read when used): without it, every rate limit logs a deprecation
# warning.
os.environ.setdefault("PTB_TIMEDELTA", "true")

#: Telegram's limit on a message's text, in characters.
MAX_MESSAGE_LENGTH = 4096
#: The largest file a bot may upload (``sendDocument``): a bigger one is named in the text.
MAX_MEDIA_BYTES = 50 * 1024 * 1024
#: The header Telegram sends the webhook's secret token in.
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class TelegramChannel:
    """The ``telegram`` channel type (``kinbot_core.channels.ChannelType``)."""

    name = "telegram"
    label = "Telegram"
    settings_model: type[BaseModel] = TelegramSettings
    max_message_length = MAX_MESSAGE_LENGTH
    max_media_bytes = MAX_MEDIA_BYTES

    def format_markdown(self, markdown: str) -> str:
        from kinbot_plugins.channels.telegram.formatting import markdown_to_telegram_html

        return markdown_to_telegram_html(markdown)

    def open(self, settings: BaseModel, inbox: Inbox) -> TelegramConnection:
        from kinbot_plugins.channels.telegram.connection import TelegramConnection

        if not isinstance(settings, TelegramSettings):
            raise TypeError("a Telegram connection needs TelegramSettings")
        return TelegramConnection(settings, inbox)


async def receive_webhook(connection_id: str) -> tuple[dict[str, Any], int]:
    """A webhook call of Telegram: the update is stored before the answer, so a failure
    makes Telegram send it again."""
    connection = webhook_connections.get(connection_id)
    if connection is None:
        raise NotFound("No Telegram connection receives webhook calls here.")
    given = request.headers.get(SECRET_HEADER, "")
    if not hmac.compare_digest(given.encode(), connection.secret.encode()):
        raise Unauthorized("Wrong secret token.")
    payload = await request.get_json(silent=True)
    if not isinstance(payload, dict) or not isinstance(payload.get("update_id"), int):
        raise BadRequest("An update is expected.")
    try:
        await connection.handle(connection.update_of(payload))
    except ChannelError:
        return {"ok": False}, 503  # a file could not be fetched: Telegram tries again
    return {"ok": True}, 200


@hookimpl
def register_channels(register: Callable[[Any], None]) -> None:
    register(TelegramChannel())


@hookimpl
def register_routes(register: Callable[[Any], None]) -> None:
    register(PluginRoute(WEBHOOK_PATH, receive_webhook, methods=("POST",), access="public"))

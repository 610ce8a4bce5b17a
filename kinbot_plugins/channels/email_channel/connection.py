"""One e-mail connection: new mail in its IMAP folder becomes incoming messages, a Kin's
replies leave by SMTP in the thread of the mail they answer.

The position in the folder is ``<uidvalidity>:<last uid>`` (``:unseen`` after it while a
renewed folder is read again), stored by the inbox with each message, so a restart goes on
after the last mail stored: nothing read twice, nothing skipped. The first start begins after
the mail already in the folder. When the folder's UIDVALIDITY changes (the folder was
recreated, the server rebuilt its index), every UID is new: the folder is read again from the
start, but only mail not yet marked seen, which this connection does to each mail once the
inbox has it (a mail already stored is recognised by its Message-ID anyway).

Passed on marked, so that the runtime's loop guard never answers them: mail from the
connection's own address (``is_self``) and mail a program sent (an auto-reply, a bounce, a
list: ``is_bot``). Not passed on at all, unless the administrator turned the check off: mail
whose sender the receiving provider did not authenticate (sender_check).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from kinbot_core.channels import (
    ChannelAuthFailed,
    ChannelConfigError,
    ChannelError,
    ChannelRejected,
    ChannelUnavailable,
    Inbox,
    IncomingMedia,
    IncomingMessage,
    OutgoingMedia,
    Sender,
)
from kinbot_plugins.channels.email_channel.composing import (
    MailThread,
    OutgoingFile,
    compose_mail,
    stable_message_id,
)
from kinbot_plugins.channels.email_channel.errors import MailTransportError
from kinbot_plugins.channels.email_channel.imap_inbox import FetchedMail, ImapAccount, ImapInbox
from kinbot_plugins.channels.email_channel.mail_text import markdown_to_text
from kinbot_plugins.channels.email_channel.parsing import InboundMail, parse_mail
from kinbot_plugins.channels.email_channel.sender_check import sender_authenticated
from kinbot_plugins.channels.email_channel.settings import EmailSettings
from kinbot_plugins.channels.email_channel.smtp_outbox import SmtpAccount, send_mail

log = logging.getLogger(__name__)

#: Mail read per round trip; the rest follows at once.
BATCH_SIZE = 20
#: Threads kept in memory for replies (older ones are looked up in the folder).
THREADS_KEPT = 500
#: The longest subject made from a message's first line.
MAX_SUBJECT_LENGTH = 78
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class Position:
    """Where reading stopped: the folder's UIDVALIDITY, the last UID handled, and whether
    mail already marked seen is passed over (while a renewed folder is read again)."""

    uidvalidity: int
    last_uid: int
    unseen_only: bool = False

    @property
    def cursor(self) -> str:
        suffix = ":unseen" if self.unseen_only else ""
        return f"{self.uidvalidity}:{self.last_uid}{suffix}"

    @classmethod
    def of(cls, cursor: str | None) -> Position | None:
        parts = (cursor or "").split(":")
        if len(parts) in (2, 3) and parts[0].isdigit() and parts[1].isdigit():
            return cls(int(parts[0]), int(parts[1]), parts[2:] == ["unseen"])
        return None


class EmailConnection:
    """Implements ``kinbot_core.channels.ChannelConnection`` for one mailbox."""

    def __init__(
        self, settings: EmailSettings, inbox: Inbox, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        for host, security in (
            (settings.imap_host, settings.imap_security),
            (settings.smtp_host, settings.smtp_security),
        ):
            if security == "none" and host.strip("[]").lower() not in _LOOPBACK_HOSTS:
                raise ChannelConfigError(
                    f"{host}: a password may only travel unencrypted to this machine"
                )
        self.settings = settings
        self._inbox = inbox
        self._address = str(settings.from_address).lower()
        context = ssl_context or ssl.create_default_context()
        account = ImapAccount(
            settings.imap_host,
            settings.imap_port,
            settings.imap_security,
            settings.imap_username,
            settings.imap_password.get_secret_value(),
            settings.imap_folder,
        )
        self._reader = ImapInbox(account, context)
        # A second session, for replies to mail no longer remembered: the reader's may be
        # waiting in IDLE for minutes.
        self._lookup = ImapInbox(account, context)
        password = settings.smtp_password or settings.imap_password
        self._smtp = SmtpAccount(
            settings.smtp_host,
            settings.smtp_port,
            settings.smtp_security,
            settings.smtp_username or settings.imap_username,
            password.get_secret_value(),
        )
        self._ssl_context = context
        self._threads: OrderedDict[str, MailThread] = OrderedDict()

    # Receiving.

    async def run(self) -> None:
        position = Position.of(self._inbox.cursor)
        while True:
            try:
                if position is None:
                    state = await self._reader.state()
                    position = Position(state.uidvalidity, state.uidnext - 1)
                    await self._inbox.advance(position.cursor)
                state, mails = await self._reader.fetch_after(position.last_uid, BATCH_SIZE)
                if state.uidvalidity != position.uidvalidity:
                    log.warning(
                        "e-mail %s: folder %s was renewed (UIDVALIDITY), reading its unseen mail",
                        self._inbox.connection_id,
                        self.settings.imap_folder,
                    )
                    position = Position(state.uidvalidity, 0, unseen_only=True)
                    await self._inbox.advance(position.cursor)
                    continue
                handled: list[int] = []
                for mail in mails:
                    position = Position(state.uidvalidity, mail.uid, position.unseen_only)
                    if await self._take(mail, position):
                        handled.append(mail.uid)
                await self._reader.mark_seen(handled)
                self._inbox.connected()
                if len(mails) < BATCH_SIZE:
                    if position.unseen_only:  # the renewed folder is read: back to normal
                        position = Position(position.uidvalidity, position.last_uid)
                        await self._inbox.advance(position.cursor)
                    await self._reader.wait_for_mail(
                        position.last_uid, self.settings.poll_interval_seconds
                    )
            except MailTransportError as error:
                raise _channel_error(error) from error

    async def _take(self, mail: FetchedMail, position: Position) -> bool:
        """Hand one mail to the inbox (or only move the position past it); whether it was
        handed over."""
        parsed = self._parsed(mail) if not (position.unseen_only and mail.seen) else None
        if parsed is None or not self._trusted(parsed):
            await self._inbox.advance(position.cursor)
            return False
        message = IncomingMessage(
            message_id=parsed.message_id,
            chat_id=parsed.sender,
            chat_kind="direct",
            sender=Sender(
                id=parsed.sender,
                display_name=parsed.sender_name or parsed.sender,
                is_bot=parsed.automatic,
                is_self=parsed.sender == self._address,
                language=parsed.language,
            ),
            text=parsed.text,
            addressed=True,
            media=[IncomingMedia(a.data, a.mime_type, a.filename) for a in parsed.attachments],
            cursor=position.cursor,
        )
        await self._inbox.deliver(message)
        self._remember(
            MailThread(parsed.message_id, parsed.subject, (*parsed.references,)),
        )
        return True

    def _parsed(self, mail: FetchedMail) -> InboundMail | None:
        if not mail.raw:
            return None  # too large to fetch
        try:
            return parse_mail(mail.raw)
        except (ValueError, LookupError, UnicodeError) as error:
            log.warning(
                "e-mail %s: mail %s unreadable: %s", self._inbox.connection_id, mail.uid, error
            )
            return None

    def _trusted(self, mail: InboundMail) -> bool:
        if not mail.sender:
            return False
        if mail.automatic or mail.sender == self._address:
            return True  # passed on marked, so the runtime's loop guard sees it
        if not self.settings.require_authenticated_sender:
            return True
        if sender_authenticated(
            mail.sender, mail.authentication_results, self.settings.authserv_id
        ):
            return True
        log.warning(
            "e-mail %s: mail from %s not read: its provider did not authenticate the sender",
            self._inbox.connection_id,
            mail.sender,
        )
        return False

    def _remember(self, thread: MailThread) -> None:
        self._threads[thread.message_id] = thread
        self._threads.move_to_end(thread.message_id)
        while len(self._threads) > THREADS_KEPT:
            self._threads.popitem(last=False)

    # Sending.

    async def send(
        self,
        chat_id: str,
        text: str,
        *,
        media: Sequence[OutgoingMedia] = (),
        reply_to: str | None = None,
    ) -> list[str]:
        answering = await self._thread(reply_to) if reply_to else None
        # One reply per incoming mail: sent again, it keeps its id (a notice gets a new one).
        stable = (
            stable_message_id(self._address, self._inbox.connection_id, chat_id, reply_to, text)
            if reply_to
            else None
        )
        message = compose_mail(
            sender=self._address,
            sender_name=self.settings.from_name,
            recipient=chat_id,
            markdown=text,
            subject=_subject_of(text),
            answering=answering,
            files=[OutgoingFile(m.filename, m.mime_type, m.data) for m in media],
            message_id=stable,
        )
        try:
            await send_mail(self._smtp, message, self._ssl_context)
        except MailTransportError as error:
            raise _channel_error(error) from error
        return [str(message["Message-ID"])]

    async def _thread(self, message_id: str) -> MailThread:
        """The thread of the mail ``message_id``: remembered, else read from the folder,
        else only its id (the reply still names it in In-Reply-To)."""
        known = self._threads.get(message_id)
        if known is not None:
            return known
        try:
            raw = await self._lookup.headers_of(message_id)
        except MailTransportError as error:
            log.info(
                "e-mail %s: thread of %s not found: %s",
                self._inbox.connection_id,
                message_id,
                error,
            )
            raw = None
        if raw is None:
            return MailThread(message_id)
        found = parse_mail(raw)
        thread = MailThread(message_id, found.subject, (*found.references,))
        self._remember(thread)
        return thread

    async def typing(self, chat_id: str) -> None:
        """Mail has no "is writing" signal."""

    async def close(self) -> None:
        await asyncio.gather(self._reader.close(), self._lookup.close())


def _subject_of(markdown: str) -> str:
    """A subject for a mail that answers none (a notification): the text's first line."""
    first = next((line for line in markdown_to_text(markdown).splitlines() if line.strip()), "")
    first = first.strip()
    if len(first) > MAX_SUBJECT_LENGTH:
        first = first[: MAX_SUBJECT_LENGTH - 1].rstrip() + "…"
    return first


def _channel_error(error: MailTransportError) -> ChannelError:
    detail = error.detail
    if error.reason == "login":
        return ChannelAuthFailed("the mail server refused the login", detail=detail)
    if error.reason == "folder":
        return ChannelConfigError("the mail folder cannot be opened", detail=detail)
    if error.reason == "rejected" and error.permanent:
        return ChannelRejected("the mail server refused the mail", detail=detail)
    return ChannelUnavailable("the mail server cannot be reached", detail=detail)

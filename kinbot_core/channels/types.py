"""The channel interface: what a plugin implements to connect KinBot to a messaging platform.

A plugin contributes a **channel type** through the ``register_channels`` hook. An
administrator then configures one or more **connections** of that type in Settings (a bot
token, say), each bound to one or more Kins. For every enabled connection the platform calls
``ChannelType.open(settings, inbox)`` and runs the returned ``ChannelConnection``:

- ``run()`` is the receive loop. It turns each platform message into an ``IncomingMessage``
  and hands it to ``await inbox.deliver(message)``, which returns once the message is stored
  (or known to be a repeat, or refused because its sender is not paired): only then may the
  connection acknowledge it to the platform (advance an update offset, answer a webhook,
  mark a mail seen). Positions that carry nothing to store are recorded with
  ``inbox.advance(cursor)``. On a restart the connection resumes from ``inbox.cursor``.
  After each successful exchange with the platform it calls ``inbox.connected()``.
- ``send(chat_id, text, media=..., reply_to=...)`` delivers one part of a Kin's reply. The
  runtime has already split the reply to ``max_message_length``; ``text`` is Markdown, and
  the connection formats it for the platform with ``format_markdown`` (falling back to plain
  text if the platform refuses the formatting). It returns the platform's ids of what it
  sent.

Everything the runtime decides stays in the runtime: who is paired (an unknown sender gets a
pairing code and reaches no Kin), which Kin gets the message, whether a group message was
addressed to the bot, the loop guard against bots, retries with backoff, splitting, and the
persisted delivery records. A connection only speaks the platform's protocol, and reports
failures as ``kinbot_core.channels.errors.ChannelError`` subclasses (retryable or not).

Settings are a pydantic model (``ChannelType.settings_model``): a field typed
``pydantic.SecretStr`` is a secret (sealed in the instance's encrypted store, never sent back
to a browser, shown as set/not set). Give fields a ``title`` and ``description``; Settings
renders the form from the model's JSON schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

#: A chat with one person, or a group (where the Kin answers only when addressed).
ChatKind = Literal["direct", "group"]


@dataclass(frozen=True)
class Sender:
    """Who wrote an incoming message, as the platform knows them."""

    #: The platform's stable id of the account (a Telegram user id, an e-mail address): the
    #: identity a pairing links to a KinBot user or a Kin contact.
    id: str
    #: The name to show (first and last name, a username), as the platform gives it.
    display_name: str
    #: The account is a bot: the runtime never answers it (loop guard).
    is_bot: bool = False
    #: The message is the connection's own (an echo of what it sent): never answered.
    is_self: bool = False
    #: The person's language as the platform reports it (an IETF tag such as ``"fr"`` or
    #: ``"en-GB"``), used for the pairing reply; ``None`` when unknown.
    language: str | None = None


@dataclass(frozen=True)
class IncomingMedia:
    """A file attached to an incoming message, already downloaded."""

    data: bytes
    #: Its MIME type (``image/jpeg``, ``audio/ogg``, ``application/pdf``…).
    mime_type: str
    #: A file name for the upload (the platform's, or one made from the type).
    filename: str


@dataclass(frozen=True)
class IncomingMessage:
    """One message received from the platform.

    ``message_id`` is the idempotency key: unique within the connection and the same every
    time the platform hands over the same message (a Telegram ``"<chat id>:<message id>"``, a
    mail's ``Message-ID``). A message whose key was already stored is not stored again.
    """

    message_id: str
    #: Where a reply goes back to (a Telegram chat id, the address to answer).
    chat_id: str
    chat_kind: ChatKind
    sender: Sender
    text: str
    #: The bot was addressed: always true in a direct chat; in a group, a mention of the bot
    #: or a reply to one of its messages.
    addressed: bool
    media: Sequence[IncomingMedia] = ()
    #: The platform's position to resume from once this message is stored (a Telegram
    #: update offset, an IMAP UID), recorded in the same transaction as the message; ``None``
    #: when the platform keeps no position (webhooks).
    cursor: str | None = None
    #: A group chat's title, when the platform gives one.
    chat_title: str | None = None


@dataclass(frozen=True)
class OutgoingMedia:
    """A file to send with a reply."""

    data: bytes
    mime_type: str
    filename: str


#: What ``Inbox.deliver`` did with a message.
DeliverOutcome = Literal["stored", "duplicate", "ignored", "pairing"]


@runtime_checkable
class Inbox(Protocol):
    """Where a connection hands what it receives; given to ``ChannelType.open``."""

    @property
    def connection_id(self) -> str:
        """The configured connection's stable id (for a route that receives the platform's
        webhook calls, say)."""
        ...

    @property
    def cursor(self) -> str | None:
        """The platform position stored with the last message or ``advance``: resume after
        it (``None`` the first time)."""
        ...

    async def deliver(self, message: IncomingMessage) -> DeliverOutcome:
        """Store ``message`` exactly once, with its ``cursor``, then return.

        ``"stored"``: it is in a Kin's queue; ``"duplicate"``: its ``message_id`` was already
        stored; ``"ignored"``: the loop guard or a group message not addressed to the bot;
        ``"pairing"``: the sender is not linked yet and was sent a pairing code. In every
        case the connection may now acknowledge the message to the platform. Raises only if
        storing failed (the connection must then not acknowledge it, so it comes again).
        """
        ...

    async def advance(self, cursor: str) -> None:
        """Record a new platform position that carries no message to store (an update of a
        kind the channel ignores)."""
        ...

    def connected(self) -> None:
        """Tell the platform the connection works: call it after each successful exchange
        with the platform (a poll that answered, even with nothing new). A connection shown
        as retrying or failing is shown as running again."""
        ...


@runtime_checkable
class ChannelConnection(Protocol):
    """One configured connection to the platform, opened by ``ChannelType.open``."""

    async def run(self) -> None:
        """Receive until cancelled, handing each message to the inbox (see the module
        docstring). Raise a ``ChannelError`` when receiving cannot go on: the runtime opens
        the connection again after a backoff if it is ``retryable``, and otherwise shows the
        connection as failing with the error's code until its settings change. Cancellation
        must leave nothing half-done (an offset is only advanced through the inbox)."""
        ...

    async def send(
        self,
        chat_id: str,
        text: str,
        *,
        media: Sequence[OutgoingMedia] = (),
        reply_to: str | None = None,
    ) -> list[str]:
        """Send one part of a reply to ``chat_id`` and return the platform ids of the
        messages it made (a file may be a message of its own).

        ``text`` is Markdown of at most ``max_message_length`` characters, to be formatted
        with the type's ``format_markdown``; if the platform refuses the formatting, send the
        plain text instead. ``reply_to`` is the ``message_id`` of the incoming message it
        answers, for platforms that thread replies (may be ignored). Raise a
        ``ChannelError`` on failure (``ChannelRateLimited`` with ``retry_after`` when told to
        wait)."""
        ...

    async def typing(self, chat_id: str) -> None:
        """Show that the Kin is writing in ``chat_id``, where the platform can (may do
        nothing). Failures are the connection's to swallow."""
        ...

    async def close(self) -> None:
        """Release network clients. Called once, after ``run`` ended or was cancelled."""
        ...


@runtime_checkable
class ChannelType(Protocol):
    """A kind of messaging platform a plugin contributes (``"telegram"``, ``"email"``…)."""

    #: Unique name, lower case (stored with each connection; the ``origin`` kind of its
    #: messages).
    name: str
    #: What Settings calls it (``"Telegram"``).
    label: str
    #: The pydantic model of a connection's settings; ``SecretStr`` fields are secrets.
    settings_model: type[BaseModel]
    #: The longest text one ``send`` may carry, in characters. A type may also set
    #: ``max_media_bytes``, the largest file ``send`` takes in ``media`` (a bigger file of a
    #: reply is named in its text instead; without it, files are not bounded).
    max_message_length: int

    def format_markdown(self, markdown: str) -> str:
        """``markdown`` (a Kin's reply) in the platform's own formatting (Telegram's HTML,
        an e-mail's plain text…)."""
        ...

    def open(self, settings: BaseModel, inbox: Inbox) -> ChannelConnection:
        """A connection for one configured instance: ``settings`` is an instance of
        ``settings_model`` (validated, secrets revealed). Must not do network I/O (``run``
        does)."""
        ...

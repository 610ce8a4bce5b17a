"""Secrets detected in incoming messages, while they wait (``platform.vault.pending``).

An incoming message is screened before it is stored (``screen``, see
``kinbot_core.vault.arrival``). A detected secret then waits, sealed, until:

- a Kin moves it into the Vault (``store``, the ``store_secret`` tool), or a member does from
  the chat: it becomes a Vault secret, and its placeholder ``[SECRET: KEY]``; nobody, the
  model included, reads the value on the way;
- a member says it is not a secret (``dismiss``): the original text comes back.

Either way the message's ``redaction_pending`` flag is cleared when no pending secret is
left, and the history index, the compacting and the memory extraction take the message up.
A member may act on a message they sent; an administrator on any.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import MessageRecord
from kinbot_core.events import EventBus
from kinbot_core.kins.screening import Screened
from kinbot_core.kins.service import MessageView
from kinbot_core.live import LiveFeed
from kinbot_core.vault.arrival import pending_placeholder, screen_text, settle
from kinbot_core.vault.events import MessageRedacted, MessageSecretDismissed
from kinbot_core.vault.masking import placeholder
from kinbot_core.vault.records import PendingSecretRecord, pending_sealing_context

#: Messages up to this length are screened on the event loop: it takes at most about 0.1 ms,
#: what handing the work to a thread costs (``docs/benchmarks.md``, turn_overhead).
INLINE_SCREEN_CHARS = 400

if TYPE_CHECKING:
    from kinbot_core.vault.service import VaultService
    from kinbot_core.vault.views import SecretView

logger = logging.getLogger(__name__)

#: The largest integer SQLite stores: a larger id names nothing.
SQLITE_MAX_INTEGER = 2**63 - 1


class PendingSecretError(Exception):
    """A request about a pending secret that cannot be done; the message says why (never
    quoting the secret)."""

    code = "pending_secret_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PendingSecretNotFound(PendingSecretError):
    code = "not_found"


class PendingSecretForbidden(PendingSecretError):
    code = "forbidden"


class PendingSecretUnreadable(PendingSecretError):
    """It was sealed under another master key (a backup restored without its key)."""

    code = "pending_secret_unreadable"


@dataclass(frozen=True)
class StoredSecret:
    """A pending secret moved into the Vault: the secret, and its message afterwards."""

    secret: SecretView
    message: MessageView


class PendingSecrets:
    """The pending secrets of every session."""

    def __init__(
        self,
        vault: VaultService,
        db: Database,
        bus: EventBus,
        live: LiveFeed,
        box: Callable[[], SecretBox],
    ) -> None:
        self._vault = vault
        self._db = db
        self._bus = bus
        self._live = live
        self._box = box

    async def screen(self, text: str, *, detect: bool) -> Screened:
        """``text`` as it may be stored: vault values masked and, with ``detect`` (a person
        wrote it), other secrets detected and set aside. Detection of a long message runs
        off the event loop (it takes a few milliseconds)."""
        masker = self._vault.masker()
        if not detect:
            return Screened(masker.mask(text))
        if len(text) <= INLINE_SCREEN_CHARS:
            return screen_text(text, masker, self._box)
        return await asyncio.to_thread(screen_text, text, masker, self._box)

    async def numbers(self, message_id: int) -> list[int]:
        """The numbers of the secrets still pending in a message."""
        rows = await self._db.read(
            lambda: list(
                PendingSecretRecord.select(PendingSecretRecord.number)
                .where(PendingSecretRecord.message_id == message_id)
                .order_by(PendingSecretRecord.number)
            )
        )
        return [row.number for row in rows]

    async def store(
        self,
        kin_id: str,
        message_id: int,
        number: int,
        key: str,
        description: str = "",
        *,
        user_id: str | None = None,
        admin: bool = False,
    ) -> StoredSecret:
        """Move pending secret ``number`` of a message of Kin ``kin_id`` into the Vault as
        ``key`` (a new key: ``SecretKeyTaken`` otherwise); its placeholder in the message
        becomes ``[SECRET: KEY]``. ``user_id``: the member asking (``None``: the Kin itself),
        who must have sent the message unless ``admin``."""
        pending = await self._pending(kin_id, message_id, number, user_id=user_id, admin=admin)
        value = self._open(pending)

        def replace_placeholder() -> None:
            _rewrite(message_id, number, placeholder(key))

        secret = await self._vault.create(
            key, value, description, created_by=user_id, along=replace_placeholder
        )
        message = await self._message(message_id)
        self._changed("message.redacted", message)
        self._bus.emit(MessageRedacted(kin_id=kin_id, message_id=str(message_id)))
        logger.info("pending secret %s of message %s stored as %s", number, message_id, key)
        return StoredSecret(secret, message)

    async def dismiss(
        self, kin_id: str, message_id: int, number: int, *, user_id: str, admin: bool
    ) -> MessageView:
        """Say pending secret ``number`` of a message is not a secret: the original text comes
        back in its place (vault values still masked)."""
        pending = await self._pending(kin_id, message_id, number, user_id=user_id, admin=admin)
        value = self._vault.masker().mask(self._open(pending))
        await self._db.write(_rewrite, message_id, number, value)
        message = await self._message(message_id)
        self._changed("message.restored", message)
        self._bus.emit(
            MessageSecretDismissed(kin_id=kin_id, message_id=str(message_id), user_id=user_id)
        )
        logger.info("pending secret %s of message %s dismissed", number, message_id)
        return message

    # -- internals -------------------------------------------------------------------------

    async def _pending(
        self, kin_id: str, message_id: int, number: int, *, user_id: str | None, admin: bool
    ) -> PendingSecretRecord:
        if not (0 < message_id <= SQLITE_MAX_INTEGER and 0 < number <= SQLITE_MAX_INTEGER):
            raise PendingSecretNotFound(f"There is no message {message_id} in this session.")

        def find() -> tuple[MessageRecord | None, PendingSecretRecord | None]:
            message = MessageRecord.get_or_none(
                (MessageRecord.id == message_id) & (MessageRecord.kin == kin_id)
            )
            pending = PendingSecretRecord.get_or_none(
                (PendingSecretRecord.message_id == message_id)
                & (PendingSecretRecord.number == number)
            )
            return message, pending

        message, pending = await self._db.read(find)
        if message is None:
            raise PendingSecretNotFound(f"There is no message {message_id} in this session.")
        if user_id is not None and not admin and not _sent_by(message, user_id):
            raise PendingSecretForbidden(
                "Only the member who sent the message, or an administrator, can do this."
            )
        if pending is None:
            numbers = await self.numbers(message_id)
            hidden = ", ".join(pending_placeholder(n) for n in numbers) or "none"
            raise PendingSecretNotFound(
                f"Message {message_id} has no {pending_placeholder(number)}; "
                f"secrets still hidden in it: {hidden}."
            )
        return pending

    def _open(self, pending: PendingSecretRecord) -> str:
        sealed = bytes(pending.value_sealed)
        try:
            return self._box().open(sealed, pending_sealing_context(pending.id)).decode()
        except DecryptionError:
            raise PendingSecretUnreadable(
                "This hidden secret was sealed under another master key: it cannot be opened."
            ) from None

    async def _message(self, message_id: int) -> MessageView:
        row = await self._db.read(lambda: MessageRecord.get_by_id(message_id))
        return MessageView.of(row)

    def _changed(self, live_type: str, message: MessageView) -> None:
        """Tell browsers (and rewrite what a resuming browser is replayed)."""
        self._live.rewrite_message(
            message.id, message.content, redaction_pending=message.redaction_pending
        )
        self._live.publish(
            live_type,
            {
                "kin_id": message.kin_id,
                "id": message.id,
                "content": message.content,
                "redaction_pending": message.redaction_pending,
            },
        )


def _sent_by(message: MessageRecord, user_id: str) -> bool:
    return bool(message.source == "user" and message.sender_id == user_id)


def _rewrite(message_id: int, number: int, replacement: str) -> None:
    """Put ``replacement`` where pending secret ``number`` is (on the writer thread, inside
    the caller's transaction), and settle the message's flag."""
    row = MessageRecord.get_by_id(message_id)
    content = row.content.replace(pending_placeholder(number), replacement)
    deleted = (
        PendingSecretRecord.delete()
        .where(
            (PendingSecretRecord.message_id == message_id) & (PendingSecretRecord.number == number)
        )
        .execute()
    )
    if not deleted:  # handled meanwhile (another member, or the Kin)
        raise PendingSecretNotFound(
            f"Message {message_id} has no {pending_placeholder(number)} any more."
        )
    pending = settle(message_id, content)
    MessageRecord.update(content=content, redaction_pending=pending).where(
        MessageRecord.id == message_id
    ).execute()

"""Pairing an unknown sender with a KinBot user or a Kin's contact.

An unknown sender of a direct chat gets a one-time code (``XXXX-XXXX``, letters and digits
that cannot be mistaken for one another); only its keyed hash is stored, and it expires. A
signed-in person who enters it links the sender's account to themselves; an administrator may
instead link a pending pairing to any user or to a contact of a Kin. Until then nothing the
sender writes reaches a Kin.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.channels.identity_records import (
    IdentityTaken,
    IdentityView,
    LinkResult,
    LinkTargetInvalid,
    NewPairing,
    PairingAttemptsExceeded,
    PairingCodeInvalid,
    PairingNotFound,
    PairingView,
)
from kinbot_core.config import Settings
from kinbot_core.contacts import ContactService
from kinbot_core.db import Database
from kinbot_core.db.models import (
    ChannelBindingRecord,
    ChannelConnectionRecord,
    ChannelIdentityRecord,
    ChannelPairingRecord,
    User,
)

#: Letters and digits a person reads and types without confusion (no 0/O, 1/I/L, U/V).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789"
CODE_LENGTH = 8
_NOT_CODE = re.compile(r"[\s-]+")


def normalise_code(code: str) -> str:
    """The code as stored: upper case, without spaces or hyphens."""
    return _NOT_CODE.sub("", code).upper()


def format_code(raw: str) -> str:
    """``ABCD2345`` as people read it: ``ABCD-2345``."""
    return f"{raw[:4]}-{raw[4:]}"


class IdentityPairing:
    """The pairing half of ``IdentityService``, which mixes it in and holds what it uses."""

    _db: Database
    _settings: Settings
    _contacts: ContactService
    _master_key: Callable[[], bytes]
    _clock: Callable[[], float]
    _attempts: SlidingWindowLimiter

    if TYPE_CHECKING:

        async def identity(self, identity_id: str) -> IdentityView: ...

    def _hash(self, code: str) -> str:
        key = hmac.new(self._master_key(), b"channel-pairing-code", hashlib.sha256).digest()
        return hmac.new(key, normalise_code(code).encode(), hashlib.sha256).hexdigest()

    # -- the inbox's side --------------------------------------------------------------------

    async def start_pairing(
        self,
        connection_id: str,
        platform_user_id: str,
        display_name: str,
        chat_id: str,
        language: str | None,
    ) -> NewPairing | None:
        """A new one-time code for an unknown sender, or ``None`` when one was sent to them
        less than ``channel_pairing_quiet_seconds`` ago (it still works)."""
        now = self._clock()
        raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        settings = self._settings

        def upsert() -> bool:
            row = ChannelPairingRecord.get_or_none(
                (ChannelPairingRecord.connection == connection_id)
                & (ChannelPairingRecord.platform_user_id == platform_user_id)
            )
            if (
                row is not None
                and row.expires_at > now
                and now - row.created_at < settings.channel_pairing_quiet_seconds
            ):
                return False
            if row is not None:
                row.delete_instance()
            ChannelPairingRecord.create(
                id=uuid.uuid4().hex,
                connection=connection_id,
                platform_user_id=platform_user_id,
                display_name=display_name[:200] or platform_user_id,
                chat_id=chat_id,
                language=language,
                code_hash=self._hash(raw),
                created_at=now,
                expires_at=now + settings.channel_pairing_code_ttl_seconds,
            )
            return True

        if not await self._db.write(upsert):
            return None
        return NewPairing(format_code(raw), language)

    # -- people and administrators -----------------------------------------------------------

    async def redeem(self, code: str, user_id: str) -> LinkResult:
        """Link the account a code was sent to with ``user_id``. ``PairingCodeInvalid`` for
        a wrong, used or expired code; ``PairingAttemptsExceeded`` after too many wrong
        ones."""
        wait = self._attempts.retry_after(user_id)
        if wait is not None:
            raise PairingAttemptsExceeded("Too many wrong codes: try again later.", wait)
        self._attempts.hit(user_id)
        code_hash = self._hash(code)
        now = self._clock()

        def find() -> ChannelPairingRecord | None:
            return ChannelPairingRecord.get_or_none(
                (ChannelPairingRecord.code_hash == code_hash)
                & (ChannelPairingRecord.expires_at > now)
            )

        pairing = await self._db.read(find)
        if pairing is None or len(normalise_code(code)) != CODE_LENGTH:
            raise PairingCodeInvalid("This code is not valid (mistyped, used or expired).")
        self._attempts.undo(user_id)
        identity_id = await self._db.write(_link, pairing.id, user_id, None, user_id)
        return LinkResult(await self.identity(identity_id), pairing.chat_id, pairing.language)

    async def link_pairing(
        self,
        pairing_id: str,
        *,
        by: str,
        user_id: str | None = None,
        kin_id: str | None = None,
        contact_id: str | None = None,
    ) -> LinkResult:
        """An administrator links a pending pairing to a user, or to a contact of a Kin the
        connection talks to (a new contact named after the sender when ``contact_id`` is
        ``None``)."""
        pairing = await self._db.read(
            lambda: ChannelPairingRecord.get_or_none(ChannelPairingRecord.id == pairing_id)
        )
        if pairing is None:
            raise PairingNotFound("No such pending pairing.")
        if (user_id is None) == (kin_id is None):
            raise LinkTargetInvalid("Link to a user, or to a Kin's contact.")
        if kin_id is not None:
            connection_id = pairing.__data__["connection"]
            bound = await self._db.read(
                lambda: (
                    ChannelBindingRecord.select()
                    .where(
                        (ChannelBindingRecord.connection == connection_id)
                        & (ChannelBindingRecord.kin == kin_id)
                    )
                    .exists()
                )
            )
            if not bound:
                raise LinkTargetInvalid("This channel does not talk to that Kin.")
            if contact_id is None:
                contact = await self._contacts.create(kin_id, pairing.display_name, "human")
                contact_id = contact.id
            else:
                await self._contacts.get(kin_id, contact_id)
            identity_id = await self._db.write(_link, pairing_id, None, contact_id, by)
        else:
            identity_id = await self._db.write(_link, pairing_id, user_id, None, by)
        return LinkResult(await self.identity(identity_id), pairing.chat_id, pairing.language)

    async def dismiss(self, pairing_id: str) -> None:
        """Forget a pending pairing (its code stops working)."""
        deleted = await self._db.write(
            lambda: (
                ChannelPairingRecord.delete().where(ChannelPairingRecord.id == pairing_id).execute()
            )
        )
        if not deleted:
            raise PairingNotFound("No such pending pairing.")

    async def pending(self) -> list[PairingView]:
        """Pairings not yet linked nor expired, newest first."""
        now = self._clock()

        def load() -> list[PairingView]:
            query = (
                ChannelPairingRecord.select(ChannelPairingRecord, ChannelConnectionRecord)
                .join(ChannelConnectionRecord)
                .where(ChannelPairingRecord.expires_at > now)
                .order_by(ChannelPairingRecord.created_at.desc())
            )
            return [
                PairingView(
                    id=row.id,
                    connection_id=row.connection.id,
                    connection_label=row.connection.label,
                    channel_type=row.connection.type,
                    display_name=row.display_name,
                    created_at=row.created_at,
                    expires_at=row.expires_at,
                )
                for row in query
            ]

        found: list[PairingView] = await self._db.read(load)
        return found


def _link(pairing_id: str, user_id: str | None, contact_id: str | None, by: str) -> str:
    """Turn a pairing into a linked identity (on the writer thread)."""
    pairing = ChannelPairingRecord.get_or_none(ChannelPairingRecord.id == pairing_id)
    if pairing is None:
        raise PairingNotFound("No such pending pairing.")
    if user_id is not None and not User.select().where(User.id == user_id).exists():
        raise LinkTargetInvalid("No such user.")
    connection_id = pairing.__data__["connection"]
    existing = ChannelIdentityRecord.get_or_none(
        (ChannelIdentityRecord.connection == connection_id)
        & (ChannelIdentityRecord.platform_user_id == pairing.platform_user_id)
    )
    if existing is not None:
        same = (existing.__data__.get("user"), existing.__data__.get("contact")) == (
            user_id,
            contact_id,
        )
        if not same:
            raise IdentityTaken("This account is already linked to someone else.")
        pairing.delete_instance()
        return str(existing.id)
    identity_id = uuid.uuid4().hex
    ChannelIdentityRecord.create(
        id=identity_id,
        connection=connection_id,
        platform_user_id=pairing.platform_user_id,
        display_name=pairing.display_name,
        user=user_id,
        contact=contact_id,
        chat_id=pairing.chat_id,
        linked_by=by,
        created_at=time.time(),
    )
    pairing.delete_instance()
    return identity_id

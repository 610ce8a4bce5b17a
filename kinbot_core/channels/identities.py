"""Who is speaking on a channel: platform accounts linked to a KinBot user or to a Kin's
contact, and the pairings of unknown senders.

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
from dataclasses import dataclass
from typing import Any

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.channels.connections import ChannelsError
from kinbot_core.config import Settings
from kinbot_core.contacts import ContactService
from kinbot_core.db import Database
from kinbot_core.db.models import (
    ChannelBindingRecord,
    ChannelConnectionRecord,
    ChannelIdentityRecord,
    ChannelPairingRecord,
    ContactRecord,
    User,
)

#: Letters and digits a person reads and types without confusion (no 0/O, 1/I/L, U/V).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789"
CODE_LENGTH = 8
_NOT_CODE = re.compile(r"[\s-]+")


class PairingCodeInvalid(ChannelsError):
    """Unknown, used or expired (not told apart, so a guess learns nothing)."""

    code = "pairing_code_invalid"


class PairingAttemptsExceeded(ChannelsError):
    code = "pairing_attempts_exceeded"
    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PairingNotFound(ChannelsError):
    code = "pairing_not_found"
    status = 404


class IdentityNotFound(ChannelsError):
    code = "channel_identity_not_found"
    status = 404


class IdentityTaken(ChannelsError):
    """The platform account is already linked to someone else."""

    code = "channel_identity_taken"
    status = 409


class LinkTargetInvalid(ChannelsError):
    """No such user, Kin or contact, or a Kin the connection does not talk to."""

    code = "channel_link_target_invalid"


@dataclass(frozen=True)
class Linked:
    """Who a platform account is in KinBot: a user, or a contact of one Kin."""

    identity_id: str
    name: str
    user_id: str | None
    contact_id: str | None
    #: The Kin of the contact (a contact belongs to one Kin).
    contact_kin_id: str | None


@dataclass(frozen=True)
class IdentityView:
    """A linked platform account, as My account and Settings list it."""

    id: str
    connection_id: str
    connection_label: str
    channel_type: str
    display_name: str
    user_id: str | None
    user_name: str | None
    contact_id: str | None
    contact_name: str | None
    kin_id: str | None
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PairingView:
    """A sender waiting to be linked (the code itself is never shown again)."""

    id: str
    connection_id: str
    connection_label: str
    channel_type: str
    display_name: str
    created_at: float
    expires_at: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LinkResult:
    """A pairing turned into a linked identity, and where to tell the person (their chat,
    in their language when known)."""

    identity: IdentityView
    chat_id: str
    language: str | None


@dataclass(frozen=True)
class NewPairing:
    """A code to send to an unknown sender, in their language when known."""

    code: str
    language: str | None


def normalise_code(code: str) -> str:
    """The code as stored: upper case, without spaces or hyphens."""
    return _NOT_CODE.sub("", code).upper()


def format_code(raw: str) -> str:
    """``ABCD2345`` as people read it: ``ABCD-2345``."""
    return f"{raw[:4]}-{raw[4:]}"


class IdentityService:
    """Pairings and linked identities."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        contacts: ContactService,
        master_key: Callable[[], bytes],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._settings = settings
        self._contacts = contacts
        self._master_key = master_key
        self._clock = clock
        self._attempts = SlidingWindowLimiter(
            settings.channel_pairing_attempts, settings.channel_pairing_window_seconds
        )

    def _hash(self, code: str) -> str:
        key = hmac.new(self._master_key(), b"channel-pairing-code", hashlib.sha256).digest()
        return hmac.new(key, normalise_code(code).encode(), hashlib.sha256).hexdigest()

    # -- the inbox's side --------------------------------------------------------------------

    async def lookup(self, connection_id: str, platform_user_id: str) -> Linked | None:
        """Who ``platform_user_id`` is on this connection, if linked."""

        def find() -> Linked | None:
            row = ChannelIdentityRecord.get_or_none(
                (ChannelIdentityRecord.connection == connection_id)
                & (ChannelIdentityRecord.platform_user_id == platform_user_id)
            )
            if row is None:
                return None
            user_id = row.__data__.get("user")
            contact_id = row.__data__.get("contact")
            if user_id is not None:
                user = User.get_or_none(User.id == user_id)
                if user is None or not user.is_active:
                    return None
                return Linked(row.id, user.pseudonym, user_id, None, None)
            contact = ContactRecord.get_or_none(ContactRecord.id == contact_id)
            if contact is None:
                return None
            return Linked(row.id, contact.name, None, contact.id, contact.__data__["kin"])

        found: Linked | None = await self._db.read(find)
        return found

    async def remember_chat(self, identity_id: str, chat_id: str) -> None:
        """Note the direct chat with a linked account (where notifications go)."""
        await self._db.write(
            lambda: (
                ChannelIdentityRecord.update(chat_id=chat_id)
                .where(
                    (ChannelIdentityRecord.id == identity_id)
                    & (
                        ChannelIdentityRecord.chat_id.is_null()
                        | (ChannelIdentityRecord.chat_id != chat_id)
                    )
                )
                .execute()
            )
        )

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

    async def identities(self, *, user_id: str | None = None) -> list[IdentityView]:
        """Linked accounts: a user's own, or (``None``) everyone's."""
        found: list[IdentityView] = await self._db.read(_identities, user_id, None)
        return found

    async def identity(self, identity_id: str) -> IdentityView:
        """One linked account, or ``IdentityNotFound``."""
        found = await self._db.read(_identities, None, identity_id)
        if not found:
            raise IdentityNotFound("No such linked account.")
        return found[0]

    async def unlink(self, identity_id: str, *, user_id: str | None = None) -> None:
        """Remove a linked account: ``user_id`` set, only if it is theirs (else it does not
        exist for them)."""

        def remove() -> int:
            query = ChannelIdentityRecord.delete().where(ChannelIdentityRecord.id == identity_id)
            if user_id is not None:
                query = query.where(ChannelIdentityRecord.user == user_id)
            return int(query.execute())

        if not await self._db.write(remove):
            raise IdentityNotFound("No such linked account.")

    async def chats_of(self, user_id: str) -> list[tuple[str, str]]:
        """The direct chats of a user's linked accounts: ``(connection id, chat id)``."""
        rows = await self._db.read(
            lambda: list(
                ChannelIdentityRecord.select()
                .where(
                    (ChannelIdentityRecord.user == user_id)
                    & ChannelIdentityRecord.chat_id.is_null(False)
                )
                .order_by(ChannelIdentityRecord.created_at)
            )
        )
        return [(str(row.__data__["connection"]), str(row.chat_id)) for row in rows]


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


def _identities(user_id: str | None, identity_id: str | None) -> list[IdentityView]:
    query = (
        ChannelIdentityRecord.select(ChannelIdentityRecord, ChannelConnectionRecord)
        .join(ChannelConnectionRecord)
        .order_by(ChannelIdentityRecord.created_at)
    )
    if user_id is not None:
        query = query.where(ChannelIdentityRecord.user == user_id)
    if identity_id is not None:
        query = query.where(ChannelIdentityRecord.id == identity_id)
    rows = list(query)
    users = {
        user.id: user.pseudonym
        for user in User.select(User.id, User.pseudonym).where(
            User.id.in_([row.__data__.get("user") for row in rows if row.__data__.get("user")])
        )
    }
    contacts = {
        contact.id: contact
        for contact in ContactRecord.select().where(
            ContactRecord.id.in_(
                [row.__data__.get("contact") for row in rows if row.__data__.get("contact")]
            )
        )
    }
    views = []
    for row in rows:
        linked_user = row.__data__.get("user")
        contact = contacts.get(row.__data__.get("contact"))
        views.append(
            IdentityView(
                id=row.id,
                connection_id=row.connection.id,
                connection_label=row.connection.label,
                channel_type=row.connection.type,
                display_name=row.display_name,
                user_id=linked_user,
                user_name=users.get(linked_user) if linked_user else None,
                contact_id=contact.id if contact else None,
                contact_name=contact.name if contact else None,
                kin_id=contact.__data__["kin"] if contact else None,
                created_at=row.created_at,
            )
        )
    return views

"""Who is speaking on a channel: platform accounts linked to a KinBot user or to a Kin's
contact, looked up, listed and unlinked; the pairings of unknown senders (``pairing.py``) are
mixed in."""

from __future__ import annotations

import time
from collections.abc import Callable

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.channels.identity_records import IdentityNotFound, IdentityView, Linked
from kinbot_core.channels.pairing import IdentityPairing
from kinbot_core.config import Settings
from kinbot_core.contacts import ContactService
from kinbot_core.db import Database
from kinbot_core.db.models import (
    ChannelConnectionRecord,
    ChannelIdentityRecord,
    ContactRecord,
    User,
)


class IdentityService(IdentityPairing):
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

    # -- people and administrators -----------------------------------------------------------

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

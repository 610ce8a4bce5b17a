"""Invitations: created by administrators (the code shown once), listed, revoked, checked,
and used up by registering a new account with one."""

from __future__ import annotations

import secrets
import time
import uuid
from typing import TYPE_CHECKING

from kinbot_core.accounts.errors import InvitationInvalid, NotFound
from kinbot_core.accounts.passwords import hash_password
from kinbot_core.accounts.views import (
    ROLES,
    AccountView,
    Identity,
    InvitationView,
    SessionGrant,
    hash_token,
)
from kinbot_core.config import Settings
from kinbot_core.db import Database
from kinbot_core.db.models import BrowserSession, Invitation, User
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import UserCreated, UserLogin


class AccountInvitations:
    """The invitations and registration of ``AccountService``, which mixes them in and holds
    what they use."""

    _db: Database
    _bus: EventBus
    _settings: Settings

    if TYPE_CHECKING:

        def _check_password(self, password: str) -> None: ...

        def _insert_user(self, identity: Identity, password_hash: str, *, role: str) -> User: ...

        def _insert_session(
            self, user: User, token: str, ip: str | None, user_agent: str | None
        ) -> BrowserSession: ...

    async def create_invitation(
        self, created_by: str, *, role: str = "member", note: str | None = None
    ) -> tuple[InvitationView, str]:
        """A new one-time invitation; returns it and its code (shown this once only)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        code = secrets.token_urlsafe(18)
        now = time.time()

        def create() -> Invitation:
            return Invitation.create(
                id=uuid.uuid4().hex,
                code_hash=hash_token(code),
                role=role,
                note=note,
                created_by=created_by,
                created_at=now,
                expires_at=now + self._settings.invitation_lifetime_hours * 3600,
            )

        return InvitationView.of(await self._db.write(create)), code

    async def list_invitations(self) -> list[InvitationView]:
        """Every invitation, newest first."""
        rows = await self._db.read(
            lambda: list(Invitation.select().order_by(Invitation.created_at.desc()))
        )
        return [InvitationView.of(row) for row in rows]

    async def revoke_invitation(self, invitation_id: str) -> InvitationView:
        """Make an unused invitation unusable."""

        def revoke() -> Invitation:
            invitation = Invitation.get_or_none(Invitation.id == invitation_id)
            if invitation is None:
                raise NotFound("No such invitation.")
            if invitation.used_at is None and invitation.revoked_at is None:
                invitation.revoked_at = time.time()
                invitation.save()
            return invitation

        return InvitationView.of(await self._db.write(revoke))

    async def check_invitation(self, code: str) -> InvitationView:
        """The invitation behind ``code`` if it can still be used, else ``InvitationInvalid``."""
        invitation = await self._db.read(
            lambda: Invitation.get_or_none(Invitation.code_hash == hash_token(code))
        )
        view = InvitationView.of(invitation) if invitation else None
        if view is None or view.status != "pending":
            raise InvitationInvalid("This invitation is unknown, used, revoked or expired.")
        return view

    async def register(
        self,
        code: str,
        identity: Identity,
        *,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> SessionGrant:
        """Create an account with an invitation code, consuming it, and sign in."""
        self._check_password(identity.password)
        password_hash = await hash_password(identity.password)
        token = secrets.token_urlsafe(32)

        def create() -> tuple[User, BrowserSession]:
            invitation = Invitation.get_or_none(Invitation.code_hash == hash_token(code))
            if invitation is None or InvitationView.of(invitation).status != "pending":
                raise InvitationInvalid("This invitation is unknown, used, revoked or expired.")
            user = self._insert_user(identity, password_hash, role=invitation.role)
            claimed = (
                Invitation.update(used_at=time.time(), used_by=user.id)
                .where((Invitation.id == invitation.id) & Invitation.used_at.is_null())
                .execute()
            )
            if claimed != 1:
                raise InvitationInvalid("This invitation was used a moment ago.")
            return user, self._insert_session(user, token, ip, user_agent)

        user, session = await self._db.write(create)
        self._bus.emit(UserCreated(user_id=user.id, role=user.role))
        self._bus.emit(UserLogin(user_id=user.id))
        return SessionGrant(token, session.id, session.expires_at, AccountView.of(user))

"""User administration: every user listed, a role changed, an account disabled, enabled or
removed, and never the last active administrator lost."""

from __future__ import annotations

import time

from kinbot_core.accounts.avatars import AvatarStore
from kinbot_core.accounts.errors import LastAdmin, NotFound
from kinbot_core.accounts.session_cache import SessionCache
from kinbot_core.accounts.views import ROLES, AccountView
from kinbot_core.db import Database
from kinbot_core.db.models import BrowserSession, User
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import UserAccessChanged


class UserAdministration:
    """The user administration of ``AccountService``, which mixes it in and holds what it
    uses."""

    _db: Database
    _bus: EventBus
    _sessions: SessionCache[tuple[AccountView, str]]
    avatars: AvatarStore

    async def list_users(self) -> list[AccountView]:
        """Every user, oldest first."""
        rows = await self._db.read(lambda: list(User.select().order_by(User.created_at)))
        return [AccountView.of(row) for row in rows]

    async def update_user(
        self, user_id: str, *, role: str | None = None, is_active: bool | None = None
    ) -> AccountView:
        """Change a user's role or disable/enable them.

        Lowering the role or disabling ends the user's sessions (and streams) at once.
        Raises ``LastAdmin`` rather than leave the platform without an active administrator.
        """
        if role is not None and role not in ROLES:
            raise ValueError(f"unknown role {role!r}")

        def update() -> tuple[User, bool]:
            user = User.get_or_none(User.id == user_id)
            if user is None:
                raise NotFound("No such user.")
            demoted = role is not None and user.role == "admin" and role != "admin"
            disabled = is_active is False and user.is_active
            if (demoted or disabled) and user.role == "admin" and _active_admins() <= 1:
                raise LastAdmin("KinBot needs at least one active administrator.")
            if role is not None:
                user.role = role
            if is_active is not None:
                user.is_active = is_active
            user.updated_at = time.time()
            user.save()
            if demoted or disabled:
                BrowserSession.delete().where(BrowserSession.user == user_id).execute()
            return user, demoted or disabled

        user, cut = await self._db.write(update)
        self._sessions.clear()
        if cut:
            reason = "disabled" if not user.is_active else "role_changed"
            self._bus.emit(UserAccessChanged(user_id=user_id, reason=reason))
        return AccountView.of(user)

    async def delete_user(self, user_id: str) -> None:
        """Remove a user and their sessions (their messages stay, attributed by id)."""

        def delete() -> str | None:
            user = User.get_or_none(User.id == user_id)
            if user is None:
                raise NotFound("No such user.")
            if user.role == "admin" and user.is_active and _active_admins() <= 1:
                raise LastAdmin("KinBot needs at least one active administrator.")
            avatar: str | None = user.avatar_path
            user.delete_instance()
            return avatar

        avatar = await self._db.write(delete)
        self._sessions.clear()
        await self.avatars.delete(avatar)
        self._bus.emit(UserAccessChanged(user_id=user_id, reason="removed"))


def _active_admins() -> int:
    count: int = User.select().where((User.role == "admin") & User.is_active).count()
    return count

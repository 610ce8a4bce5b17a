"""Accounts: the first administrator, sign-in, sessions and one's own account; invitations
(``invitations.py``) and user administration (``administration.py``) are mixed in."""

from __future__ import annotations

import json
import secrets
import time
import uuid
from typing import Any

import peewee

from kinbot_core.accounts.administration import UserAdministration
from kinbot_core.accounts.avatars import AvatarStore
from kinbot_core.accounts.errors import (
    AlreadySetUp,
    EmailTaken,
    InvalidCredentials,
    NotFound,
    PasswordRejected,
    RateLimited,
    WrongPassword,
)
from kinbot_core.accounts.invitations import AccountInvitations
from kinbot_core.accounts.passwords import hash_password, verify_password
from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.accounts.session_cache import SessionCache
from kinbot_core.accounts.views import AccountView, Identity, SessionGrant, hash_token
from kinbot_core.config import Settings
from kinbot_core.db import Database
from kinbot_core.db.models import BrowserSession, Setting, User
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import UserAccessChanged, UserCreated, UserLogin, UserLogout

#: Settings row whose insertion makes the first administrator unique, even across processes.
FIRST_ADMIN_KEY = "setup.first_admin"
#: Sessions record their last use at most this often (seconds), to keep reads read-only.
_TOUCH_EVERY = 300.0
#: How long a checked session is trusted without reading the database again (any change to an
#: account or a session forgets it at once).
_SESSION_CACHE_SECONDS = 10.0
#: Profile fields a user may change on their own account.
PROFILE_FIELDS = ("first_name", "last_name", "pseudonym", "language")


class AccountService(AccountInvitations, UserAdministration):
    """Every account operation. Slow hashing runs off the loop; writes are transactions."""

    def __init__(self, db: Database, bus: EventBus, settings: Settings) -> None:
        self._db = db
        self._bus = bus
        self._settings = settings
        window = settings.login_rate_window_seconds
        self._failures_by_account = SlidingWindowLimiter(
            settings.login_rate_limit_per_account, window
        )
        self._failures_by_ip = SlidingWindowLimiter(settings.login_rate_limit_per_ip, window)
        self.avatars = AvatarStore(settings.data_dir / "avatars", settings.avatar_max_bytes)
        self._languages: dict[str, str] = {}
        self._sessions: SessionCache[tuple[AccountView, str]] = SessionCache(_SESSION_CACHE_SECONDS)

    # -- onboarding --------------------------------------------------------------------------

    async def has_users(self) -> bool:
        """Whether anyone has an account yet (onboarding screen 1 is done)."""
        return await self._db.read(lambda: User.select().exists())

    async def create_first_admin(
        self, identity: Identity, *, ip: str | None = None, user_agent: str | None = None
    ) -> SessionGrant:
        """Create the first user, as administrator, and sign them in.

        Raises ``AlreadySetUp`` once any user exists; of two racing calls exactly one wins.
        """
        self._check_password(identity.password)
        password_hash = await hash_password(identity.password)
        token = secrets.token_urlsafe(32)

        def create() -> tuple[User, BrowserSession]:
            if User.select().exists():
                raise AlreadySetUp("KinBot is already set up: sign in instead.")
            user = self._insert_user(identity, password_hash, role="admin")
            try:
                Setting.insert(
                    key=FIRST_ADMIN_KEY, value=json.dumps(user.id), updated_at=time.time()
                ).execute()
            except peewee.IntegrityError:
                raise AlreadySetUp("KinBot is already set up: sign in instead.") from None
            return user, self._insert_session(user, token, ip, user_agent)

        user, session = await self._db.write(create)
        self._bus.emit(UserCreated(user_id=user.id, role=user.role))
        self._bus.emit(UserLogin(user_id=user.id))
        return SessionGrant(token, session.id, session.expires_at, AccountView.of(user))

    # -- signing in and out ------------------------------------------------------------------

    async def login(
        self, email: str, password: str, *, ip: str | None = None, user_agent: str | None = None
    ) -> SessionGrant:
        """Check the credentials and open a new session.

        The answer never tells whether the account exists. Raises ``RateLimited`` after too
        many failures for this account or this address, ``InvalidCredentials`` otherwise.
        """
        account_key = _normalise_email(email)
        ip_key = ip or "unknown"
        waits = [
            limiter.retry_after(key)
            for limiter, key in (
                (self._failures_by_account, account_key),
                (self._failures_by_ip, ip_key),
            )
        ]
        wait = max((w for w in waits if w is not None), default=None)
        if wait is not None:
            raise RateLimited("Too many failed sign-ins. Try again later.", retry_after=wait)

        # Counted before checking, so parallel attempts cannot slip past the limit.
        self._failures_by_account.hit(account_key)
        self._failures_by_ip.hit(ip_key)
        user = await self._db.read(lambda: User.get_or_none(User.email == account_key))
        matched = await verify_password(password, user.password_hash if user else None)
        if user is None or not matched or not user.is_active:
            raise InvalidCredentials("The email or the password is not right.")
        self._failures_by_account.reset(account_key)
        self._failures_by_ip.undo(ip_key)

        token = secrets.token_urlsafe(32)
        session = await self._db.write(self._insert_session, user, token, ip, user_agent)
        self._bus.emit(UserLogin(user_id=user.id))
        return SessionGrant(token, session.id, session.expires_at, AccountView.of(user))

    async def logout(self, session_id: str, user_id: str) -> None:
        """End one browser session."""
        await self._db.write(
            lambda: BrowserSession.delete().where(BrowserSession.id == session_id).execute()
        )
        self._sessions.clear()
        self._bus.emit(UserLogout(user_id=user_id))

    async def authenticate(self, token: str) -> tuple[AccountView, str] | None:
        """The user and session id behind a cookie token, if the session is alive."""
        session_id = hash_token(token)
        cached = self._sessions.get(session_id)
        if cached is not None:
            return cached
        generation = self._sessions.generation()

        def find() -> Any:
            return (
                BrowserSession.select(BrowserSession, User)
                .join(User)
                .where(BrowserSession.id == session_id)
                .first()
            )

        session = await self._db.read(find)
        now = time.time()
        if session is None or session.expires_at <= now or not session.user.is_active:
            return None
        if now - session.last_seen_at > _TOUCH_EVERY:
            await self._db.write(
                lambda: (
                    BrowserSession.update(last_seen_at=now)
                    .where(BrowserSession.id == session_id)
                    .execute()
                )
            )
        found = AccountView.of(session.user), session_id
        self._sessions.put(generation, session_id, session.expires_at, found)
        return found

    # -- own account -------------------------------------------------------------------------

    async def get(self, user_id: str) -> AccountView:
        """One user, or ``NotFound``."""
        user = await self._db.read(lambda: User.get_or_none(User.id == user_id))
        if user is None:
            raise NotFound("No such user.")
        return AccountView.of(user)

    async def language_of(self, user_id: str) -> str:
        """A user's language (``en`` for an unknown user), remembered between turns."""
        language = self._languages.get(user_id)
        if language is None:
            user = await self._db.read(lambda: User.get_or_none(User.id == user_id))
            language = user.language if user is not None else "en"
            self._languages[user_id] = language
        return language

    async def update_profile(self, user_id: str, changes: dict[str, Any]) -> AccountView:
        """Change one's names, pseudonym or language."""
        unknown = set(changes) - set(PROFILE_FIELDS)
        if unknown:
            raise ValueError(f"not profile fields: {sorted(unknown)}")

        def update() -> User:
            if changes:
                User.update(**changes, updated_at=time.time()).where(User.id == user_id).execute()
            return User.get_by_id(user_id)

        updated = AccountView.of(await self._db.write(update))
        self._sessions.clear()
        self._languages[user_id] = updated.language
        return updated

    async def change_password(
        self,
        user_id: str,
        current: str,
        new: str,
        *,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> SessionGrant:
        """Change the password; every session of the user ends and a fresh one is returned."""
        user = await self._db.read(lambda: User.get_or_none(User.id == user_id))
        if user is None:
            raise NotFound("No such user.")
        if not await verify_password(current, user.password_hash):
            raise WrongPassword("The current password is not right.")
        self._check_password(new)
        password_hash = await hash_password(new)
        token = secrets.token_urlsafe(32)

        def update() -> BrowserSession:
            User.update(password_hash=password_hash, updated_at=time.time()).where(
                User.id == user_id
            ).execute()
            BrowserSession.delete().where(BrowserSession.user == user_id).execute()
            return self._insert_session(user, token, ip, user_agent)

        session = await self._db.write(update)
        self._sessions.clear()
        self._bus.emit(UserAccessChanged(user_id=user_id, reason="password_changed"))
        return SessionGrant(token, session.id, session.expires_at, AccountView.of(user))

    async def set_avatar(self, user_id: str, data: bytes) -> AccountView:
        """Store a new avatar image for the user (see ``avatars.normalise_avatar``)."""
        name = await self.avatars.save(user_id, data)

        def update() -> tuple[str | None, User]:
            user = User.get_by_id(user_id)
            previous = user.avatar_path
            user.avatar_path = name
            user.updated_at = time.time()
            user.save()
            return previous, user

        previous, user = await self._db.write(update)
        self._sessions.clear()
        await self.avatars.delete(previous)
        return AccountView.of(user)

    async def remove_avatar(self, user_id: str) -> AccountView:
        """Remove the user's avatar."""

        def update() -> tuple[str | None, User]:
            user = User.get_by_id(user_id)
            previous = user.avatar_path
            user.avatar_path = None
            user.save()
            return previous, user

        previous, user = await self._db.write(update)
        self._sessions.clear()
        await self.avatars.delete(previous)
        return AccountView.of(user)

    # -- helpers -----------------------------------------------------------------------------

    def _check_password(self, password: str) -> None:
        minimum = self._settings.password_min_length
        if len(password) < minimum:
            raise PasswordRejected(f"The password needs at least {minimum} characters.", minimum)

    def _insert_user(self, identity: Identity, password_hash: str, *, role: str) -> User:
        email = _normalise_email(identity.email)
        if User.select().where(User.email == email).exists():
            raise EmailTaken("An account already uses this email address.")
        now = time.time()
        return User.create(
            id=uuid.uuid4().hex,
            email=email,
            first_name=identity.first_name,
            last_name=identity.last_name,
            pseudonym=identity.pseudonym,
            language=identity.language,
            password_hash=password_hash,
            role=role,
            created_at=now,
            updated_at=now,
        )

    def _insert_session(
        self, user: User, token: str, ip: str | None, user_agent: str | None
    ) -> BrowserSession:
        now = time.time()
        BrowserSession.delete().where(
            (BrowserSession.user == user.id) & (BrowserSession.expires_at <= now)
        ).execute()
        return BrowserSession.create(
            id=hash_token(token),
            user=user.id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + self._settings.session_lifetime_days * 86400,
            ip=ip,
            user_agent=(user_agent or "")[:300] or None,
        )


def _normalise_email(email: str) -> str:
    return email.strip().lower()

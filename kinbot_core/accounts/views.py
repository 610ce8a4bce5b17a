"""What an account is, as the service and the API see it: the identity given to create one,
a user, a new browser session, an invitation; and what is stored of their tokens."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from kinbot_core.db.models import Invitation, User

ROLES = ("admin", "member")


def hash_token(token: str) -> str:
    """What is stored of a session token or invitation code: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Identity:
    """What a person gives to create an account (onboarding screen 1, or an invitation)."""

    first_name: str
    last_name: str
    email: str
    pseudonym: str
    language: str
    password: str


@dataclass(frozen=True)
class AccountView:
    """A user as the API shows them: never the password hash."""

    id: str
    email: str
    first_name: str
    last_name: str
    pseudonym: str
    language: str
    role: str
    is_active: bool
    avatar: str | None
    created_at: float

    @classmethod
    def of(cls, user: User) -> AccountView:
        return cls(
            id=user.id,
            email=user.email,
            first_name=user.first_name,
            last_name=user.last_name,
            pseudonym=user.pseudonym,
            language=user.language,
            role=user.role,
            is_active=bool(user.is_active),
            avatar=user.avatar_path,
            created_at=user.created_at,
        )

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "email": self.email,
            "first_name": self.first_name,
            "last_name": self.last_name,
            "pseudonym": self.pseudonym,
            "language": self.language,
            "role": self.role,
            "is_active": self.is_active,
            "avatar_url": f"/api/users/{self.id}/avatar" if self.avatar else None,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class SessionGrant:
    """A new browser session: the raw token goes in the cookie and nowhere else."""

    token: str
    session_id: str
    expires_at: float
    user: AccountView


@dataclass(frozen=True)
class InvitationView:
    """An invitation as administrators see it (the code itself is shown once, at creation)."""

    id: str
    role: str
    note: str | None
    created_by: str | None
    created_at: float
    expires_at: float
    used_at: float | None
    used_by: str | None
    revoked_at: float | None

    @classmethod
    def of(cls, invitation: Invitation) -> InvitationView:
        return cls(
            id=invitation.id,
            role=invitation.role,
            note=invitation.note,
            created_by=_foreign_key(invitation, "created_by"),
            created_at=invitation.created_at,
            expires_at=invitation.expires_at,
            used_at=invitation.used_at,
            used_by=_foreign_key(invitation, "used_by"),
            revoked_at=invitation.revoked_at,
        )

    @property
    def status(self) -> str:
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if self.expires_at <= time.time() else "pending"

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "status": self.status}


def _foreign_key(row: Any, field: str) -> str | None:
    """The raw id a foreign-key field holds, without loading the related row."""
    value: str | None = row.__data__.get(field)
    return value

"""Accounts and access: users, passwords, browser sessions, invitations, avatars."""

from kinbot_core.accounts.errors import (
    AccountError,
    AlreadySetUp,
    AvatarRejected,
    EmailTaken,
    InvalidCredentials,
    InvitationInvalid,
    LastAdmin,
    NotFound,
    PasswordRejected,
    RateLimited,
    WrongPassword,
)
from kinbot_core.accounts.service import AccountService
from kinbot_core.accounts.views import (
    AccountView,
    Identity,
    InvitationView,
    SessionGrant,
)

__all__ = [
    "AccountError",
    "AccountService",
    "AccountView",
    "AlreadySetUp",
    "AvatarRejected",
    "EmailTaken",
    "Identity",
    "InvalidCredentials",
    "InvitationInvalid",
    "InvitationView",
    "LastAdmin",
    "NotFound",
    "PasswordRejected",
    "RateLimited",
    "SessionGrant",
    "WrongPassword",
]

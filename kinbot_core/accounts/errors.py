"""What can go wrong with accounts, each with a stable ``code`` and a user-readable message."""

from __future__ import annotations


class AccountError(Exception):
    """Base of account errors. ``code`` is stable for clients; the message is for people."""

    code = "account_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AlreadySetUp(AccountError):
    code = "already_set_up"


class InvalidCredentials(AccountError):
    code = "invalid_credentials"


class RateLimited(AccountError):
    code = "rate_limited"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InvitationInvalid(AccountError):
    code = "invitation_invalid"


class EmailTaken(AccountError):
    code = "email_taken"


class PasswordRejected(AccountError):
    """A password shorter than ``minimum`` characters (``password_min_length``)."""

    code = "password_rejected"

    def __init__(self, message: str, minimum: int) -> None:
        super().__init__(message)
        self.minimum = minimum


class WrongPassword(AccountError):
    code = "wrong_password"


class NotFound(AccountError):
    code = "not_found"


class LastAdmin(AccountError):
    code = "last_admin"


class AvatarRejected(AccountError):
    code = "avatar_rejected"

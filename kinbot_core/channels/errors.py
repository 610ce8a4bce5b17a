"""Errors a channel connection raises, classified for the runtime: whether trying again may
work (and when), and a stable ``code`` the web client words in the user's language.

A channel plugin translates its client library's exceptions into these; the runtime never
sees a library's own exception types. The message is for the server log (it must not hold a
token or a URL with one); what a person reads comes from ``code``.
"""

from __future__ import annotations


class ChannelError(Exception):
    """Base of every channel failure: not retryable unless a subclass says so."""

    code = "channel_error"
    #: Whether the same call may succeed later (the runtime retries it with backoff).
    retryable = False

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: The platform's own words about the failure, if it gave any (no secrets).
        self.detail = detail or None


class ChannelRateLimited(ChannelError):
    """The platform asked to slow down; ``retry_after`` seconds, when it said how long."""

    code = "channel_rate_limited"
    retryable = True

    def __init__(
        self, message: str, *, retry_after: float | None = None, detail: str | None = None
    ) -> None:
        super().__init__(message, detail=detail)
        self.retry_after = retry_after


class ChannelUnavailable(ChannelError):
    """The platform could not be reached or answered with a server error (network down,
    timeout, 5xx): trying again later may work."""

    code = "channel_unavailable"
    retryable = True


class ChannelAuthFailed(ChannelError):
    """The credentials were refused (a revoked or mistyped bot token): nothing works until an
    administrator changes the connection's settings."""

    code = "channel_auth_failed"


class ChannelRejected(ChannelError):
    """The platform refused this one request (the chat no longer exists, the bot was blocked
    by the person, a file too large): trying the same again will not work."""

    code = "channel_rejected"


class ChannelRecipientBlocked(ChannelRejected):
    """The person blocked the bot, or the bot is no longer in the chat: nothing reaches them
    until they unblock it (or add it back)."""

    code = "channel_blocked"


class ChannelConfigError(ChannelError):
    """The connection's settings cannot work as given (a webhook mode without a public URL);
    found when the connection opens."""

    code = "channel_config_invalid"


class ChannelSettingsUnreadable(ChannelConfigError):
    """The connection's secrets (a token, a password) were sealed under another master key
    (a backup restored without its key): they must be entered again in Settings."""

    code = "channel_settings_unreadable"

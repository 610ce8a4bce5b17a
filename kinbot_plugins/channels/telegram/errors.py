"""python-telegram-bot's exceptions as KinBot's channel errors.

The library's messages may quote the token (``Bot.initialize`` does): none is passed on; the
platform's own description is kept only where it cannot hold one (an error body's
``description``).
"""

from __future__ import annotations

from datetime import timedelta

from telegram import error as tg

from kinbot_core.channels import (
    ChannelAuthFailed,
    ChannelError,
    ChannelRateLimited,
    ChannelRecipientBlocked,
    ChannelRejected,
    ChannelUnavailable,
)

#: Telegram's answer when the HTML of a message does not parse.
PARSE_ERROR = "can't parse entities"


def is_parse_error(exc: BaseException) -> bool:
    """Whether Telegram refused a message's formatting (then sent as plain text)."""
    return isinstance(exc, tg.BadRequest) and PARSE_ERROR in str(exc).lower()


def translated(exc: tg.TelegramError) -> ChannelError:
    """The channel error for a failure of the Bot API."""
    if isinstance(exc, tg.RetryAfter):
        wait = exc.retry_after
        seconds = wait.total_seconds() if isinstance(wait, timedelta) else float(wait)
        return ChannelRateLimited("Telegram asked to slow down", retry_after=seconds)
    if isinstance(exc, tg.InvalidToken):
        return ChannelAuthFailed("Telegram refused the bot token")
    if isinstance(exc, tg.Forbidden):
        # "bot was blocked by the user", "bot was kicked from the group chat", "user is
        # deactivated": the person (or the group) no longer takes the bot's messages.
        return ChannelRecipientBlocked(
            "Telegram refused: the bot may not write there", detail=_said(exc)
        )
    if isinstance(exc, tg.ChatMigrated):
        return ChannelRejected("the group became a supergroup with another id")
    if isinstance(exc, tg.Conflict):
        return ChannelUnavailable(
            "another program receives this bot's messages (a second KinBot, or a webhook)",
            detail=_said(exc),
        )
    if isinstance(exc, tg.TimedOut):
        return ChannelUnavailable("Telegram did not answer in time")
    if isinstance(exc, tg.BadRequest):
        return ChannelRejected("Telegram refused the request", detail=_said(exc))
    if isinstance(exc, tg.NetworkError):
        return ChannelUnavailable("Telegram cannot be reached", detail=_said(exc))
    return ChannelUnavailable("Telegram answered with an error", detail=_said(exc))


def _said(exc: tg.TelegramError) -> str | None:
    """Telegram's own description of the error (``exc.message``), which names no token."""
    message = getattr(exc, "message", "") or ""
    return message[:300] or None

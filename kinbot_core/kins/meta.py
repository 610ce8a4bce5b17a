"""The ``meta`` of messages: structured facts the web UI renders in the reader's language,
while a message's ``content`` stays what the model reads (docs/api.md, "Message meta").

- a failed turn (an ``is_error`` message): ``{"error_code", "detail", "retryable"}``, and
  ``params`` for the codes whose sentence has numbers or names (``context_overflow``:
  ``window`` and ``needed`` tokens when known; ``model_not_loaded``: ``model``);
- a reply a member stopped: ``{"stopped": true}``;
- the result of a tool call a person declined, or that nobody approved in time:
  ``{"approval": {"status": "declined" | "expired", "reason": …}}`` (the reason, if given);
- a task's or a cron's end (``task_result``, ``task_failed``, ``task_cancelled``):
  built by ``kinbot_core.tasks.ending``;
- a message that came from outside the browser, and a Kin's reply delivered back there:
  ``{"origin": {"kind", "label"}}`` (:func:`origin`). ``kind`` is ``"webhook"`` or the type
  of the channel (``"telegram"``, ``"email"``…), ``label`` the name an administrator gave the
  webhook or the channel's connection ("Home Assistant", "Family Telegram"). The chat shows
  it as a badge ("via Home Assistant"); an unknown kind gets a generic icon. It may sit beside
  the other keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core.providers import ProviderError
from kinbot_core.providers.detail import shown_detail
from kinbot_core.providers.errors import (
    AuthenticationFailed,
    BadRequest,
    ContextOverflowError,
    MalformedResponse,
    ModelNotLoaded,
    ModelResolutionError,
    ProviderConfigError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    ServerStarting,
)

PROVIDER_UNREACHABLE = "provider_unreachable"
PROVIDER_FAILED = "provider_failed"
PROVIDER_RATE_LIMITED = "provider_rate_limited"
PROVIDER_AUTH_FAILED = "provider_auth_failed"
MODEL_UNAVAILABLE = "model_unavailable"
INTERNAL_ERROR = "internal_error"
TURN_STOPPED = "turn_stopped"
CONTEXT_OVERFLOW = "context_overflow"
MODEL_NOT_LOADED = "model_not_loaded"
PROVIDER_STARTING = "provider_starting"
#: Every ``error_code`` a failed turn's meta may carry.
ERROR_CODES = (
    PROVIDER_UNREACHABLE,
    PROVIDER_FAILED,
    PROVIDER_RATE_LIMITED,
    PROVIDER_AUTH_FAILED,
    MODEL_UNAVAILABLE,
    INTERNAL_ERROR,
    TURN_STOPPED,
    CONTEXT_OVERFLOW,
    MODEL_NOT_LOADED,
    PROVIDER_STARTING,
)
#: The meta of a reply a member stopped (its partial text is the message's content).
STOPPED: dict[str, Any] = {"stopped": True}


def origin(kind: str, label: str) -> dict[str, Any]:
    """The meta of a message that came from ``kind`` (a webhook, a channel's type) named
    ``label`` by an administrator; merge it into a larger meta with ``{**meta, **origin(…)}``."""
    return {"origin": {"kind": kind, "label": label}}


def provider_code(error: ProviderError) -> tuple[str, bool]:
    """The error code of a provider failure and whether trying again may work."""
    if isinstance(error, ContextOverflowError):
        return CONTEXT_OVERFLOW, True
    if isinstance(error, ModelNotLoaded):
        return MODEL_NOT_LOADED, True
    if isinstance(error, ServerStarting):
        return PROVIDER_STARTING, True
    if isinstance(error, RateLimited):
        return PROVIDER_RATE_LIMITED, True
    if isinstance(error, AuthenticationFailed):
        return PROVIDER_AUTH_FAILED, False
    if isinstance(error, ModelResolutionError | ProviderConfigError):
        return MODEL_UNAVAILABLE, False
    if isinstance(error, BadRequest):
        return (MODEL_UNAVAILABLE, False) if error.status == 404 else (PROVIDER_FAILED, False)
    if isinstance(error, ProviderTimeout | ProviderUnavailable):
        # Without a status the provider never answered; with one, it answered that it failed.
        return (PROVIDER_UNREACHABLE if error.status is None else PROVIDER_FAILED), True
    if isinstance(error, MalformedResponse):
        return PROVIDER_FAILED, True
    return PROVIDER_FAILED, error.transient


def failure(error: BaseException | None, mask: Callable[[str], str]) -> dict[str, Any]:
    """The meta of a turn that failed on ``error``: a provider's failure gets its code and
    the provider's own message (``mask`` hides vault values; addresses of the local network
    are left out); anything else is an internal error, without detail (the log has it)."""
    if not isinstance(error, ProviderError):
        return {"error_code": INTERNAL_ERROR, "detail": None, "retryable": True}
    code, retryable = provider_code(error)
    facts: dict[str, Any] = {
        "error_code": code,
        "detail": provider_detail(error, mask),
        "retryable": retryable,
    }
    if code in (CONTEXT_OVERFLOW, MODEL_NOT_LOADED) and error.params:
        facts["params"] = dict(error.params)
    return facts


def stopped_turn() -> dict[str, Any]:
    """The meta of a turn stopped before it said anything (a member's Stop, a restart, the
    step cap)."""
    return {"error_code": TURN_STOPPED, "detail": None, "retryable": True}


def provider_detail(error: ProviderError, mask: Callable[[str], str]) -> str | None:
    """The provider's own words about ``error``, masked, cut, without local addresses
    (``kinbot_core.providers.detail``)."""
    return shown_detail(error.detail, mask)

"""Pieces shared by the built-in provider plugins (not an interface of the core).

``httpx`` is imported by the functions that need it, not with this module: the plugins import
it at start-up, and httpx (with the CLI it brings) costs a tenth of a second there.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kinbot_core.providers import (
    AuthenticationFailed,
    BadRequest,
    ConfigField,
    MalformedResponse,
    ProviderConfigError,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)
from kinbot_plugins.providers._server_errors import recognised

API_KEY = ConfigField("api_key", "API key", secret=True)
OPTIONAL_API_KEY = ConfigField("api_key", "API key", required=False, secret=True)


def base_url_field(default: str | None, *, required: bool = False) -> ConfigField:
    """The base URL field: optional (a proxy or a compatible server; empty is the service's own
    address), or required (a server of the person's), its ``default`` then a suggestion."""
    return ConfigField(
        "base_url",
        "Base URL",
        required=required,
        default=default,
        help=(
            "The server's address, starting with http:// or https://."
            if required
            else "Leave empty to use the service's own address."
        ),
    )


def validate_fields(
    fields: tuple[ConfigField, ...], config: Mapping[str, Any], label: str
) -> dict[str, Any]:
    """Check ``config`` against ``fields``: required ones present, no unknown ones, strings
    stripped, a base URL that is http(s). Returns the normalised configuration."""
    known = {f.name for f in fields}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ProviderConfigError(
            f"{label}: unknown settings {', '.join(unknown)}.",
            code="provider_settings_unknown",
            params={"settings": ", ".join(unknown)},
        )
    normalised: dict[str, Any] = {}
    for config_field in fields:
        value = config.get(config_field.name)
        if isinstance(value, str):
            value = value.strip() or None
        if value is None:
            if config_field.required:
                raise ProviderConfigError(
                    f"{label}: {config_field.label} is required.",
                    code="provider_field_required",
                    params={"field": config_field.name, "label": config_field.label},
                )
            continue
        if not isinstance(value, str):
            raise ProviderConfigError(
                f"{label}: {config_field.label} must be text.",
                code="provider_field_not_text",
                params={"field": config_field.name, "label": config_field.label},
            )
        if config_field.name == "base_url":
            import httpx

            parsed = httpx.URL(value)
            if parsed.scheme not in ("http", "https") or not parsed.host:
                raise ProviderConfigError(
                    f"{label}: the base URL must start with http(s)://.",
                    code="provider_base_url_invalid",
                )
            value = value.rstrip("/")
        normalised[config_field.name] = value
    return normalised


def public_url(url: str) -> str:
    """A URL without the credentials or query it may carry (for messages and labels)."""
    import httpx

    parsed = httpx.URL(url)
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


def missing_v1(error: ProviderError, base_url: str) -> ProviderError:
    """What a failed connection test says: ``error``, unless it is a 404 at an address whose
    path does not end in ``/v1`` (no path, or another one), where an OpenAI-compatible server's
    API usually lives: then a ``BadRequest`` coded ``provider_base_url_missing_v1`` with the
    address to try (``params["suggested_base_url"]``: the address with ``/v1`` added)."""
    parsed = urlsplit(public_url(base_url))
    path = parsed.path.rstrip("/")
    if error.status != 404 or path.endswith("/v1"):
        return error
    address = urlunsplit((parsed.scheme, parsed.netloc, path, "", ""))
    suggested = f"{address}/v1"
    return BadRequest(
        f"Nothing answers at {address}/models. OpenAI-compatible servers usually end in /v1: "
        f"try {suggested}",
        detail=error.detail,
        status=error.status,
        code="provider_base_url_missing_v1",
        params={"suggested_base_url": suggested},
    )


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a Retry-After (or retry-after-ms) header, when present and numeric."""
    if not headers:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return float(milliseconds) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    try:
        return float(value) if value else None
    except ValueError:
        return None


def from_status(
    status: int, detail: str, label: str, headers: Mapping[str, str] | None = None
) -> ProviderError:
    """A typed error for an HTTP error status (``detail``: the provider's own message)."""
    if status == 429:
        return RateLimited(
            f"{label} is rate limiting requests. {detail}".strip(),
            retry_after=retry_after(headers),
            detail=detail,
            status=status,
        )
    if status in (401, 403):
        return AuthenticationFailed(
            f"{label} refused the credentials. {detail}".strip(), detail=detail, status=status
        )
    if status == 408 or status == 504:
        return ProviderTimeout(f"{label} timed out. {detail}".strip(), detail=detail, status=status)
    if status >= 500:
        return ProviderUnavailable(
            f"{label} is unavailable ({status}). {detail}".strip(), detail=detail, status=status
        )
    return BadRequest(
        f"{label} rejected the request ({status}). {detail}".strip(), detail=detail, status=status
    )


def translate_stainless(exc: BaseException, sdk: ModuleType, label: str) -> ProviderError:
    """Translate an exception of an anthropic or openai SDK (same generated structure), or
    of their HTTP library (``httpx2``) raised while a streamed answer is read."""
    import httpx2

    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, sdk.APITimeoutError) and not _refused(exc):
        return ProviderTimeout(f"{label} did not answer in time.")
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderUnavailable(f"{label} cannot be reached.")
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderUnavailable(f"{label} cannot be reached.")
    if isinstance(exc, sdk.APIStatusError):
        detail = _detail(exc)
        known = recognised(exc.status_code, detail, _error_object(exc), label)
        return known or from_status(exc.status_code, detail, label, exc.response.headers)
    if isinstance(exc, sdk.APIError) and not isinstance(exc, sdk.APIResponseValidationError):
        # An error event inside a stream (the answer had begun: no status of its own).
        detail = _detail(exc) or str(getattr(exc, "message", "") or "")
        if known := recognised(400, detail, _error_object(exc), label):
            return known
        return ProviderUnavailable(f"{label} failed while answering. {detail}".strip())
    if isinstance(
        exc, sdk.APIResponseValidationError | json.JSONDecodeError | ValueError | KeyError
    ):
        return MalformedResponse(f"{label} sent an answer KinBot could not read.")
    if isinstance(exc, TimeoutError | asyncio.TimeoutError | httpx2.TimeoutException):
        return ProviderTimeout(f"{label} did not answer in time.")
    if isinstance(exc, httpx2.TransportError):
        return ProviderUnavailable(f"{label} cannot be reached.")
    return MalformedResponse(f"{label} failed unexpectedly ({type(exc).__name__}).")


def _refused(exc: BaseException) -> bool:
    """Whether a timeout the SDK reports was a connection refused or failed at once: the
    openai SDK's aiohttp transport maps aiohttp's ``ClientConnectorError`` (nothing listens
    there, no such host) to a connect *timeout*."""
    import aiohttp

    cause: BaseException | None = exc
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, aiohttp.ClientConnectorError) and not isinstance(
            cause, asyncio.TimeoutError
        ):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _error_object(exc: Any) -> dict[str, Any] | None:
    """The error object of an SDK status error's body (its ``error``, or the body itself)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        return error if isinstance(error, dict) else None
    return None


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:300]
    return ""


def parse_arguments(raw: str, label: str) -> dict[str, Any]:
    """A tool call's JSON arguments, or ``MalformedResponse``."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        raise MalformedResponse(f"{label} sent tool arguments that are not valid JSON.") from None
    if not isinstance(value, dict):
        raise MalformedResponse(f"{label} sent tool arguments that are not an object.")
    return value


#: Headers the Stainless-made SDKs (openai, anthropic) add to every request about the machine
#: (its OS, architecture, Python) and about the client: none of a provider's business, and
#: building them again for each call cost about 40 µs of CPU.
_MACHINE_HEADERS = (
    "X-Stainless-Lang",
    "X-Stainless-Package-Version",
    "X-Stainless-OS",
    "X-Stainless-Arch",
    "X-Stainless-Runtime",
    "X-Stainless-Runtime-Version",
    "X-Stainless-Async",
)
#: Per-call headers of the same SDKs (their own retries are off: the platform retries).
_CALL_HEADERS = ("X-Stainless-Retry-Count", "X-Stainless-Read-Timeout")


def quiet_client_headers(sdk: ModuleType) -> dict[str, Any]:
    """``default_headers`` for a Stainless-made SDK's client: the machine's headers left out."""
    return {name: sdk.Omit() for name in _MACHINE_HEADERS}


def quiet_call_headers(sdk: ModuleType) -> dict[str, Any]:
    """``extra_headers`` (or ``options["headers"]``) for one call of such a client."""
    return {name: sdk.Omit() for name in _CALL_HEADERS}

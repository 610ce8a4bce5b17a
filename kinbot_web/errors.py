"""Every error answered as JSON ``{"error": {"code", "message", "details"}}`` with the right status.

``code`` is what the web interface translates (every code the server can answer has an English
and a French sentence, checked by tests/test_error_codes.py); ``details`` carries its parameters
(the invalid fields with their rule and limit, seconds to wait, a size limit, the ``params`` of
a provider, Kin or task error: a name already taken, a model no provider offers…). ``message`` is an
English sentence for API clients and logs, never shown as such by the interface.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import ValidationError
from quart import Quart, Response, jsonify
from quart_schema import RequestSchemaValidationError
from werkzeug.exceptions import HTTPException

from kinbot_core.accounts import AccountError, PasswordRejected, RateLimited
from kinbot_core.contacts import ContactError, ContactNotFound
from kinbot_core.kins import KinError
from kinbot_core.memory import MemoryError, MemoryNotFound
from kinbot_core.plugins import PluginRequired, UnknownPlugin
from kinbot_core.providers import (
    ModelResolutionError,
    ProviderConfigError,
    ProviderError,
)
from kinbot_core.providers import RateLimited as ProviderRateLimited
from kinbot_core.schema_settings import SettingsInvalid
from kinbot_core.tasks import TaskError, TaskNotFound

logger = logging.getLogger(__name__)


class ApiError(Exception):
    """Raise from a view to answer ``status`` with ``code`` and a user-readable ``message``."""

    def __init__(self, status: int, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


#: HTTP status of each account error code.
ACCOUNT_ERROR_STATUS = {
    "already_set_up": 409,
    "invalid_credentials": 401,
    "rate_limited": 429,
    "invitation_invalid": 410,
    "email_taken": 409,
    "password_rejected": 400,
    "wrong_password": 403,
    "not_found": 404,
    "last_admin": 409,
    "avatar_rejected": 400,
}


def error_response(status: int, code: str, message: str, /, **details: Any) -> Response:
    """The JSON error body every failing request receives."""
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    response = jsonify({"error": body})
    response.status_code = status
    return response


def _code_of(exc: HTTPException) -> str:
    return re.sub(r"[^a-z0-9]+", "_", (exc.name or "error").lower()).strip("_")


#: The limits of a validation rule a person is told (pydantic's ``ctx`` keys).
_LIMITS = ("min_length", "max_length", "ge", "gt", "le", "lt", "pattern")


def _validation_details(exc: RequestSchemaValidationError) -> list[dict[str, Any]]:
    """Each invalid field with pydantic's rule (``type``, e.g. ``string_too_long``), its
    limits and pydantic's English ``message``: the interface words the rule itself."""
    cause = exc.validation_error
    if isinstance(cause, ValidationError):
        fields = []
        for error in cause.errors(include_url=False, include_input=False):
            context = error.get("ctx") or {}
            field: dict[str, Any] = {
                "field": ".".join(str(part) for part in error["loc"]),
                "type": error["type"],
                "message": error["msg"],
            }
            field.update({key: context[key] for key in _LIMITS if key in context})
            fields.append(field)
        return fields
    return [{"field": "", "type": "invalid", "message": str(cause)}]


def _retry_after(response: Response, seconds: float) -> None:
    response.headers["Retry-After"] = str(max(1, round(seconds)))


def register(app: Quart) -> None:
    """Install the error handlers on ``app``."""

    @app.errorhandler(ApiError)
    async def api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.code, exc.message, **exc.details)

    @app.errorhandler(RequestSchemaValidationError)
    async def invalid_request(exc: RequestSchemaValidationError) -> Response:
        return error_response(
            400, "invalid_request", "The request is not valid.", fields=_validation_details(exc)
        )

    @app.errorhandler(AccountError)
    async def account_error(exc: AccountError) -> Response:
        status = ACCOUNT_ERROR_STATUS.get(exc.code, 400)
        if isinstance(exc, RateLimited):
            retry_after = max(1, round(exc.retry_after))
            response = error_response(status, exc.code, exc.message, retry_after=retry_after)
            _retry_after(response, exc.retry_after)
            return response
        if isinstance(exc, PasswordRejected):  # the sentence says how long, in any language
            return error_response(status, exc.code, exc.message, min_length=exc.minimum)
        return error_response(status, exc.code, exc.message)

    @app.errorhandler(ProviderError)
    async def provider_error(exc: ProviderError) -> Response:
        if isinstance(exc, ProviderConfigError):
            status = 404 if exc.code == "not_found" else 400
        elif isinstance(exc, ModelResolutionError):
            status = 400
        elif isinstance(exc, ProviderRateLimited):
            status = 429
        else:
            status = 502  # the provider failed, not this server
        if isinstance(exc, ProviderRateLimited) and exc.retry_after:
            retry_after = max(1, round(exc.retry_after))
            response = error_response(status, exc.code, exc.message, retry_after=retry_after)
            _retry_after(response, exc.retry_after)
            return response
        return error_response(status, exc.code, exc.message, **exc.params)

    @app.errorhandler(KinError)
    async def kin_error(exc: KinError) -> Response:
        return error_response(exc.status, exc.code, exc.message, **exc.params)

    @app.errorhandler(TaskError)
    async def task_error(exc: TaskError) -> Response:
        if isinstance(exc, TaskNotFound):
            return error_response(404, "not_found", exc.message)
        return error_response(409, exc.code, exc.message, **exc.params)

    @app.errorhandler(MemoryError)
    async def memory_error(exc: MemoryError) -> Response:
        if isinstance(exc, MemoryNotFound):
            return error_response(404, "not_found", str(exc))
        return error_response(400, "memory_invalid", str(exc))

    @app.errorhandler(ContactError)
    async def contact_error(exc: ContactError) -> Response:
        status = 404 if isinstance(exc, ContactNotFound) else 400
        return error_response(status, "not_found" if status == 404 else "contact_invalid", str(exc))

    @app.errorhandler(UnknownPlugin)
    async def unknown_plugin(exc: UnknownPlugin) -> Response:
        return error_response(404, "unknown_plugin", str(exc))

    @app.errorhandler(PluginRequired)
    async def plugin_required(exc: PluginRequired) -> Response:
        return error_response(409, "plugin_required", str(exc), reason=exc.reason)

    @app.errorhandler(SettingsInvalid)
    async def settings_invalid(exc: SettingsInvalid) -> Response:
        return error_response(400, exc.code, str(exc), fields=exc.fields)

    @app.errorhandler(HTTPException)
    async def http_error(exc: HTTPException) -> Response:
        response = error_response(exc.code or 500, _code_of(exc), exc.description or "")
        if exc.code == 405 and exc.response is None:
            allowed = getattr(exc, "valid_methods", None)
            if allowed:
                response.headers["Allow"] = ", ".join(allowed)
        return response

    @app.errorhandler(Exception)
    async def internal_error(exc: Exception) -> Response:
        logger.exception("unhandled error")
        return error_response(500, "internal_error", "Something went wrong on the server.")

"""``POST /api/hooks/<token>``: what services outside KinBot (Home Assistant, a calendar, a
form) send to a Kin through an inbound webhook (docs/webhooks.md).

Public: the token in the path is the credential (``kinbot_core.webhooks``). An unknown,
rotated or disabled token gets the same 401, before the body is read; so does a request whose
signature is wrong, once the body is read. The rate limit and the body limit are checked
before the body is read too.
"""

from __future__ import annotations

from typing import Any

from pydantic import RootModel
from quart import Blueprint, Response, request
from quart_schema import DataSource, document_request

from kinbot_core.kins import KinNotFound
from kinbot_core.webhooks import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    InboundWebhook,
    SignatureRefused,
    WebhookGone,
    check_signature,
)
from kinbot_web.app_context import current_platform
from kinbot_web.auth import public
from kinbot_web.errors import ApiError, error_response
from kinbot_web.webhook_input import message_text, read_body

blueprint = Blueprint("hooks", __name__)


class WebhookEvent(RootModel[dict[str, Any]]):
    """What a service sends, for the API's document: any JSON object (a form or text is
    taken too; docs/webhooks.md)."""


def _unknown() -> ApiError:
    return ApiError(401, "webhook_unknown", "No enabled webhook has this address.")


def _rate_limited(wait: float) -> Response:
    seconds = max(1, round(wait))
    response = error_response(
        429, "rate_limited", "This webhook receives too many requests.", retry_after=seconds
    )
    response.headers["Retry-After"] = str(seconds)
    return response


def _check_signature(webhook: InboundWebhook, body: bytes) -> None:
    if webhook.signing_secret is None:
        return
    platform = current_platform()
    try:
        check_signature(
            webhook.signing_secret,
            body,
            request.headers.get(SIGNATURE_HEADER),
            request.headers.get(TIMESTAMP_HEADER),
            now=platform.webhooks.now(),
            tolerance=platform.settings.webhook_timestamp_tolerance_seconds,
        )
    except SignatureRefused as refused:
        raise ApiError(401, "webhook_signature_invalid", str(refused)) from None


@blueprint.post("/api/hooks/<token>")
@public
@document_request(WebhookEvent, source=DataSource.JSON)
async def receive(token: str) -> Response | tuple[dict[str, object], int]:
    """Queue the body as a message for the webhook's Kin → 202 ``{"message_id", "status"}``."""
    webhooks = current_platform().webhooks
    webhook = await webhooks.find(token)
    if webhook is None:
        raise _unknown()
    wait = webhooks.retry_after(webhook)
    if wait is not None:
        return _rate_limited(wait)
    body = await read_body(webhook.max_body_bytes)
    _check_signature(webhook, body)
    wait = webhooks.admit(webhook)
    if wait is not None:
        return _rate_limited(wait)
    text = message_text(body, request.headers.get("Content-Type"))
    try:
        message = await webhooks.deliver(webhook, text)
    except (WebhookGone, KinNotFound):  # deleted or disabled while the body arrived
        raise _unknown() from None
    return {"message_id": message.id, "status": message.status}, 202

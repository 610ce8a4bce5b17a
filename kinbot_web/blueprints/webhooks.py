"""``/api/webhooks``: administrators create, change, rotate and delete the inbound webhooks
of Kins (docs/webhooks.md). A webhook's token is in the answer only when it is issued
(creation, rotation); its signing secret never is."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.setting_groups.tools import WEBHOOK_BODY_CEILING
from kinbot_core.webhooks import IssuedToken, WebhookError
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user
from kinbot_web.blueprints.schemas import Identifier
from kinbot_web.errors import error_response
from kinbot_web.kin_guard import usable

blueprint = Blueprint("webhooks", __name__)


class WebhookIn(BaseModel):
    kin_id: Identifier
    name: str = Field(min_length=1, max_length=80)
    #: The HMAC-SHA256 key requests must be signed with; none: no signature asked.
    signing_secret: str | None = Field(None, min_length=16, max_length=256)
    #: Largest body accepted, in bytes (default: ``webhook_body_max_bytes``).
    max_body_bytes: int | None = Field(None, ge=1024, le=WEBHOOK_BODY_CEILING)


class WebhookUpdate(BaseModel):
    name: str | None = Field(None, min_length=1, max_length=80)
    enabled: bool | None = None
    max_body_bytes: int | None = Field(None, ge=1024, le=WEBHOOK_BODY_CEILING)
    #: A new signing secret, or ``null`` to stop asking for a signature.
    signing_secret: str | None = Field(None, min_length=16, max_length=256)


@blueprint.errorhandler(WebhookError)
async def webhook_error(exc: WebhookError) -> Response:
    return error_response(exc.status, exc.code, exc.message)


def _issued(issued: IssuedToken) -> dict[str, Any]:
    """A webhook with its token, its path and, when ``public_url`` is set, its full URL."""
    public_url = current_platform().settings.public_url
    return {
        "webhook": issued.webhook.to_dict(),
        "token": issued.token,
        "path": issued.path,
        "url": f"{public_url}{issued.path}" if public_url else None,
    }


@blueprint.get("/api/webhooks")
@admin_only
async def list_webhooks() -> dict[str, object]:
    """Every webhook of a Kin the administrator may use, without tokens or secrets."""
    webhooks = usable(
        current_user(), await current_platform().webhooks.list_all(), lambda w: w.kin_id
    )
    return {"webhooks": [webhook.to_dict() for webhook in webhooks]}


@blueprint.post("/api/webhooks")
@admin_only
@validate_request(WebhookIn)
async def create_webhook(data: WebhookIn) -> tuple[dict[str, object], int]:
    """Create a webhook for a Kin → 201 with its token, shown this once."""
    issued = await current_platform().webhooks.create(
        data.kin_id,
        data.name,
        signing_secret=data.signing_secret,
        max_body_bytes=data.max_body_bytes,
        created_by=current_user().id,
    )
    return _issued(issued), 201


@blueprint.patch("/api/webhooks/<webhook_id>")
@admin_only
@validate_request(WebhookUpdate)
async def update_webhook(webhook_id: str, data: WebhookUpdate) -> dict[str, object]:
    """Rename, enable or disable a webhook, change its body limit or signing secret."""
    changes = data.model_dump(exclude_unset=True)
    webhook = await current_platform().webhooks.update(webhook_id, changes)
    return {"webhook": webhook.to_dict()}


@blueprint.post("/api/webhooks/<webhook_id>/rotate")
@admin_only
async def rotate_token(webhook_id: str) -> dict[str, object]:
    """Give the webhook a new token (shown this once); the former URL stops working."""
    return _issued(await current_platform().webhooks.rotate(webhook_id))


@blueprint.delete("/api/webhooks/<webhook_id>")
@admin_only
async def delete_webhook(webhook_id: str) -> Response:
    """Delete a webhook; its URL stops working."""
    await current_platform().webhooks.delete(webhook_id)
    return Response(status=204)

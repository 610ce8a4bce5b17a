"""``/api/me/notifications`` and ``/api/me/push-subscriptions``: the signed-in person's
notification preference and route, the browsers they receive notifications on, and a test.

Everything here is the person's own: their subscriptions are never shown to anyone else, and a
subscription's endpoint and keys are never returned (a browser recognises its own by the
SHA-256 of its endpoint).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.notifications import NotificationError
from kinbot_core.notifications.subscriptions import ENDPOINT_MAX
from kinbot_core.notifications.types import BODY_MAX, TITLE_MAX
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.auth.session import user_agent
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("notifications", __name__)


class PreferenceIn(BaseModel):
    #: ``always``, ``away`` (only while no browser of mine has KinBot open) or ``never``.
    mode: Literal["always", "away", "never"] | None = None
    #: ``push``, or a route a channel offers (``GET /api/me/notifications`` lists them).
    route: str | None = Field(None, min_length=1, max_length=100)


class SubscriptionKeys(BaseModel):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)


class SubscriptionIn(BaseModel):
    """What the browser's ``PushSubscription.toJSON()`` gives."""

    endpoint: str = Field(min_length=1, max_length=ENDPOINT_MAX)
    keys: SubscriptionKeys
    expirationTime: float | None = None  # the browser's own name for it


class EndpointIn(BaseModel):
    endpoint: str = Field(min_length=1, max_length=ENDPOINT_MAX)


class TestIn(BaseModel):
    #: The words of the test notification, in the person's language (the interface's).
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    body: str = Field(min_length=1, max_length=BODY_MAX)


@blueprint.errorhandler(NotificationError)
async def notification_error(exc: NotificationError) -> Response:
    return error_response(exc.status, exc.code, exc.message, **exc.details)


async def _settings_of(user_id: str) -> dict[str, object]:
    notifications = current_platform().notifications
    return {
        "vapid_public_key": notifications.public_key,
        "preference": (await notifications.preference(user_id)).to_dict(),
        "routes": await notifications.routes_for(user_id),
    }


@blueprint.get("/api/me/notifications")
@signed_in
async def get_notification_settings() -> dict[str, object]:
    """The VAPID public key to subscribe with, my preference (``mode``, ``route``) and the
    routes I may choose (``push``, and a channel's when I have a linked identity there)."""
    return await _settings_of(current_user().id)


@blueprint.patch("/api/me/notifications")
@signed_in
@validate_request(PreferenceIn)
async def update_notification_settings(data: PreferenceIn) -> dict[str, object]:
    """Change my mode and/or route."""
    user_id = current_user().id
    await current_platform().notifications.set_preference(user_id, mode=data.mode, route=data.route)
    return await _settings_of(user_id)


@blueprint.post("/api/me/notifications/test")
@signed_in
@validate_request(TestIn)
async def send_test_notification(data: TestIn) -> dict[str, object]:
    """Send me a test notification by my route, whatever my mode: ``outcome.status`` is
    ``delivered``, ``no_device``, ``failed`` or ``rate_limited`` (a few per minute)."""
    outcome = await current_platform().notifications.send_test(
        current_user().id, data.title, data.body
    )
    return {"outcome": outcome.to_dict()}


@blueprint.get("/api/me/push-subscriptions")
@signed_in
async def list_push_subscriptions() -> dict[str, object]:
    """The browsers I receive notifications on (device names, dates, the SHA-256 of each
    endpoint so that a browser finds itself; never an endpoint or a key)."""
    subscriptions = await current_platform().notifications.subscriptions.list(current_user().id)
    return {"subscriptions": [subscription.to_dict() for subscription in subscriptions]}


@blueprint.post("/api/me/push-subscriptions")
@signed_in
@validate_request(SubscriptionIn)
async def add_push_subscription(data: SubscriptionIn) -> tuple[dict[str, object], int]:
    """Receive notifications on this browser: its ``PushSubscription`` (subscribed with the
    VAPID public key). The device is named from the User-Agent."""
    subscription = await current_platform().notifications.subscriptions.add(
        current_user().id, data.endpoint, data.keys.p256dh, data.keys.auth, user_agent()
    )
    return {"subscription": subscription.to_dict()}, 201


@blueprint.delete("/api/me/push-subscriptions")
@signed_in
@validate_request(EndpointIn)
async def remove_this_push_subscription(data: EndpointIn) -> Response:
    """This browser stops receiving notifications (it unsubscribed): by its endpoint."""
    store = current_platform().notifications.subscriptions
    if not await store.remove_endpoint(current_user().id, data.endpoint):
        raise ApiError(404, "not_found", "No such subscription of yours.")
    return Response(status=204)


@blueprint.delete("/api/me/push-subscriptions/<subscription_id>")
@signed_in
async def remove_push_subscription(subscription_id: str) -> Response:
    """Stop notifications on one of my devices (from the list)."""
    store = current_platform().notifications.subscriptions
    if not await store.remove(current_user().id, subscription_id):
        raise ApiError(404, "not_found", "No such subscription of yours.")
    return Response(status=204)

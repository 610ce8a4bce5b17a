"""What a notification is, how it reaches a person (a route), and what became of it."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: When a person wants notifications: ``always``; ``away``, only while no browser of theirs
#: has KinBot open (no live event stream of theirs); ``never``.
MODES = ("always", "away", "never")
Mode = Literal["always", "away", "never"]
DEFAULT_MODE: Mode = "always"
#: The built-in route: Web Push to each subscribed browser of the person.
PUSH_ROUTE = "push"

#: Longest title and body sent (a push message carries at most about 4 KB once encrypted).
TITLE_MAX = 100
BODY_MAX = 600

#: What became of a notification: sent through the route; not sent because of the person's
#: preference (``never``, or ``away`` while they have KinBot open); refused by the Kin's
#: rate limit; nowhere to send it (no subscribed device, no such person); the route failed.
Status = Literal[
    "delivered", "skipped_preference", "rate_limited", "no_device", "no_recipient", "failed"
]


#: Longest link (a path of the web app).
LINK_MAX = 500


def app_path(link: str) -> str | None:
    """``link`` when it is a path of the web app (``/kins/…``), else ``None``: a notification
    opens KinBot, never another site (no scheme, no ``//host``, no backslash)."""
    if (
        not link.startswith("/")
        or link.startswith("//")
        or len(link) > LINK_MAX
        or any(char in link for char in "\\\r\n\t")
    ):
        return None
    return link


@dataclass(frozen=True)
class Notification:
    """One notification for one person.

    ``link`` is a path of the web app (``/kins/<kin id>?message=<message id>``); a route
    that leaves the browser (a chat platform) makes it absolute with ``absolute_link``.
    ``tag`` groups notifications (a newer one with the same tag replaces the older).
    """

    title: str
    body: str
    link: str = "/"
    kin_id: str | None = None
    kin_name: str | None = None
    tag: str | None = None
    icon: str | None = None
    created_at: float = field(default_factory=time.time)

    def absolute_link(self, base_url: str) -> str:
        """``link`` on ``base_url`` (``public_url``); the bare path when that is empty."""
        return f"{base_url.rstrip('/')}{self.link}" if base_url else self.link

    def payload(self) -> dict[str, Any]:
        """The JSON the service worker receives in its ``push`` event."""
        return {key: value for key, value in asdict(self).items() if value is not None}


#: A route's delivery: ``deliver(user_id, notification)``. It returns once the notification
#: is handed over, raises ``NoDevice`` when the person cannot be reached this way, and any
#: other exception for a failure (logged by its type, never its message).
Deliver = Callable[[str, Notification], Awaitable[None]]
#: Whether a route can reach a person at all (a linked identity on that channel, say).
Available = Callable[[str], Awaitable[bool]]


class NoDevice(Exception):
    """The route has nowhere to deliver to for this person (no subscribed browser, no linked
    identity)."""


@dataclass(frozen=True)
class Route:
    """A way to reach people: ``name`` (stored as a person's choice), ``deliver``, and
    ``available`` (``None``: anyone). ``label`` is what the person reads in My account (an
    administrator-given name such as "Family Telegram"); the built-in push route has none,
    the interface words it."""

    name: str
    deliver: Deliver
    available: Available | None = None
    label: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What ``notify`` did for one person."""

    status: Status
    user_id: str | None = None
    route: str | None = None
    #: For ``rate_limited``: seconds until the Kin may notify again.
    retry_after: float | None = None
    #: For ``skipped_preference``: the person's mode that stopped it.
    mode: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


class NotificationError(Exception):
    """A request about notifications that cannot be done: ``code`` for the interface, the
    message for API clients and logs (never a secret), ``details`` its parameters."""

    code = "notification_invalid"
    status = 400

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class EndpointRefused(NotificationError):
    """Not a push service address KinBot may post to."""

    code = "push_endpoint_refused"


class KeysInvalid(NotificationError):
    """Not the keys a browser makes for a push subscription."""

    code = "push_keys_invalid"


class TooManyDevices(NotificationError):
    """The person already has the most subscribed devices allowed."""

    code = "push_too_many_devices"
    status = 409


class RouteUnavailable(NotificationError):
    """The route is not offered to this person."""

    code = "notification_route_unavailable"

"""Notifications: a Kin reaching a person who is away, by Web Push or a route another part
adds (a messaging channel), per the person's preference, within the Kin's rate limit.

``platform.notifications`` is the ``NotificationService``; ``add_route(name, deliver)`` is
how a channel plugin offers itself as a route (``docs/notifications.md``).
"""

from kinbot_core.notifications.service import NotificationService, Preference
from kinbot_core.notifications.types import (
    MODES,
    PUSH_ROUTE,
    NoDevice,
    Notification,
    NotificationError,
    Outcome,
    Route,
)

__all__ = [
    "MODES",
    "PUSH_ROUTE",
    "NoDevice",
    "Notification",
    "NotificationError",
    "NotificationService",
    "Outcome",
    "Preference",
    "Route",
]

"""The notify service (``platform.notifications``): a notification for a person, by the route
they chose, when their preference allows it, within the Kin's rate limit.

Routes: ``push`` (Web Push, built in) and those other parts add with ``add_route`` (a channel
plugin offering "send it to me on Telegram" to people with a linked identity). A person whose
chosen route is gone (its plugin disabled) is reached by push. A route's failure is logged
(its type, never its message: it could hold an address or a token) and reported in the
``Outcome``; it never raises into the caller's turn.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db.models import NotificationPreferenceRecord
from kinbot_core.kins.access import user_may_use_now
from kinbot_core.notifications import vapid
from kinbot_core.notifications.recipients import default_recipient
from kinbot_core.notifications.subscriptions import SubscriptionStore
from kinbot_core.notifications.types import (
    BODY_MAX,
    DEFAULT_MODE,
    MODES,
    PUSH_ROUTE,
    TITLE_MAX,
    Available,
    Deliver,
    NoDevice,
    Notification,
    Outcome,
    Route,
    RouteUnavailable,
    app_path,
)
from kinbot_core.notifications.web_push import WebPushRoute
from kinbot_core.tools import Speaker

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: Test notifications a person may ask for per minute (from My account).
TEST_LIMIT = 5
TEST_WINDOW_SECONDS = 60.0


@dataclass(frozen=True)
class Preference:
    """When (``mode``) and how (``route``) a person wants notifications."""

    mode: str = DEFAULT_MODE
    route: str = PUSH_ROUTE

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "route": self.route}


class NotificationService:
    """Notifications of one platform: preferences, routes, subscriptions, the VAPID keys."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        settings = platform.settings
        self._limiter = SlidingWindowLimiter(
            settings.notify_rate_limit, settings.notify_rate_window_seconds
        )
        self._test_limiter = SlidingWindowLimiter(TEST_LIMIT, TEST_WINDOW_SECONDS)
        self._keys: vapid.VapidKeys | None = None
        self.subscriptions = SubscriptionStore(
            platform.db, settings, lambda: SecretBox(platform.master_key)
        )
        self._push = WebPushRoute(settings, self.subscriptions, self._vapid_keys, self._subject)
        self._routes: dict[str, Route] = {PUSH_ROUTE: Route(PUSH_ROUTE, self._push.deliver)}

    async def start(self) -> None:
        """Load (or on the first start, generate) the instance's VAPID keys. Keys sealed under
        another master key (a backup restored without its key) are kept as they are, not
        replaced: Web Push is off (``public_key`` is ``None``) until that key is back."""
        box = SecretBox(self._platform.master_key)
        try:
            self._keys = await vapid.load_or_create(self._platform.db, box)
        except DecryptionError:
            logger.warning(
                "Web Push is off: its keys were sealed under another master key (a backup "
                "restored without its secret.key?); put the original key back to turn it on"
            )

    @property
    def public_key(self) -> str | None:
        """The VAPID public key browsers subscribe with (``applicationServerKey``); ``None``
        while the stored keys cannot be opened."""
        return self._keys.public_key if self._keys is not None else None

    def _vapid_keys(self) -> vapid.VapidKeys:
        if self._keys is None:
            raise RuntimeError("the notification service is not started")
        return self._keys

    # -- routes (contract for channel plugins) ---------------------------------------------

    def add_route(
        self,
        name: str,
        deliver: Deliver,
        *,
        available: Available | None = None,
        label: str | None = None,
    ) -> None:
        """Offer another way to reach people: ``deliver(user_id, notification)`` (awaitable;
        raise ``NoDevice`` when the person cannot be reached this way). ``available(user_id)``
        says whether to offer it to a person (``None``: to everyone); ``label`` is shown to
        them (an administrator-given name). Adding a name again replaces the route."""
        if name == PUSH_ROUTE or not name or len(name) > 100:
            raise ValueError(f"{name!r} cannot name a notification route")
        self._routes[name] = Route(name, deliver, available, label)

    def remove_route(self, name: str) -> None:
        """Stop offering a route (people who chose it are reached by push)."""
        if name != PUSH_ROUTE:
            self._routes.pop(name, None)

    async def routes_for(self, user_id: str) -> list[dict[str, Any]]:
        """The routes a person may choose: ``{"name", "label"?}``, push first."""
        offered = []
        for route in self._routes.values():
            if route.available is None or await _safely(route.available, user_id):
                offered.append({"name": route.name, "label": route.label})
        return [{k: v for k, v in item.items() if v is not None} for item in offered]

    # -- preferences -----------------------------------------------------------------------

    async def preference(self, user_id: str) -> Preference:
        """A person's preference (``always`` by push until they choose)."""
        row = await self._platform.db.read(
            lambda: NotificationPreferenceRecord.get_or_none(
                NotificationPreferenceRecord.user == user_id
            )
        )
        return Preference() if row is None else Preference(row.mode, row.route)

    async def set_preference(
        self, user_id: str, *, mode: str | None = None, route: str | None = None
    ) -> Preference:
        """Change a person's mode and/or route; ``RouteUnavailable`` for a route not offered
        to them (``ValueError`` for a mode that does not exist)."""
        current = await self.preference(user_id)
        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown notification mode {mode!r}")
        if route is not None and route not in {r["name"] for r in await self.routes_for(user_id)}:
            raise RouteUnavailable("This route is not available to you.")
        chosen = Preference(mode or current.mode, route or current.route)

        def save() -> None:
            NotificationPreferenceRecord.insert(
                user=user_id, mode=chosen.mode, route=chosen.route, updated_at=time.time()
            ).on_conflict_replace().execute()

        await self._platform.db.write(save)
        return chosen

    # -- sending ---------------------------------------------------------------------------

    async def notify(
        self,
        user_id: str | None,
        title: str,
        body: str,
        link: str | None = None,
        *,
        kin_id: str | None = None,
        kin_name: str | None = None,
        session_kin_id: str | None = None,
        speaker: Speaker | None = None,
    ) -> Outcome:
        """Notify ``user_id`` (``None``: the person ``recipients.default_recipient`` picks for
        Kin ``kin_id``, from its session ``session_kin_id``, a sub-Kin's, and ``speaker``).

        The Kin's rate limit counts every call that has a recipient; then the person's
        preference decides; then their route delivers. Never raises for a delivery failure.
        """
        if user_id is None and kin_id is not None:
            user_id = await default_recipient(
                self._platform, session_kin_id or kin_id, kin_id, speaker
            )
        if user_id is None or (
            kin_id is not None
            and not user_may_use_now(self._platform, user_id, session_kin_id or kin_id)
        ):
            return Outcome("no_recipient")  # a restricted Kin tells only its own people
        if kin_id is not None:
            wait = self._limiter.retry_after(kin_id)
            if wait is not None:
                return Outcome("rate_limited", user_id, retry_after=round(wait, 1))
            self._limiter.hit(kin_id)
        preference = await self.preference(user_id)
        if preference.mode == "never" or (
            preference.mode == "away" and self._platform.live.has_stream(user_id)
        ):
            return Outcome("skipped_preference", user_id, mode=preference.mode)
        path = app_path(link) if link else None
        notification = Notification(
            title=title[:TITLE_MAX],
            body=body[:BODY_MAX],
            link=path or "/",
            kin_id=kin_id,
            kin_name=kin_name,
            tag=path,
        )
        return await self._deliver(user_id, preference, notification)

    async def send_test(self, user_id: str, title: str, body: str) -> Outcome:
        """A notification the person asked for, to check their set-up: by their route,
        whatever their mode (a few per minute)."""
        key = f"test:{user_id}"
        wait = self._test_limiter.retry_after(key)
        if wait is not None:
            return Outcome("rate_limited", user_id, retry_after=round(wait, 1))
        self._test_limiter.hit(key)
        notification = Notification(
            title=title[:TITLE_MAX], body=body[:BODY_MAX], link="/account", tag="kinbot-test"
        )
        return await self._deliver(user_id, await self.preference(user_id), notification)

    async def _deliver(
        self, user_id: str, preference: Preference, notification: Notification
    ) -> Outcome:
        route = self._routes.get(preference.route) or self._routes[PUSH_ROUTE]
        try:
            await route.deliver(user_id, notification)
        except NoDevice:
            return Outcome("no_device", user_id, route.name)
        except Exception as error:
            logger.warning(
                "notification route %s failed for user %s: %s",
                route.name,
                user_id,
                type(error).__name__,
            )
            return Outcome("failed", user_id, route.name)
        return Outcome("delivered", user_id, route.name)

    async def _subject(self) -> str:
        """The contact in the VAPID signature (``push_vapid_subject``'s rule)."""
        settings = self._platform.settings
        if settings.push_vapid_subject:
            return settings.push_vapid_subject
        if settings.public_url.startswith("https://"):
            return settings.public_url
        admins = [u for u in await self._platform.accounts.list_users() if u.is_admin]
        if admins:
            return f"mailto:{min(admins, key=lambda u: u.created_at).email}"
        return "mailto:kinbot@localhost"


async def _safely(available: Available, user_id: str) -> bool:
    try:
        return bool(await available(user_id))
    except Exception as error:
        logger.warning("a notification route's availability check failed: %s", type(error).__name__)
        return False

"""The ``push`` route: a notification to every subscribed browser of a person, through the
push service each browser chose (RFC 8030), encrypted for that browser (RFC 8291, ``aes128gcm``)
and signed with the instance's VAPID key (RFC 8292), by ``pywebpush``.

A push service answering 404 or 410 has forgotten the subscription: it is removed. Push
services are reached under the same address rules as the web tools (``net_guard``): public
addresses only, unless ``push_allowed_networks`` opens some; the check is on the addresses
actually connected to. What is logged names the push service's host and the HTTP status,
never the endpoint's path (it is the browser's capability) nor a key.

``pywebpush`` (which brings ``requests``) and aiohttp are imported by the first push, not at
start-up.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

from yarl import URL

from kinbot_core.config import Settings
from kinbot_core.net_guard import BlockedAddress
from kinbot_core.notifications.subscriptions import (
    PushTarget,
    SubscriptionStore,
    address_policy,
    check_endpoint,
)
from kinbot_core.notifications.types import NoDevice, Notification, NotificationError
from kinbot_core.notifications.vapid import VapidKeys

logger = logging.getLogger(__name__)

#: Statuses of a push service meaning the subscription no longer exists.
GONE = (404, 410)


class PushFailed(Exception):
    """No subscribed browser of the person took the notification."""


class WebPushRoute:
    """Delivers notifications by Web Push (the ``push`` route)."""

    def __init__(
        self,
        settings: Settings,
        store: SubscriptionStore,
        keys: Callable[[], VapidKeys],
        subject: Callable[[], Awaitable[str]],
    ) -> None:
        self._settings = settings
        self._store = store
        self._keys = keys
        self._subject = subject
        self._policy = address_policy(settings)

    async def deliver(self, user_id: str, notification: Notification) -> None:
        """Send to each of the person's browsers at once. ``NoDevice`` when they have none
        (left), ``PushFailed`` when none took it."""
        targets = await self._store.targets(user_id)
        if not targets:
            raise NoDevice(user_id)
        data = json.dumps(notification.payload(), ensure_ascii=False)
        subject = await self._subject()
        outcomes = await asyncio.gather(*(self._send(t, data, subject) for t in targets))
        if "accepted" in outcomes:
            return
        if all(outcome == "gone" for outcome in outcomes):
            raise NoDevice(user_id)
        raise PushFailed(f"no push service took the notification ({len(targets)} devices)")

    async def _send(self, target: PushTarget, data: str, subject: str) -> str:
        """``accepted``, ``gone`` (removed) or ``failed`` (logged)."""
        import aiohttp
        from pywebpush import WebPushException, webpush_async

        from kinbot_core.guarded_resolver import GuardedResolver

        host = URL(target.endpoint).host or "?"
        resolver = GuardedResolver(self._policy)
        connector = aiohttp.TCPConnector(resolver=resolver, force_close=True, use_dns_cache=False)
        timeout = self._settings.push_timeout_seconds
        try:
            check_endpoint(target.endpoint, self._settings)
            url = URL(target.endpoint)
            await self._policy.check_literal(url.host or "", url.port or 0)
            async with aiohttp.ClientSession(connector=connector, trust_env=False) as session:
                async with asyncio.timeout(timeout):
                    await webpush_async(
                        target.subscription_info(),
                        data=data,
                        vapid_private_key=self._keys().signer,
                        vapid_claims={"sub": subject},
                        ttl=self._settings.push_ttl_seconds,
                        timeout=timeout,
                        aiohttp_session=session,
                    )
        except WebPushException as refused:
            status = refused.status_code
            if status in GONE:
                logger.info("push service %s forgot a subscription (%s): removed", host, status)
                await self._store.forget(target.id)
                return "gone"
            logger.warning("push service %s refused a notification with status %s", host, status)
        except (BlockedAddress, NotificationError):
            logger.warning("push service %s is not at an address KinBot may post to", host)
        except (aiohttp.ClientError, OSError) as error:
            reason = resolver.refused or type(error).__name__
            logger.warning("push service %s could not be reached: %s", host, reason)
        except TimeoutError:
            logger.warning("push service %s did not answer within %s s", host, timeout)
        else:
            await self._store.record(target.id, success=True)
            return "accepted"
        await self._store.record(target.id, success=False)
        return "failed"

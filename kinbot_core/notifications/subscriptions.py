"""People's Web Push subscriptions: one per browser (or installed app), its keys sealed under
the master key, checked when it arrives (an endpoint KinBot may post to, keys a browser would
make)."""

from __future__ import annotations

import builtins
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from yarl import URL

from kinbot_core.config import Settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import PushSubscriptionRecord
from kinbot_core.net_guard import AddressPolicy, BlockedAddress, parse_networks
from kinbot_core.notifications.devices import device_of
from kinbot_core.notifications.types import EndpointRefused, KeysInvalid, TooManyDevices
from kinbot_core.notifications.vapid import b64url_decode

ENDPOINT_MAX = 2048
#: Subscriptions one person may keep (their phones, computers, tablets).
PER_USER_MAX = 20

logger = logging.getLogger(__name__)


def sealing_context(subscription_id: str) -> str:
    return f"push_subscription:{subscription_id}"


def endpoint_digest(endpoint: str) -> str:
    """The SHA-256 of an endpoint, hex: how a browser recognises its own subscription in the
    list without the list giving out endpoints."""
    return hashlib.sha256(endpoint.encode()).hexdigest()


@dataclass(frozen=True)
class SubscriptionView:
    """A subscription as its owner sees it: never its endpoint or keys."""

    id: str
    user_id: str
    device: dict[str, str]
    endpoint_sha256: str
    created_at: float
    last_success_at: float | None
    last_failure_at: float | None

    @classmethod
    def of(cls, row: PushSubscriptionRecord) -> SubscriptionView:
        return cls(
            id=row.id,
            user_id=str(row.__data__["user"]),
            device=json.loads(row.device_label or "{}"),
            endpoint_sha256=endpoint_digest(row.endpoint),
            created_at=row.created_at,
            last_success_at=row.last_success_at,
            last_failure_at=row.last_failure_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "device": self.device,
            "endpoint_sha256": self.endpoint_sha256,
            "created_at": self.created_at,
            "last_success_at": self.last_success_at,
            "last_failure_at": self.last_failure_at,
        }


@dataclass(frozen=True)
class PushTarget:
    """What sending needs: the endpoint and the browser's keys (opened)."""

    id: str
    endpoint: str
    p256dh: str
    auth: str

    def subscription_info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def address_policy(settings: Settings) -> AddressPolicy:
    """The addresses push services may be reached at (``push_allowed_networks``)."""
    return AddressPolicy(parse_networks(settings.push_allowed_networks))


def check_endpoint(endpoint: str, settings: Settings) -> str:
    """``endpoint`` if KinBot may post notifications to it, else ``NotificationError``: https
    (http only with ``push_allow_insecure_endpoints``), a host, no credentials, and not an
    address outside the public internet (unless ``push_allowed_networks``). Host names are
    checked again on every send, on the addresses they resolve to."""
    refused = EndpointRefused("This push service address is not accepted.")
    if len(endpoint) > ENDPOINT_MAX:
        raise refused
    try:
        url = URL(endpoint)
    except (ValueError, TypeError):
        raise refused from None
    schemes = ("https", "http") if settings.push_allow_insecure_endpoints else ("https",)
    if url.scheme not in schemes or not url.host or url.user or url.password or url.fragment:
        raise refused
    try:
        address_policy(settings).check(url.host)
    except BlockedAddress:
        raise refused from None
    except ValueError:
        pass  # a host name: checked on the addresses it resolves to, when sending
    return endpoint


def check_keys(p256dh: str, auth: str) -> None:
    """The browser's keys: a P-256 public point and a 16-byte authentication secret."""
    refused = KeysInvalid("The subscription's keys are not those of a browser.")
    try:
        point = b64url_decode(p256dh)
        secret = b64url_decode(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise refused from None
    if len(point) != 65 or len(secret) != 16:
        raise refused


class SubscriptionStore:
    """The subscriptions of every person, in the database."""

    def __init__(self, db: Database, settings: Settings, box: Callable[[], SecretBox]) -> None:
        self._db = db
        self._settings = settings
        self._box = box

    async def add(
        self, user_id: str, endpoint: str, p256dh: str, auth: str, user_agent: str | None
    ) -> SubscriptionView:
        """Keep (or renew) this browser's subscription for ``user_id``. The same endpoint
        subscribed again replaces the old row, whoever it belonged to: a browser is reached
        by one endpoint, and it now belongs to the person who subscribed it last."""
        check_endpoint(endpoint, self._settings)
        check_keys(p256dh, auth)
        subscription_id = uuid.uuid4().hex
        sealed = self._box().seal(
            json.dumps({"p256dh": p256dh, "auth": auth}).encode(), sealing_context(subscription_id)
        )
        device = json.dumps(device_of(user_agent))

        def upsert() -> PushSubscriptionRecord:
            PushSubscriptionRecord.delete().where(
                PushSubscriptionRecord.endpoint == endpoint
            ).execute()
            count = (
                PushSubscriptionRecord.select()
                .where(PushSubscriptionRecord.user == user_id)
                .count()
            )
            if count >= PER_USER_MAX:
                raise TooManyDevices(
                    f"At most {PER_USER_MAX} devices can receive notifications; remove one.",
                    limit=PER_USER_MAX,
                )
            return PushSubscriptionRecord.create(
                id=subscription_id,
                user=user_id,
                endpoint=endpoint,
                keys_sealed=sealed,
                device_label=device,
                created_at=time.time(),
            )

        return SubscriptionView.of(await self._db.write(upsert))

    async def list(self, user_id: str) -> list[SubscriptionView]:
        """A person's subscriptions, oldest first."""

        def select() -> list[PushSubscriptionRecord]:
            return list(
                PushSubscriptionRecord.select()
                .where(PushSubscriptionRecord.user == user_id)
                .order_by(PushSubscriptionRecord.created_at, PushSubscriptionRecord.id)
            )

        return [SubscriptionView.of(row) for row in await self._db.read(select)]

    async def remove(self, user_id: str, subscription_id: str) -> bool:
        """Remove one of ``user_id``'s subscriptions; ``False`` when they have no such one."""

        def delete() -> int:
            return int(
                PushSubscriptionRecord.delete()
                .where(
                    (PushSubscriptionRecord.id == subscription_id)
                    & (PushSubscriptionRecord.user == user_id)
                )
                .execute()
            )

        return await self._db.write(delete) > 0

    async def remove_endpoint(self, user_id: str, endpoint: str) -> bool:
        """Remove ``user_id``'s subscription of this endpoint (the browser unsubscribed)."""

        def delete() -> int:
            return int(
                PushSubscriptionRecord.delete()
                .where(
                    (PushSubscriptionRecord.endpoint == endpoint)
                    & (PushSubscriptionRecord.user == user_id)
                )
                .execute()
            )

        return await self._db.write(delete) > 0

    async def targets(self, user_id: str) -> builtins.list[PushTarget]:
        """Where to send a person's notifications, keys opened."""

        def select() -> builtins.list[tuple[str, str, bytes]]:
            return [
                (row.id, row.endpoint, bytes(row.keys_sealed))
                for row in PushSubscriptionRecord.select().where(
                    PushSubscriptionRecord.user == user_id
                )
            ]

        targets = []
        for subscription_id, endpoint, sealed in await self._db.read(select):
            try:
                keys = json.loads(self._box().open(sealed, sealing_context(subscription_id)))
            except DecryptionError:  # sealed under another master key: kept, not usable
                logger.warning("push subscription %s cannot be opened: skipped", subscription_id)
                continue
            targets.append(PushTarget(subscription_id, endpoint, keys["p256dh"], keys["auth"]))
        return targets

    async def record(self, subscription_id: str, *, success: bool) -> None:
        """Note when a subscription last took a notification, or last failed to."""
        column = "last_success_at" if success else "last_failure_at"

        def update() -> None:
            PushSubscriptionRecord.update(**{column: time.time()}).where(
                PushSubscriptionRecord.id == subscription_id
            ).execute()

        await self._db.write(update)

    async def forget(self, subscription_id: str) -> None:
        """Remove a subscription the push service says is gone (404 or 410)."""

        def delete() -> None:
            PushSubscriptionRecord.delete().where(
                PushSubscriptionRecord.id == subscription_id
            ).execute()

        await self._db.write(delete)

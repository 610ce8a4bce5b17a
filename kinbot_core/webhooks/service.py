"""Inbound webhooks and what their requests become: a message in their Kin's queue.

An administrator creates a webhook for a Kin; its URL carries a random token (256 bits) that
is shown once and kept only as its SHA-256. A request names the token: it is hashed, the
webhook found by its hash and the two hashes compared in constant time. A webhook may also
ask for a signature (``kinbot_core.webhooks.signature``): its signing secret is sealed under
the master key. Each webhook accepts ``webhook_rate_limit`` requests per window.

A request that gets through becomes a message of its Kin's session with ``source
"webhook"`` (queued after people's messages), the webhook's name as sender and
``meta.origin = {"kind": "webhook", "label": <name>}``; its text is screened for secrets as
any message (``KinService.enqueue``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.config import Settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import WebhookRecord
from kinbot_core.kins import meta
from kinbot_core.kins.service import KinService, MessageView

logger = logging.getLogger(__name__)

#: Where a webhook's requests go; the token follows.
HOOK_PATH = "/api/hooks/"
#: The ``meta.origin`` kind of webhook messages (kinbot_core/kins/meta.py).
ORIGIN_KIND = "webhook"
#: A token as issued (``secrets.token_urlsafe(32)``: 43 characters); anything else is unknown.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TOKEN_LENGTH = 43
#: Compared against when no webhook has the token, so that an unknown token costs the same.
_NO_HASH = "0" * 64
#: Fields an administrator may change.
EDITABLE = ("name", "enabled", "max_body_bytes", "signing_secret")


#: What a missing webhook is answered (and one of a Kin its asker may not use).
NO_SUCH_WEBHOOK = "No such webhook."


class WebhookError(Exception):
    """A request about a webhook that cannot be done; the message says why."""

    code = "webhook_invalid"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WebhookNotFound(WebhookError):
    code = "not_found"
    status = 404


class WebhookGone(WebhookError):
    """The webhook was deleted or disabled while its request was being read."""

    code = "webhook_unknown"
    status = 401


@dataclass(frozen=True)
class WebhookView:
    """A webhook as administrators see it: never its token nor its signing secret."""

    id: str
    kin_id: str
    name: str
    signed: bool
    max_body_bytes: int
    enabled: bool
    created_by: str | None
    created_at: float
    updated_at: float
    last_received_at: float | None
    received_count: int

    @classmethod
    def of(cls, row: WebhookRecord) -> WebhookView:
        return cls(
            id=row.id,
            kin_id=row.__data__["kin"],
            name=row.name,
            signed=row.signing_secret_sealed is not None,
            max_body_bytes=row.max_body_bytes,
            enabled=bool(row.enabled),
            created_by=row.__data__.get("created_by"),
            created_at=row.created_at,
            updated_at=row.updated_at,
            last_received_at=row.last_received_at,
            received_count=row.received_count,
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class IssuedToken:
    """A webhook and the token of its URL, given once (at creation and at each rotation)."""

    webhook: WebhookView
    token: str

    @property
    def path(self) -> str:
        """The URL's path on this instance."""
        return HOOK_PATH + self.token


@dataclass(frozen=True)
class InboundWebhook:
    """The enabled webhook a request's token names, with what checking the request needs."""

    id: str
    kin_id: str
    name: str
    max_body_bytes: int
    #: The HMAC key, or ``None`` when the webhook asks for no signature.
    signing_secret: bytes | None


def token_hash(token: str) -> str:
    """What is stored of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def sealing_context(webhook_id: str) -> str:
    """What a webhook's sealed signing secret is bound to."""
    return f"webhook:{webhook_id}"


class WebhookService:
    """The webhooks of the platform and the requests they receive."""

    def __init__(
        self,
        db: Database,
        kins: KinService,
        settings: Settings,
        master_key: Callable[[], bytes],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._kins = kins
        self._settings = settings
        self._master_key = master_key
        self._clock = clock
        self._limiter = SlidingWindowLimiter(
            settings.webhook_rate_limit, settings.webhook_rate_window_seconds
        )

    # -- administration ------------------------------------------------------------------------

    async def list_all(self) -> list[WebhookView]:
        """Every webhook, oldest first."""
        rows = await self._db.read(
            lambda: list(WebhookRecord.select().order_by(WebhookRecord.created_at))
        )
        return [WebhookView.of(row) for row in rows]

    async def get(self, webhook_id: str) -> WebhookView:
        """One webhook, or ``WebhookNotFound``."""
        row = await self._db.read(lambda: WebhookRecord.get_or_none(WebhookRecord.id == webhook_id))
        if row is None:
            raise WebhookNotFound(NO_SUCH_WEBHOOK)
        return WebhookView.of(row)

    async def create(
        self,
        kin_id: str,
        name: str,
        *,
        signing_secret: str | None = None,
        max_body_bytes: int | None = None,
        created_by: str | None = None,
    ) -> IssuedToken:
        """A new webhook for the Kin (``KinNotFound`` if it does not exist) and its token.
        ``max_body_bytes`` defaults to ``webhook_body_max_bytes``."""
        await self._kins.get(kin_id)
        webhook_id = uuid.uuid4().hex
        token = secrets.token_urlsafe(32)
        now = self._clock()
        fields = {
            "id": webhook_id,
            "kin": kin_id,
            "name": _valid_name(name),
            "token_hash": token_hash(token),
            "signing_secret_sealed": self._seal(webhook_id, signing_secret),
            "max_body_bytes": max_body_bytes or self._settings.webhook_body_max_bytes,
            "created_by": created_by,
            "created_at": now,
            "updated_at": now,
        }
        row = await self._db.write(lambda: WebhookRecord.create(**fields))
        return IssuedToken(WebhookView.of(row), token)

    async def update(self, webhook_id: str, changes: dict[str, Any]) -> WebhookView:
        """Change a webhook's name, state, body limit or signing secret (``None``: no
        signature asked any more)."""
        unknown = set(changes) - set(EDITABLE)
        if unknown:
            raise WebhookError(f"Not editable: {', '.join(sorted(unknown))}.")
        values: dict[str, Any] = {}
        if changes.get("name") is not None:
            values["name"] = _valid_name(changes["name"])
        if changes.get("enabled") is not None:
            values["enabled"] = bool(changes["enabled"])
        if changes.get("max_body_bytes") is not None:
            values["max_body_bytes"] = int(changes["max_body_bytes"])
        if "signing_secret" in changes:
            values["signing_secret_sealed"] = self._seal(webhook_id, changes["signing_secret"])
        return await self._change(webhook_id, values)

    async def rotate(self, webhook_id: str) -> IssuedToken:
        """A new token for the webhook: its former URL stops working at once."""
        token = secrets.token_urlsafe(32)
        view = await self._change(webhook_id, {"token_hash": token_hash(token)})
        return IssuedToken(view, token)

    async def delete(self, webhook_id: str) -> None:
        """Remove a webhook (``WebhookNotFound`` if there is none)."""
        deleted = await self._db.write(
            lambda: WebhookRecord.delete().where(WebhookRecord.id == webhook_id).execute()
        )
        if not deleted:
            raise WebhookNotFound(NO_SUCH_WEBHOOK)

    async def _change(self, webhook_id: str, values: dict[str, Any]) -> WebhookView:
        def update() -> WebhookRecord | None:
            WebhookRecord.update(**values, updated_at=self._clock()).where(
                WebhookRecord.id == webhook_id
            ).execute()
            return WebhookRecord.get_or_none(WebhookRecord.id == webhook_id)

        row = await self._db.write(update)
        if row is None:
            raise WebhookNotFound(NO_SUCH_WEBHOOK)
        return WebhookView.of(row)

    def _seal(self, webhook_id: str, secret: str | None) -> bytes | None:
        if secret is None:
            return None
        if secret != secret.strip() or not secret:
            raise WebhookError("A signing secret has no spaces around it.")
        return SecretBox(self._master_key()).seal(secret.encode(), sealing_context(webhook_id))

    # -- requests ------------------------------------------------------------------------------

    async def find(self, token: str) -> InboundWebhook | None:
        """The enabled webhook whose token is ``token``, or ``None`` (unknown, rotated or
        disabled alike)."""
        well_formed = len(token) == _TOKEN_LENGTH and set(token) <= _TOKEN_CHARS
        digest = token_hash(token) if well_formed else _NO_HASH
        row = await self._db.read(
            lambda: WebhookRecord.get_or_none(WebhookRecord.token_hash == digest)
        )
        stored = row.token_hash if row is not None else _NO_HASH
        if not (hmac.compare_digest(stored, digest) and row is not None and row.enabled):
            return None
        secret = None
        if row.signing_secret_sealed is not None:
            box = SecretBox(self._master_key())
            try:
                secret = box.open(bytes(row.signing_secret_sealed), sealing_context(row.id))
            except DecryptionError as error:  # fail closed: no request gets through unchecked
                logger.error("webhook %s refuses every request: %s", row.id, error)
                return None
        return InboundWebhook(
            id=row.id,
            kin_id=row.__data__["kin"],
            name=row.name,
            max_body_bytes=row.max_body_bytes,
            signing_secret=secret,
        )

    def now(self) -> float:
        """The service's clock (Unix seconds): what request timestamps are checked against."""
        return self._clock()

    def retry_after(self, webhook: InboundWebhook) -> float | None:
        """Seconds before the webhook accepts another request, or ``None`` when it does now."""
        return self._limiter.retry_after(webhook.id)

    def admit(self, webhook: InboundWebhook) -> float | None:
        """Count an authenticated request against the webhook's rate limit: ``None`` when it
        is within it, else the seconds to wait (and it is not counted)."""
        wait = self._limiter.retry_after(webhook.id)
        if wait is None:
            self._limiter.hit(webhook.id)
        return wait

    async def deliver(self, webhook: InboundWebhook, text: str) -> MessageView:
        """Queue ``text`` for the webhook's Kin; ``WebhookGone`` if the webhook was deleted or
        disabled meanwhile (checked in the transaction that stores the message)."""
        now = self._clock()

        def still_enabled() -> None:
            touched = (
                WebhookRecord.update(
                    last_received_at=now, received_count=WebhookRecord.received_count + 1
                )
                .where((WebhookRecord.id == webhook.id) & WebhookRecord.enabled)
                .execute()
            )
            if not touched:
                raise WebhookGone("This webhook no longer exists.")

        return await self._kins.enqueue(
            webhook.kin_id,
            text,
            source="webhook",
            sender_id=webhook.id,
            sender_name=webhook.name,
            guard=still_enabled,
            meta=meta.origin(ORIGIN_KIND, webhook.name),
        )


def _valid_name(name: Any) -> str:
    cleaned = " ".join(str(name).split())
    if not cleaned:
        raise WebhookError("A webhook needs a name.")
    return cleaned

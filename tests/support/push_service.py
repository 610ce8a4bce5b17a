"""A Web Push service on 127.0.0.1 (RFC 8030), and a browser's side of a subscription.

``PushService`` accepts push messages as a real push service does: ``POST`` to a
subscription's endpoint, signed with VAPID (RFC 8292: ``Authorization: vapid t=<JWT>,k=<key>``,
an ES256 JWT whose ``aud`` is the service's origin, ``exp`` within 24 hours, a ``sub``
contact), a ``TTL`` header, ``Content-Encoding: aes128gcm`` and a body of at most 4096 bytes.
It answers 201, or 410 for an endpoint it was told is gone, or 404 for an unknown one.
A request breaking the protocol is refused (400, 401, 413) and kept in ``refused`` with why.

``Subscriber`` is what a browser makes when it subscribes: a P-256 ECDH key pair and a 16-byte
authentication secret; it decrypts what the service received (RFC 8291, with ``http_ece``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import http_ece
from aiohttp import web
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

MAX_BODY = 4096
MAX_EXPIRY_SECONDS = 24 * 3600


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class ReceivedPush:
    """A push message the service accepted."""

    token: str
    headers: dict[str, str]
    body: bytes
    #: The VAPID JWT's claims (its signature checked against ``vapid_key``).
    claims: dict[str, Any]
    vapid_key: str
    ttl: int


class Subscriber:
    """A browser's side of one push subscription."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.token = endpoint.rsplit("/", 1)[1]
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives the page."""
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth_secret)},
        }

    def decrypt(self, push: ReceivedPush) -> dict[str, Any]:
        """The notification's JSON, decrypted as the browser does (RFC 8291)."""
        plaintext = http_ece.decrypt(
            push.body,
            private_key=self.private_key,
            auth_secret=self.auth_secret,
            version="aes128gcm",
        )
        decoded: dict[str, Any] = json.loads(plaintext)
        return decoded


class ProtocolError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class PushService:
    """The running service: ``url``, what it received and refused, and what it answers."""

    url: str = ""
    received: list[ReceivedPush] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    #: Tokens whose endpoint answers 410 Gone.
    gone: set[str] = field(default_factory=set)
    #: When set, the only VAPID public key accepted (the instance's).
    vapid_key: str | None = None
    _tokens: set[str] = field(default_factory=set)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def subscriber(self) -> Subscriber:
        """A new subscription on this service, as a browser would make it."""
        token = secrets.token_urlsafe(24)
        self._tokens.add(token)
        return Subscriber(f"{self.url}/push/{token}")

    def for_token(self, token: str) -> list[ReceivedPush]:
        return [push for push in self.received if push.token == token]

    async def wait_for(
        self, predicate: Callable[[list[ReceivedPush]], bool], seconds: float = 20.0
    ) -> list[ReceivedPush]:
        """The received messages once ``predicate`` holds for them."""
        async with asyncio.timeout(seconds):
            while not predicate(self.received):
                self._changed.clear()
                await self._changed.wait()
        return self.received

    async def handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        try:
            push = self._check(request, token, await request.read())
        except ProtocolError as error:
            self.refused.append((error.status, error.reason))
            self._changed.set()
            return web.Response(status=error.status, text=error.reason)
        if token not in self._tokens:
            return web.Response(status=404, text="no such subscription")
        if token in self.gone:
            return web.Response(status=410, text="subscription expired")
        self.received.append(push)
        self._changed.set()
        return web.Response(
            status=201, headers={"Location": f"{self.url}/message/{len(self.received)}"}
        )

    def _check(self, request: web.Request, token: str, body: bytes) -> ReceivedPush:
        if request.headers.get("Content-Encoding") != "aes128gcm":
            raise ProtocolError(400, "Content-Encoding must be aes128gcm")
        ttl = request.headers.get("TTL", "")
        if not ttl.isdigit():
            raise ProtocolError(400, "a TTL header is required")
        if not body:
            raise ProtocolError(400, "empty body")
        if len(body) > MAX_BODY:
            raise ProtocolError(413, "payload too large")
        claims, key = self._check_vapid(request.headers.get("Authorization", ""))
        headers = {name.lower(): value for name, value in request.headers.items()}
        return ReceivedPush(token, headers, body, claims, key, int(ttl))

    def _check_vapid(self, authorization: str) -> tuple[dict[str, Any], str]:
        scheme, _, params = authorization.partition(" ")
        if scheme.lower() != "vapid":
            raise ProtocolError(401, "VAPID authorization required")
        fields = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        token, key = fields.get("t", ""), fields.get("k", "")
        if self.vapid_key is not None and key != self.vapid_key:
            raise ProtocolError(401, "unexpected VAPID key")
        try:
            header_b64, claims_b64, signature_b64 = token.split(".")
            header = json.loads(b64url_decode(header_b64))
            claims = json.loads(b64url_decode(claims_b64))
            signature = b64url_decode(signature_b64)
            public = ec.EllipticCurvePublicKey.from_encoded_point(
                ec.SECP256R1(), b64url_decode(key)
            )
        except (ValueError, json.JSONDecodeError):
            raise ProtocolError(401, "malformed VAPID token") from None
        if header.get("alg") != "ES256" or len(signature) != 64:
            raise ProtocolError(401, "VAPID token must be ES256")
        der = encode_dss_signature(
            int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        )
        try:
            public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise ProtocolError(401, "bad VAPID signature") from None
        now = time.time()
        if claims.get("aud") != self.url:
            raise ProtocolError(401, f"VAPID audience {claims.get('aud')!r} is not {self.url}")
        if not now < float(claims.get("exp", 0)) <= now + MAX_EXPIRY_SECONDS:
            raise ProtocolError(401, "VAPID expiry missing or more than 24 hours ahead")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise ProtocolError(401, "VAPID subject must be a mailto: or https: contact")
        return claims, key


@asynccontextmanager
async def push_service() -> AsyncIterator[PushService]:
    """A push service listening on 127.0.0.1 (in the running event loop) until the block ends."""
    service = PushService()
    app = web.Application()
    app.router.add_post("/push/{token}", service.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    service.url = f"http://127.0.0.1:{port}"
    try:
        yield service
    finally:
        await runner.cleanup()

"""The instance answers only to its own names: requests naming another host are refused.

A page of another site can make its own name point at this machine (DNS rebinding); the
browser then sends that page's requests here with the foreign name in ``Host`` and treats
the answers as the page's own, cookies and same-origin checks included. Refusing every
``Host`` that is not one of the instance's names, before routing, closes that door for the
API, the event stream and the static files alike.

Always answered: IP address literals (a browser only sends one when it connected to that
address itself, so no other site can stand behind it; this covers loopback, the machine's
own addresses and those a router or Docker forwards to it), ``localhost``, this machine's
host name (and its ``.local`` mDNS form), the hosts of ``public_url`` and
``trusted_origins``, and the names of ``allowed_hosts``. Any port. Behind trusted proxies
the guard sees the ``Host`` the proxy forwarded (``X-Forwarded-Host`` when it sends one), as
the rest of the app does.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from hypercorn.typing import (
    ASGIFramework,
    ASGIReceiveCallable,
    ASGISendCallable,
    HTTPScope,
    Scope,
    WebsocketScope,
)
from quart import Quart

from kinbot_core.config import Settings

logger = logging.getLogger(__name__)

HOST_POLICY_KEY = "kinbot.host_policy"
#: The status of a refused host: "the request was directed at a server that is not able to
#: produce a response" for this authority (RFC 9110, 15.5.20).
MISDIRECTED = 421
REFUSAL_CODE = "host_not_allowed"
#: Host names whose refusal was logged; the log says it once per name, not per request.
_LOGGED_LIMIT = 100
_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
_PORT = re.compile(r"\d{0,5}")


def host_name(header: str) -> str | None:
    """The host of a ``Host`` header value, lower-cased, without port or trailing dot;
    ``None`` when it is not a host name or an IP address."""
    value = header.strip().lower()
    if value.startswith("["):
        literal, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and _PORT.fullmatch(rest[1:]))):
            return None
        try:
            return str(ipaddress.IPv6Address(literal))
        except ValueError:
            return None
    name, _, port = value.partition(":")
    if not _PORT.fullmatch(port):
        return None
    name = name.removesuffix(".")
    return name if _NAME.fullmatch(name) else None


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def machine_names() -> set[str]:
    """This machine's host name, and its mDNS form (``<name>.local``) when it has no dot."""
    name = socket.gethostname().strip().lower().rstrip(".")
    if not name or not _NAME.fullmatch(name):
        return set()
    return {name, f"{name}.local"} if "." not in name else {name}


@dataclass(frozen=True)
class HostPolicy:
    """The host names an instance answers to."""

    names: frozenset[str]
    #: Domains whose sub-domains are answered to, each with its leading dot (``.example.org``).
    domains: tuple[str, ...] = ()
    any_host: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> HostPolicy:
        names = {"localhost", *machine_names()}
        for url in (settings.public_url, *settings.trusted_origins):
            host = urlsplit(url).hostname if url else None
            if host:
                names.add(host.lower().rstrip("."))
        return cls.with_entries(names, settings.allowed_hosts)

    @classmethod
    def with_entries(cls, names: Iterable[str], entries: Iterable[str]) -> HostPolicy:
        exact = set(names)
        domains = []
        any_host = False
        for entry in entries:
            if entry == "*":
                any_host = True
            elif entry.startswith("*."):
                domains.append(entry[1:])
            else:
                exact.add(entry)
        return cls(frozenset(exact), tuple(domains), any_host)

    def allows(self, header: str | None) -> bool:
        """Whether a request whose ``Host`` header is ``header`` is answered."""
        if self.any_host:
            return True
        name = host_name(header) if header else None
        if name is None:
            return False
        return (
            is_ip_literal(name)
            or name in self.names
            or any(name.endswith(domain) for domain in self.domains)
        )


def host_policy(app: Quart) -> HostPolicy:
    """The policy installed on ``app``."""
    policy: HostPolicy = app.extensions[HOST_POLICY_KEY]
    return policy


def _header(scope: HTTPScope | WebsocketScope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class HostGuard:
    """ASGI middleware answering 421 to HTTP requests (and refusing WebSocket handshakes)
    whose ``Host`` is not allowed, before the app sees them."""

    def __init__(self, app: ASGIFramework, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy
        self._logged: set[str] = set()

    async def __call__(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] != "http" and scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        header = _header(scope, b"host")
        if self.policy.allows(header):
            await self.app(scope, receive, send)
            return
        self._log_refusal(header)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": REFUSAL_CODE})
            return
        body, content_type = _refusal(scope["path"], header)
        await send(
            {
                "type": "http.response.start",
                "status": MISDIRECTED,
                "headers": [
                    (b"content-type", content_type),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})

    def _log_refusal(self, header: str | None) -> None:
        name = (host_name(header) if header else None) or "(none or malformed)"
        if name in self._logged or len(self._logged) >= _LOGGED_LIMIT:
            return
        self._logged.add(name)
        logger.warning(
            "refused requests for the host name %s: add it to allowed_hosts "
            "(KINBOT_ALLOWED_HOSTS) or set public_url if KinBot should answer to it",
            name,
        )


def _refusal(path: str, header: str | None) -> tuple[bytes, bytes]:
    name = (host_name(header) if header else None) or "(none)"
    message = (
        f"KinBot does not answer to the host name {name}. An administrator can add it to "
        "allowed_hosts (KINBOT_ALLOWED_HOSTS) or set public_url."
    )
    if path == "/api" or path.startswith("/api/"):
        body = {"error": {"code": REFUSAL_CODE, "message": message}}
        return json.dumps(body).encode(), b"application/json"
    return f"{message}\n".encode(), b"text/plain; charset=utf-8"


def install(app: Quart, settings: Settings) -> None:
    """Put the guard in front of ``app`` (inside the trusted-proxy rewriting, if any)."""
    policy = HostPolicy.from_settings(settings)
    app.extensions[HOST_POLICY_KEY] = policy
    app.asgi_app = HostGuard(app.asgi_app, policy)  # type: ignore[method-assign]

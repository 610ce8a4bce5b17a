"""The egress proxy: the only way Kin code (and ``git_clone``) reaches the network.

An HTTP proxy on 127.0.0.1 (an ephemeral port), started on first use and stopped with the
platform. Each Kin gets its own random credentials (``access_for``); a request without them
gets 407. Every target goes through the same private-address guard as ``fetch_page``
(``fetch_allowed_networks`` honoured) on the very address connected to, and only to the
ports of ``egress_allowed_ports``; each Kin holds at most ``egress_max_connections_per_kin``
connections, each closed when idle for ``egress_idle_timeout_seconds`` or past
``egress_max_bytes_per_connection``. Refusals are logged (host and port, never a path or a
credential).

Use: ``access = await platform.egress.access_for(kin_id)``, then give the process
``HTTP_PROXY``/``HTTPS_PROXY`` = ``access.url`` and let it connect to ``access.host``,
``access.port`` only.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import logging
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.config import Settings
from kinbot_core.egress.exchange import Gate, Rules, serve
from kinbot_core.egress.upstream import Refusal
from kinbot_core.net_guard import AddressPolicy, parse_networks

logger = logging.getLogger(__name__)

#: The proxy only ever listens here: Kin code reaches it over loopback.
LISTEN_HOST = "127.0.0.1"
_USER_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")


@dataclass(frozen=True)
class ProxyAccess:
    """How one Kin's processes use the proxy: ``url`` (with the Kin's credentials, for
    ``HTTP_PROXY``/``HTTPS_PROXY`` or git's ``http.proxy``; a secret, kept out of ``repr``),
    and the ``host`` and ``port`` to allow connections to."""

    url: str = field(repr=False)
    host: str
    port: int


class EgressProxy:
    """One platform's egress proxy (see the module docstring). Built cheaply; it listens
    from the first ``access_for`` until ``stop``."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._tokens: dict[str, str] = {}
        self._active: dict[str, int] = {}
        self._connections: set[asyncio.Task[Any]] = set()
        self._server: asyncio.Server | None = None
        self._lock = asyncio.Lock()
        self._stopped = False
        self._gate: Gate | None = None

    @property
    def port(self) -> int | None:
        """The port listened on, ``None`` before the first ``access_for``."""
        if self._server is None:
            return None
        return int(self._server.sockets[0].getsockname()[1])

    async def access_for(self, kin_id: str) -> ProxyAccess:
        """The proxy URL and credentials of ``kin_id`` (the same until ``revoke``), starting
        the proxy if it is not running. ``ValueError`` for a Kin id that is not a URL user
        name (letters, digits, ``-`` and ``_``) or if ``fetch_allowed_networks`` is
        misconfigured, ``RuntimeError`` once stopped."""
        if not _USER_NAME.fullmatch(kin_id):
            raise ValueError(f"{kin_id!r} is not a Kin id")
        port = await self._ensure_listening()
        token = self._tokens.get(kin_id)
        if token is None:
            token = self._tokens[kin_id] = secrets.token_urlsafe(32)
        return ProxyAccess(f"http://{kin_id}:{token}@{LISTEN_HOST}:{port}", LISTEN_HOST, port)

    def revoke(self, kin_id: str) -> None:
        """Forget ``kin_id``'s credentials: its next requests get 407, and ``access_for``
        makes new ones. Connections already open finish within their bounds."""
        self._tokens.pop(kin_id, None)

    async def stop(self) -> None:
        """Stop listening and close every connection. The proxy does not start again."""
        self._stopped = True
        async with self._lock:
            server, self._server = self._server, None
            if server is not None:
                server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            if server is not None:
                await server.wait_closed()
            self._tokens.clear()

    async def _ensure_listening(self) -> int:
        async with self._lock:
            if self._stopped:
                raise RuntimeError("the egress proxy has stopped")
            if self._server is None:
                self._gate = Gate(self._rules(), self._authenticate, self._slot)
                self._server = await asyncio.start_server(self._serve, LISTEN_HOST, 0)
                logger.info("egress proxy listening on %s:%s", LISTEN_HOST, self.port)
            return self.port or 0

    def _rules(self) -> Rules:
        settings = self._settings
        return Rules(
            policy=AddressPolicy(parse_networks(settings.fetch_allowed_networks)),
            ports=frozenset(settings.egress_allowed_ports),
            connect_timeout=settings.egress_connect_timeout_seconds,
            idle_timeout=settings.egress_idle_timeout_seconds,
            max_bytes=settings.egress_max_bytes_per_connection,
        )

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None and self._gate is not None
        self._connections.add(task)
        try:
            await serve(reader, writer, self._gate)
        except asyncio.CancelledError:
            # ``stop`` ends connections so. Ending quietly: Python 3.11's stream server
            # logs a cancelled connection task as an error.
            pass
        finally:
            self._connections.discard(task)
            writer.close()

    def _authenticate(self, header: bytes | None) -> str | None:
        """The Kin whose credentials ``header`` (a ``Proxy-Authorization`` value) holds."""
        kin_id, token = _basic_credentials(header)
        expected = self._tokens.get(kin_id)
        # Compared even for an unknown Kin, so the time taken says nothing either way.
        matches = hmac.compare_digest(token.encode(), (expected or "-" * 43).encode())
        return kin_id if expected is not None and matches else None

    @asynccontextmanager
    async def _slot(self, kin_id: str) -> AsyncIterator[None]:
        limit = self._settings.egress_max_connections_per_kin
        if self._active.get(kin_id, 0) >= limit:
            raise Refusal(429, f"Too many connections: a Kin may hold {limit} at once.")
        self._active[kin_id] = self._active.get(kin_id, 0) + 1
        try:
            yield
        finally:
            self._active[kin_id] -= 1
            if not self._active[kin_id]:
                del self._active[kin_id]


def _basic_credentials(header: bytes | None) -> tuple[str, str]:
    """The user name and password of a ``Basic`` header value (empty ones when absent or
    malformed)."""
    if header is None:
        return "", ""
    scheme, _, encoded = header.strip().partition(b" ")
    if scheme.lower() != b"basic":
        return "", ""
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return "", ""
    user, _, password = decoded.partition(":")
    return user, password

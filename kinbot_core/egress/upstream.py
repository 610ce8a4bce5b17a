"""Where a proxied request goes, and the guarded connection to it.

The proxy resolves the target's host itself, refuses it when any address it resolves to is
outside the public internet (``kinbot_core.net_guard``, exactly as ``fetch_page`` does, with
the administrator's ``fetch_allowed_networks``), and connects to the checked address itself:
there is no second DNS lookup an attacker could answer differently (no DNS rebinding).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from kinbot_core.net_guard import AddressPolicy, BlockedAddress, SocketAddress, resolve_checked


class Refusal(Exception):
    """A request the proxy does not carry out: the HTTP ``status`` to answer and why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Target:
    """A host (a name, or an address literal without brackets) and a port."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Upstream:
    """An open connection to a target, and the address it was made to."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    address: str


def connect_target(authority: bytes) -> Target:
    """The target of ``CONNECT host:port`` (``[v6]:port`` for IPv6)."""
    try:
        parts = urlsplit("//" + authority.decode("ascii"))
        port = parts.port
    except (UnicodeDecodeError, ValueError):
        raise Refusal(400, "CONNECT needs a host:port target.") from None
    if not parts.hostname or port is None or parts.username is not None or parts.path:
        raise Refusal(400, "CONNECT needs a host:port target.")
    return Target(parts.hostname, port)


@dataclass(frozen=True)
class ForwardTarget:
    """A plain HTTP request's target: where to connect, the origin-form path to ask for and
    the ``Host`` header to send."""

    target: Target
    path: bytes
    host_header: bytes


def absolute_target(url: bytes) -> ForwardTarget:
    """The target of a plain HTTP request in absolute form (``GET http://host/path``)."""
    try:
        parts = urlsplit(url.decode("ascii"))
        port = parts.port
    except (UnicodeDecodeError, ValueError):
        raise Refusal(400, "The request target is not a valid URL.") from None
    if parts.scheme == "https":
        raise Refusal(400, "Send https:// requests through a CONNECT tunnel.")
    if parts.scheme != "http" or not parts.hostname:
        raise Refusal(
            400, "This is a proxy: send absolute http:// URLs, or CONNECT host:port for https."
        )
    if parts.username is not None:
        raise Refusal(400, "URLs with credentials are not forwarded.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    authority = parts.netloc.encode("ascii")
    return ForwardTarget(Target(parts.hostname, port or 80), path.encode("ascii"), authority)


async def open_guarded(
    target: Target, policy: AddressPolicy, ports: Collection[int], within: float
) -> Upstream:
    """Resolve ``target``, check every address against ``policy`` and its port against
    ``ports``, and connect to a checked address. ``Refusal`` (403 blocked, 502 unreachable,
    504 too slow) otherwise."""
    if target.port not in ports:
        allowed = ", ".join(str(port) for port in sorted(ports))
        raise Refusal(403, f"Refused: port {target.port} is not allowed (only {allowed}).")
    try:
        async with asyncio.timeout(within):
            addresses = await _checked_addresses(target, policy)
            return await _connect(target, addresses)
    except TimeoutError:
        raise Refusal(504, f"{target} did not answer within {within:g} seconds.") from None


async def _checked_addresses(target: Target, policy: AddressPolicy) -> list[SocketAddress]:
    try:
        addresses = await resolve_checked(policy, target.host, target.port)
    except BlockedAddress as blocked:
        raise Refusal(403, str(blocked)) from None
    except OSError:
        addresses = []
    if not addresses:
        raise Refusal(502, f"{target.host} could not be resolved.")
    return addresses


async def _connect(target: Target, addresses: list[SocketAddress]) -> Upstream:
    loop = asyncio.get_running_loop()
    for family, sockaddr in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await loop.sock_connect(sock, sockaddr)
        except OSError:
            sock.close()
            continue
        except BaseException:
            sock.close()
            raise
        reader, writer = await asyncio.open_connection(sock=sock)
        return Upstream(reader, writer, str(sockaddr[0]))
    raise Refusal(502, f"Could not connect to {target}.")

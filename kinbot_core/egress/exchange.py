"""One client connection to the egress proxy: HTTP/1.1 parsed with h11.

A client sends ``CONNECT host:port`` (an HTTPS tunnel, or any protocol over an allowed port)
or a plain HTTP request in absolute form (``GET http://host/path``), with its Kin's
credentials in ``Proxy-Authorization``. Without valid credentials it gets 407 (on the same
connection, so a client that first asks without credentials can retry); a refused target
gets 403, an unreachable one 502 or 504, a malformed request 400 or 431. A plain HTTP
request is forwarded alone (``Connection: close`` both ways), hop-by-hop headers dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import h11

from kinbot_core.egress.relay import ConnectionLimit, Traffic, tunnel
from kinbot_core.egress.upstream import (
    Refusal,
    Target,
    Upstream,
    absolute_target,
    connect_target,
    open_guarded,
)
from kinbot_core.net_guard import AddressPolicy

logger = logging.getLogger(__name__)

#: Largest request or response head (request line or status line, and headers).
MAX_HEAD_BYTES = 16 * 1024
#: Time a client has to send a complete request head.
HEAD_TIMEOUT_SECONDS = 15.0
#: Requests one connection may send before one is authenticated (a client asks without
#: credentials first when it waits to be told the scheme).
MAX_UNAUTHENTICATED_REQUESTS = 3
REALM = b'Basic realm="kinbot-egress"'
#: Headers that concern one connection only, never forwarded (RFC 9110, 7.6.1).
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"upgrade",
        b"host",
        b"expect",
    }
)
#: The states of our side of the connection in which a response may still be sent.
_MAY_ANSWER = (h11.IDLE, h11.SEND_RESPONSE)
_BOTH_DONE = {h11.CLIENT: h11.DONE, h11.SERVER: h11.DONE}
#: The largest body of a request refused for its credentials that is read past, so that the
#: client can send the request again on the same connection (a larger one closes it).
MAX_SKIPPED_BODY_BYTES = 64 * 1024
#: Headers h11 frames a message by: kept, so it frames the forwarded one the same way.
FRAMING = frozenset({b"content-length", b"transfer-encoding"})


@dataclass(frozen=True)
class Rules:
    """What the proxy allows: reachable addresses and ports, and each connection's bounds."""

    policy: AddressPolicy
    ports: frozenset[int]
    connect_timeout: float
    idle_timeout: float
    max_bytes: int


@dataclass(frozen=True)
class Gate:
    """What a connection asks of its proxy: the rules, who the credentials belong to
    (``authenticate(header value or None) -> kin id or None``), and a connection slot of
    that Kin (``slot(kin id)``, raising ``Refusal`` 429 when it has none left)."""

    rules: Rules
    authenticate: Callable[[bytes | None], str | None]
    slot: Callable[[str], AbstractAsyncContextManager[None]]


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gate: Gate) -> None:
    """Answer one client connection until it is done; the caller closes ``writer``."""
    connection = _Connection(reader, writer, gate)
    try:
        await connection.run()
    except (ConnectionLimit, OSError, h11.ProtocolError) as error:
        logger.info("egress connection for Kin %s ended: %s", connection.kin_id, error)


class _Connection:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gate: Gate
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.gate = gate
        self.rules = gate.rules
        self.client = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.traffic = Traffic(self.rules.max_bytes, self.rules.idle_timeout)
        self.kin_id: str | None = None

    async def run(self) -> None:
        request = await self._authenticated_request()
        if request is None or self.kin_id is None:
            return
        try:
            async with self.gate.slot(self.kin_id):
                if request.method == b"CONNECT":
                    await self._tunnel(request)
                else:
                    await self._forward(request)
        except Refusal as refusal:
            await self._refuse(request, refusal)

    # -- the request head and its credentials ----------------------------------------------

    async def _authenticated_request(self) -> h11.Request | None:
        for _ in range(MAX_UNAUTHENTICATED_REQUESTS):
            try:
                request = await self._next_request()
            except h11.RemoteProtocolError as error:
                status = error.error_status_hint
                logger.warning("egress proxy refused a malformed request (%s)", status)
                if self.client.our_state in _MAY_ANSWER:
                    await self._answer(status, f"Malformed request: {error}")
                return None
            if request is None:
                return None
            self.kin_id = self.gate.authenticate(_header(request, b"proxy-authorization"))
            if self.kin_id is not None:
                return request
            reusable = await self._skip_body()
            await self._refuse(request, Refusal(407, "Proxy authentication required."), reusable)
            if not reusable or self.client.states != _BOTH_DONE:
                return None
            self.client.start_next_cycle()
        return None

    async def _next_request(self) -> h11.Request | None:
        async with asyncio.timeout(HEAD_TIMEOUT_SECONDS):
            while True:
                event = await self._next_client_event()
                if isinstance(event, h11.Request):
                    if _head_size(event) > MAX_HEAD_BYTES:  # h11 bounds only what is pending
                        raise h11.RemoteProtocolError("Request head too large", 431)
                    return event
                if isinstance(event, h11.ConnectionClosed):
                    return None

    async def _next_client_event(self) -> Any:
        while True:
            event = self.client.next_event()
            if event is not h11.NEED_DATA:
                return event
            self.client.receive_data(await self.traffic.read(self.reader))

    async def _skip_body(self) -> bool:
        """Read past a refused request's body, if it is small: whether the connection can
        then take the client's next request."""
        skipped = 0
        async with asyncio.timeout(HEAD_TIMEOUT_SECONDS):
            while skipped <= MAX_SKIPPED_BODY_BYTES:
                event = await self._next_client_event()
                if isinstance(event, h11.EndOfMessage):
                    return True
                if not isinstance(event, h11.Data):
                    return False
                skipped += len(event.data)
        return False

    # -- answering -----------------------------------------------------------------------------

    async def _refuse(
        self, request: h11.Request, refusal: Refusal, keep_alive: bool = False
    ) -> None:
        target = _logged_target(request)
        if refusal.status == 407:
            logger.warning("egress proxy: missing or wrong credentials for %s", target)
        else:
            logger.warning(
                "egress proxy refused %s for Kin %s (%s): %s",
                target,
                self.kin_id,
                refusal.status,
                refusal.reason,
            )
        if self.client.our_state in _MAY_ANSWER:
            await self._answer(refusal.status, refusal.reason, keep_alive)

    async def _answer(self, status: int, text: str, keep_alive: bool = False) -> None:
        body = (text + "\n").encode()
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        headers.append((b"content-length", str(len(body)).encode()))
        if status == 407:
            headers.append((b"proxy-authenticate", REALM))
        if not keep_alive:
            headers.append((b"connection", b"close"))
        reason = HTTPStatus(status).phrase.encode()
        await self._send(h11.Response(status_code=status, headers=headers, reason=reason))
        await self._send(h11.Data(data=body))
        await self._send(h11.EndOfMessage())

    async def _send(self, event: Any) -> None:
        data = self.client.send(event)
        if data:
            await self.traffic.write(self.writer, data)

    # -- CONNECT -------------------------------------------------------------------------------

    async def _tunnel(self, request: h11.Request) -> None:
        target = connect_target(request.target)
        while not isinstance(event := await self._next_client_event(), h11.EndOfMessage):
            if isinstance(event, h11.ConnectionClosed):
                return
        upstream = await self._open(target)
        try:
            await self._send(h11.Response(status_code=200, headers=[], reason=b"Connected"))
            early, _closed = self.client.trailing_data
            if early:
                self.traffic.count(len(early))
                await self.traffic.write(upstream.writer, early)
            await tunnel(
                (self.reader, self.writer), (upstream.reader, upstream.writer), self.traffic
            )
        finally:
            upstream.writer.close()

    async def _open(self, target: Target) -> Upstream:
        upstream = await open_guarded(
            target, self.rules.policy, self.rules.ports, self.rules.connect_timeout
        )
        logger.debug(
            "egress proxy: Kin %s connected to %s (%s)", self.kin_id, target, upstream.address
        )
        return upstream

    # -- plain HTTP ----------------------------------------------------------------------------

    async def _forward(self, request: h11.Request) -> None:
        where = absolute_target(request.target)
        upstream = await self._open(where.target)
        try:
            origin = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
            headers = [(b"host", where.host_header), *_end_to_end(request.headers)]
            headers.append((b"connection", b"close"))
            outgoing = h11.Request(method=request.method, target=where.path, headers=headers)
            await self.traffic.write(upstream.writer, origin.send(outgoing) or b"")
            if self.client.they_are_waiting_for_100_continue:
                await self._send(h11.InformationalResponse(status_code=100, headers=[]))
            await self._relay_request_body(origin, upstream)
            try:
                await self._relay_response(origin, upstream)
            except (h11.RemoteProtocolError, ConnectionLimit, OSError) as error:
                if self.client.our_state is not h11.SEND_RESPONSE:
                    raise  # part of the response has gone: only closing is left
                raise Refusal(502, f"{where.target} gave no valid response ({error}).") from None
        finally:
            upstream.writer.close()

    async def _relay_request_body(self, origin: h11.Connection, upstream: Upstream) -> None:
        while True:
            event = await self._next_client_event()
            if isinstance(event, h11.Data):
                await self.traffic.write(upstream.writer, origin.send(event) or b"")
            elif isinstance(event, h11.EndOfMessage):
                await self.traffic.write(upstream.writer, origin.send(h11.EndOfMessage()) or b"")
                return
            else:  # the client went away mid-body
                raise ConnectionLimit("the client closed the connection during its request")

    async def _relay_response(self, origin: h11.Connection, upstream: Upstream) -> None:
        while True:
            event = origin.next_event()
            if event is h11.NEED_DATA:
                origin.receive_data(await self.traffic.read(upstream.reader))
            elif isinstance(event, h11.Response):
                headers = [*_end_to_end(event.headers), (b"connection", b"close")]
                await self._send(
                    h11.Response(
                        status_code=event.status_code, headers=headers, reason=event.reason
                    )
                )
            elif isinstance(event, h11.Data):
                await self._send(event)
            elif isinstance(event, h11.EndOfMessage):
                await self._send(h11.EndOfMessage())
                return
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionLimit(f"{upstream.address} closed the connection early")


def _head_size(request: h11.Request) -> int:
    return len(request.target) + sum(len(key) + len(value) + 4 for key, value in request.headers)


def _header(request: h11.Request, name: bytes) -> bytes | None:
    """The value of a header sent once, or ``None`` (absent or repeated)."""
    values = [value for key, value in request.headers if key == name]
    return values[0] if len(values) == 1 else None


def _end_to_end(headers: Any) -> list[tuple[bytes, bytes]]:
    """The headers to forward: hop-by-hop ones and those ``Connection`` names left out."""
    named = {
        token.strip().lower()
        for key, value in headers
        if key == b"connection"
        for token in value.split(b",")
    }
    return [
        (key, value)
        for key, value in headers
        if key in FRAMING or (key not in HOP_BY_HOP and key not in named)
    ]


def _logged_target(request: h11.Request) -> str:
    """The host and port a request is for, never its path (which may carry a secret)."""
    try:
        if request.method == b"CONNECT":
            return str(connect_target(request.target))
        return str(absolute_target(request.target).target)
    except Refusal:
        return "an invalid target"

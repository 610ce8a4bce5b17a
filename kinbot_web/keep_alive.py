"""Kept-alive connections survive a request refused before its body was read.

Over HTTP/1.1 a connection carries its requests one after the other, so the next request
starts where the previous body ends. When the app answers before the body has arrived (413
for a body too large, 421 from the host guard, 401 or 403 before the view reads anything),
hypercorn finds the body unread once the response is complete and closes the connection: a
client that has already sent, or is sending, its next request on it gets a reset instead of
an answer. This middleware holds back the end of such a response until the rest of the body
has arrived, and throws it away (the app has it, or has refused it), so the connection goes
on. A body too large to be worth waiting for gets ``Connection: close`` instead, which tells
the client not to reuse the connection.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypercorn.typing import (
    ASGIFramework,
    ASGIReceiveCallable,
    ASGIReceiveEvent,
    ASGISendCallable,
    ASGISendEvent,
    HTTPScope,
    Scope,
)
from quart import Quart

#: The most of an unread body read and thrown away to keep a connection: more than any body
#: a route accepts (an upload), so a refused upload still leaves the connection usable.
DRAIN_MAX_BYTES = 64 * 1024 * 1024
#: A client sending nothing for this long while its body is drained loses the connection.
DRAIN_IDLE_SECONDS = 10.0


class _RequestBody:
    """What the app, or the drain, has received of one request's body."""

    def __init__(self, scope: HTTPScope, receive: ASGIReceiveCallable) -> None:
        self._receive = receive
        self.expected = _declared_length(scope)
        self.received = 0
        self.complete = asyncio.Event()
        if self.expected == 0:
            self.complete.set()

    async def receive(self) -> ASGIReceiveEvent:
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if not message.get("more_body", False):
                self.complete.set()
        elif message["type"] == "http.disconnect":
            self.complete.set()
        return message

    def too_large_to_drain(self) -> bool:
        if self.complete.is_set() or self.expected is None:
            return False
        return self.expected - self.received > DRAIN_MAX_BYTES

    async def drain(self) -> None:
        """Read the rest of the body, unless it grows past the bound or the client stalls.

        The app may still be reading it too (Quart reads the body in a task of its own):
        whichever of the two receives the last part, both see the body complete.
        """
        while not self.complete.is_set() and self.received <= DRAIN_MAX_BYTES:
            reading = asyncio.ensure_future(self.receive())
            ended = asyncio.ensure_future(self.complete.wait())
            done, _ = await asyncio.wait(
                {reading, ended}, timeout=DRAIN_IDLE_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            for task in (reading, ended):
                task.cancel()
            await asyncio.gather(reading, ended, return_exceptions=True)
            if not done:
                return


def _declared_length(scope: HTTPScope) -> int | None:
    """The body length the request declares: 0 without a body, ``None`` when chunked."""
    length: int | None = 0
    for name, value in scope["headers"]:
        key = bytes(name).lower()
        if key == b"transfer-encoding":
            return None
        if key == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return None
    return length


class DrainUnreadBody:
    """ASGI middleware: over HTTP/1.x, a response ends only once its request's body has been
    read (or ``Connection: close`` says the connection will not be reused)."""

    def __init__(self, app: ASGIFramework) -> None:
        self.app = app

    async def __call__(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] != "http" or scope["http_version"] not in ("1.0", "1.1"):
            await self.app(scope, receive, send)
            return
        body = _RequestBody(scope, receive)

        async def send_after_body(message: ASGISendEvent) -> None:
            if message["type"] == "http.response.start" and body.too_large_to_drain():
                headers: list[Any] = list(message.get("headers", ()))
                headers.append((b"connection", b"close"))
                message = {**message, "headers": headers}
            elif (
                message["type"] == "http.response.body"
                and not message.get("more_body", False)
                and not body.complete.is_set()
                and not body.too_large_to_drain()
            ):
                if message.get("body"):
                    await send(
                        {"type": "http.response.body", "body": message["body"], "more_body": True}
                    )
                await body.drain()
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(scope, body.receive, send_after_body)


def install(app: Quart) -> None:
    """Put the middleware in front of ``app``'s current ASGI callable."""
    app.asgi_app = DrainUnreadBody(app.asgi_app)  # type: ignore[method-assign]

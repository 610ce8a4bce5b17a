"""One HTTP/1.1 connection driven by hand (test support): what a browser does with a
kept-alive connection, with control over when each part of a request is sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

import h11


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes


class RawConnection:
    """A client connection: requests are sent in parts, responses read with h11."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.CLIENT)

    async def send_head(
        self, method: str, path: str, host: str, headers: dict[str, str] | None = None
    ) -> None:
        """The request line and headers (add ``Content-Length`` for a body to come)."""
        fields = [("Host", host), *(headers or {}).items()]
        self.writer.write(self.h11.send(h11.Request(method=method, target=path, headers=fields)))
        await self.writer.drain()

    async def send_data(self, data: bytes) -> None:
        """A part of the body (more to come: a chunk, with ``Transfer-Encoding: chunked``)."""
        self.writer.write(self.h11.send(h11.Data(data=data)))
        await self.writer.drain()

    async def end_body(self) -> None:
        """The end of a body sent in parts."""
        self.writer.write(self.h11.send(h11.EndOfMessage()))
        await self.writer.drain()

    async def send_body(self, body: bytes) -> None:
        data = self.h11.send(h11.Data(data=body)) + self.h11.send(h11.EndOfMessage())
        self.writer.write(data)
        await self.writer.drain()

    async def request(
        self,
        method: str,
        path: str,
        host: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> RawResponse:
        """A whole request, then its response."""
        await self.send_head(
            method, path, host, {**(headers or {}), "Content-Length": str(len(body))}
        )
        await self.send_body(body)
        return await self.response()

    async def response(self, seconds: float = 20.0) -> RawResponse:
        """The next response; raises ``ConnectionError`` if the server closed the connection."""
        status = 0
        headers: dict[str, str] = {}
        body = bytearray()
        async with asyncio.timeout(seconds):
            while True:
                event = self.h11.next_event()
                if event is h11.NEED_DATA:
                    data = await self.reader.read(65536)
                    self.h11.receive_data(data)
                    if not data and self.h11.their_state is not h11.DONE:
                        raise ConnectionError("the server closed the connection")
                    continue
                if isinstance(event, h11.Response):
                    status = event.status_code
                    headers = {k.decode().lower(): v.decode() for k, v in event.headers}
                elif isinstance(event, h11.Data):
                    body.extend(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    return RawResponse(status, headers, bytes(body))
                elif isinstance(event, h11.ConnectionClosed):
                    raise ConnectionError("the server closed the connection")

    def next_cycle(self) -> None:
        """Both sides are done with a request: the connection carries the next one."""
        self.h11.start_next_cycle()


@asynccontextmanager
async def raw_connection(url: str) -> AsyncIterator[RawConnection]:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        yield RawConnection(reader, writer)
    finally:
        writer.close()
        await writer.wait_closed()

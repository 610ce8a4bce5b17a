"""Moving bytes between a proxy client and its target, within the connection's bounds.

A connection is closed once it has been idle (no bytes either way) for the idle timeout, or
once it has carried its byte allowance (both directions counted).
"""

from __future__ import annotations

import asyncio
import time

#: Bytes read from a socket at a time.
CHUNK = 64 * 1024


class ConnectionLimit(Exception):
    """A connection went past one of its bounds (idle too long, too many bytes)."""


class Traffic:
    """The bytes one proxied connection carried, and when it last carried any."""

    def __init__(self, max_bytes: int, idle_timeout: float) -> None:
        self.max_bytes = max_bytes
        self.idle_timeout = idle_timeout
        self.total = 0
        self._last = time.monotonic()

    def count(self, size: int) -> None:
        """Record ``size`` more bytes; ``ConnectionLimit`` past the allowance."""
        self.total += size
        self._last = time.monotonic()
        if self.total > self.max_bytes:
            raise ConnectionLimit(f"carried more than {self.max_bytes} bytes")

    def _idle_left(self) -> float:
        left = self.idle_timeout - (time.monotonic() - self._last)
        if left <= 0:
            raise ConnectionLimit(f"idle for {self.idle_timeout:g} seconds")
        return left

    async def read(self, reader: asyncio.StreamReader) -> bytes:
        """The next bytes of ``reader`` (``b""`` at its end), counted. Waiting on one side
        is not idleness while the other side still moves."""
        while True:
            try:
                async with asyncio.timeout(self._idle_left()):
                    data = await reader.read(CHUNK)
            except TimeoutError:
                continue
            self.count(len(data))
            return data

    async def write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        """Write ``data`` and wait until the peer takes it (within the idle timeout)."""
        writer.write(data)
        while True:
            try:
                async with asyncio.timeout(self._idle_left()):
                    await writer.drain()
                return
            except TimeoutError:
                continue


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, traffic: Traffic) -> None:
    while data := await traffic.read(source):
        await traffic.write(sink, data)


async def tunnel(
    client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    traffic: Traffic,
) -> None:
    """Relay both ways until the target has finished sending, or a bound or an error ends it.

    The client's end of sending is passed on to the target (which may still answer); the
    target's ends the tunnel, and the caller then closes both connections. Raises
    ``ConnectionLimit`` or ``OSError``.
    """
    sending = asyncio.create_task(_send_all(client[0], upstream[1], traffic))
    receiving = asyncio.create_task(_pump(upstream[0], client[1], traffic))
    pending = {sending, receiving}
    try:
        while not receiving.done():
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                error = task.exception()
                if error is not None:
                    raise error
    finally:
        for task in (sending, receiving):
            task.cancel()
        await asyncio.gather(sending, receiving, return_exceptions=True)


async def _send_all(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, traffic: Traffic
) -> None:
    await _pump(source, sink, traffic)
    if sink.can_write_eof() and not sink.is_closing():
        sink.write_eof()

"""Reading KinBot's Server-Sent Events stream over real HTTP (test support)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class SseEvent:
    id: int | None
    type: str
    data: dict[str, Any]


@dataclass
class SseReader:
    """Collects the events of one open stream in the background."""

    events: list[SseEvent] = field(default_factory=list)
    closed: bool = False
    #: Called with each event as it arrives (for callers that index events themselves).
    on_event: Callable[[SseEvent], object] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def _add(self, event: SseEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        self._changed.set()

    async def wait_for(
        self, predicate: Callable[[SseEvent], bool], seconds: float = 60.0
    ) -> SseEvent:
        """The first event (already received or to come) matching ``predicate``."""
        async with asyncio.timeout(seconds):
            while True:
                for event in self.events:
                    if predicate(event):
                        return event
                if self.closed:
                    raise AssertionError("the stream closed first")
                self._changed.clear()
                await self._changed.wait()

    async def wait_closed(self, seconds: float = 20.0) -> None:
        async with asyncio.timeout(seconds):
            while not self.closed:
                self._changed.clear()
                await self._changed.wait()

    def of_type(self, kind: str) -> list[SseEvent]:
        return [e for e in self.events if e.type == kind]


@contextlib.asynccontextmanager
async def sse_stream(
    client: httpx.AsyncClient, *, last_event_id: int | None = None
) -> AsyncIterator[SseReader]:
    """Open ``/api/events`` with ``client``'s cookies and read it until the block ends."""
    reader = SseReader()
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    opened = asyncio.Event()

    async def read() -> None:
        try:
            async with client.stream(
                "GET", "/api/events", headers=headers, timeout=None
            ) as response:
                assert response.status_code == 200, await response.aread()
                opened.set()
                block: dict[str, str] = {}
                async for line in response.aiter_lines():
                    if line == "":
                        if "data" in block:
                            reader._add(
                                SseEvent(
                                    int(block["id"]) if "id" in block else None,
                                    block.get("event", "message"),
                                    json.loads(block["data"]),
                                )
                            )
                        block = {}
                    elif not line.startswith(":"):
                        name, _, value = line.partition(":")
                        block[name] = value.removeprefix(" ")
        finally:
            opened.set()
            reader.closed = True
            reader._changed.set()

    task = asyncio.create_task(read())
    await opened.wait()
    await asyncio.sleep(0.05)  # let the server register the subscription
    try:
        yield reader
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await task

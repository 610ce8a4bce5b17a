"""Serving a real KinBot app over HTTP on 127.0.0.1 inside the test's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from hypercorn.asyncio import serve as hypercorn_serve
from quart import Quart

from kinbot_core.platform import Platform
from kinbot_web import create_app
from kinbot_web.server import bind_socket, close_streams_on, hypercorn_config

#: How long a test's HTTP client waits for an answer: only a guard against a hung server,
#: so generous (adding the local embedding model loads it, slowly on a busy machine).
CLIENT_TIMEOUT = 120.0


@dataclass
class RunningServer:
    """A server listening on loopback, the platform behind it and an HTTP client for it."""

    url: str
    platform: Platform
    app: Quart
    client: httpx.AsyncClient

    def new_client(self, **kwargs: Any) -> httpx.AsyncClient:
        """Another browser: a client with its own cookie jar (close it, or use ``async with``)."""
        return httpx.AsyncClient(base_url=self.url, timeout=CLIENT_TIMEOUT, **kwargs)


@asynccontextmanager
async def running_server(
    platform: Platform, *, configure: Callable[[Quart], None] | None = None
) -> AsyncIterator[RunningServer]:
    """Serve ``platform`` with hypercorn on a free port until the block ends.

    ``configure`` may add test routes to the app before it starts serving.
    """
    app = create_app(platform)
    if configure is not None:
        configure(app)
    bound = bind_socket("127.0.0.1", 0)
    stop = asyncio.Event()
    # Stopped as ``kinbot serve`` stops: the event streams end first, so that a browser
    # still on a page does not hold the shutdown for its grace period.
    task = asyncio.create_task(
        hypercorn_serve(
            app,
            hypercorn_config(bound, platform.settings),
            shutdown_trigger=close_streams_on(stop, app),
        )
    )
    try:
        async with httpx.AsyncClient(base_url=bound.url, timeout=CLIENT_TIMEOUT) as client:
            await _wait_until_up(client, task)
            yield RunningServer(bound.url, platform, app, client)
    finally:
        stop.set()
        await task


async def _wait_until_up(client: httpx.AsyncClient, task: asyncio.Task[None]) -> None:
    for _ in range(200):
        if task.done():
            task.result()
            raise RuntimeError("the server stopped before it answered")
        try:
            await client.get("/api/health")
            return
        except httpx.TransportError:
            await asyncio.sleep(0.02)
    raise RuntimeError("the server did not answer on /api/health")

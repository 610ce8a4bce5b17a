"""Waiting for a state the server reaches on its own, asked again until it holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


async def eventually(probe: Callable[[], Awaitable[T | None]], seconds: float = 60.0) -> T:
    """The first truthy answer of ``probe``, asked again every 50 ms (a state the server
    reaches on its own: a delivery recorded, a connection's state)."""
    deadline = time.monotonic() + seconds
    while True:
        found = await probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("the awaited state was not reached")
        await asyncio.sleep(0.05)


async def get_ok(client: httpx.AsyncClient, path: str) -> Any:
    """The JSON body of ``GET path``, which must answer 200."""
    response = await client.get(path)
    assert response.status_code == 200, (path, response.text)
    return response.json()


async def get_when(client: httpx.AsyncClient, path: str, holds: Callable[[Any], bool]) -> Any:
    """The JSON body of ``GET path`` once ``holds`` says so (a state the server reaches on
    its own)."""

    async def probe() -> Any:
        body = await get_ok(client, path)
        return body if holds(body) else None

    return await eventually(probe)

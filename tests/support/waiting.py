"""Waiting for a state the server reaches on its own, asked again until it holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

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

"""Per-key debouncing of background work."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

logger = logging.getLogger(__name__)


class Debouncer:
    """Runs ``action(key)`` once ``delay()`` seconds have passed since the last ``poke(key)``.

    Pokes during the wait push the run back; a poke during a run schedules one more run after
    it. Runs of one key never overlap; different keys are independent.
    """

    def __init__(
        self,
        spawn: Callable[[Coroutine[Any, Any, None], str], asyncio.Task[Any] | None],
        action: Callable[[str], Awaitable[object]],
        delay: Callable[[], float],
    ) -> None:
        self._spawn = spawn
        self._action = action
        self._delay = delay
        self._due: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task[Any]] = {}

    def poke(self, key: str) -> None:
        """Ask for a run of ``key`` after the quiet delay."""
        self._due[key] = asyncio.get_running_loop().time() + self._delay()
        if key not in self._tasks:
            task = self._spawn(self._drive(key), f"debounce:{key}")
            if task is not None:  # None: shutting down; the next run will catch up
                self._tasks[key] = task

    async def _drive(self, key: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            while key in self._due:
                wait = self._due[key] - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                del self._due[key]
                try:
                    await self._action(key)
                except Exception:
                    logger.exception("debounced run for %s failed", key)
        finally:
            self._tasks.pop(key, None)

"""A sliding-window counter of attempts per key (an account, a client address)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class SlidingWindowLimiter:
    """Allows ``limit`` hits per key within any ``window`` seconds."""

    _PRUNE_ABOVE = 10_000

    def __init__(
        self, limit: int, window: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        hits = self._hits.get(key)
        if hits is None:
            return deque()
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if not hits:
            del self._hits[key]
        return hits

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may try again, or ``None`` when it may now."""
        now = self._clock()
        hits = self._recent(key, now)
        if len(hits) < self.limit:
            return None
        return max(hits[0] + self.window - now, 0.0)

    def hit(self, key: str) -> None:
        """Record one failure for ``key``."""
        now = self._clock()
        if len(self._hits) > self._PRUNE_ABOVE:
            for stale in list(self._hits):
                self._recent(stale, now)
        self._hits.setdefault(key, deque()).append(now)

    def undo(self, key: str) -> None:
        """Take back ``key``'s latest hit (an attempt that turned out fine)."""
        hits = self._hits.get(key)
        if hits:
            hits.pop()
            if not hits:
                del self._hits[key]

    def reset(self, key: str) -> None:
        """Forget ``key``'s failures (after a success)."""
        self._hits.pop(key, None)

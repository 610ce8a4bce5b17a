"""Browser sessions recently checked, so that a burst of requests does not read the database
for each one. Any change to an account or a session empties it."""

from __future__ import annotations

import time
from typing import Generic, TypeVar

V = TypeVar("V")


class SessionCache(Generic[V]):
    """Session id → what ``authenticate`` found, for ``ttl`` seconds at most.

    ``generation()`` is read before a database lookup and given back to ``put``: a lookup
    that raced with a change (``clear``) is not cached, so a session ended or a user disabled
    is never served from here afterwards.
    """

    def __init__(self, ttl: float, max_entries: int = 10_000) -> None:
        self._ttl = ttl
        self._max_entries = max_entries
        self._entries: dict[str, tuple[float, float, V]] = {}
        self._generation = 0

    def generation(self) -> int:
        return self._generation

    def get(self, session_id: str) -> V | None:
        """The cached value while fresh and before the session's own expiry."""
        entry = self._entries.get(session_id)
        if entry is None:
            return None
        cached_at, expires_at, value = entry
        now = time.monotonic()
        if now - cached_at > self._ttl or time.time() >= expires_at:
            del self._entries[session_id]
            return None
        return value

    def put(self, generation: int, session_id: str, expires_at: float, value: V) -> None:
        """Remember a lookup made at ``generation`` (ignored if anything changed since)."""
        if generation != self._generation:
            return
        if len(self._entries) >= self._max_entries:
            self._entries.clear()
        self._entries[session_id] = (time.monotonic(), expires_at, value)

    def clear(self) -> None:
        """Forget everything: call after any change to an account or a session."""
        self._entries.clear()
        self._generation += 1

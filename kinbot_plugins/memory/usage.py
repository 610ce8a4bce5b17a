"""How often each memory earns its place: injected into its Kin's prompt, recalled by the
recall tool, and when last (table ``memory_usage``, migration 0027).

A turn only adds to counters kept in memory (no database write on its path); they are written
together, in one transaction, a few seconds later in the background, when the platform stops,
and before anyone reads them (``figures``), so what a person sees is never behind.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from peewee import fn

from kinbot_core.db.models import MemoryRecord, MemoryUsageRecord

logger = logging.getLogger(__name__)

Use = Literal["injected", "recalled"]

#: Seconds the counters of a burst of turns gather before they are written in one go.
FLUSH_DELAY_SECONDS = 5.0


@dataclass
class UsageFigures:
    """One memory's usage."""

    injected_count: int = 0
    recalled_count: int = 0
    last_injected_at: float | None = None
    last_recalled_at: float | None = None

    def add(self, use: Use, count: int, at: float) -> None:
        if use == "injected":
            self.injected_count += count
            self.last_injected_at = max(self.last_injected_at or 0.0, at)
        else:
            self.recalled_count += count
            self.last_recalled_at = max(self.last_recalled_at or 0.0, at)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class UsageRecorder:
    """The usage counters of one platform, gathered in memory and written in batches."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform
        #: Not written yet: memory id → (Kin id, what to add).
        self._pending: dict[int, tuple[str, UsageFigures]] = {}
        self._scheduled = False
        self._lock = asyncio.Lock()

    def note(self, kin_id: str, memory_ids: Iterable[int], use: Use) -> None:
        """Count one ``use`` of each of ``memory_ids`` now (written later, in a batch)."""
        now = time.time()
        for memory_id in memory_ids:
            _kin, figures = self._pending.setdefault(memory_id, (kin_id, UsageFigures()))
            figures.add(use, 1, now)
        if self._pending and not self._scheduled:
            self._scheduled = True
            self._platform.spawn(self._flush_soon(), name="memory-usage-flush")

    async def _flush_soon(self) -> None:
        try:
            await asyncio.sleep(FLUSH_DELAY_SECONDS)  # a debounce: later turns join the batch
        finally:
            self._scheduled = False
        await self.flush()

    async def flush(self) -> None:
        """Write every pending counter, in one transaction."""
        async with self._lock:
            pending, self._pending = self._pending, {}
            if pending:
                await self._platform.db.write(_store, pending)

    async def figures(self, kin_id: str) -> dict[int, UsageFigures]:
        """The usage of each of the Kin's memories that was used at least once."""
        await self.flush()

        def select() -> dict[int, UsageFigures]:
            rows = MemoryUsageRecord.select().where(MemoryUsageRecord.kin == kin_id)
            return {
                row.__data__["memory"]: UsageFigures(
                    row.injected_count,
                    row.recalled_count,
                    row.last_injected_at,
                    row.last_recalled_at,
                )
                for row in rows
            }

        found: dict[int, UsageFigures] = await self._platform.db.read(select)
        return found


def _store(pending: dict[int, tuple[str, UsageFigures]]) -> None:
    """Add ``pending`` to the stored counters (inside a write); memories deleted meanwhile
    are skipped."""
    existing = {
        row.id
        for row in MemoryRecord.select(MemoryRecord.id).where(MemoryRecord.id.in_(list(pending)))
    }
    for memory_id, (kin_id, add) in pending.items():
        if memory_id not in existing:
            continue
        MemoryUsageRecord.insert(
            memory=memory_id,
            kin=kin_id,
            injected_count=add.injected_count,
            recalled_count=add.recalled_count,
            last_injected_at=add.last_injected_at,
            last_recalled_at=add.last_recalled_at,
        ).on_conflict(
            conflict_target=[MemoryUsageRecord.memory],
            update={
                MemoryUsageRecord.injected_count: MemoryUsageRecord.injected_count
                + add.injected_count,
                MemoryUsageRecord.recalled_count: MemoryUsageRecord.recalled_count
                + add.recalled_count,
                MemoryUsageRecord.last_injected_at: _latest(
                    MemoryUsageRecord.last_injected_at, add.last_injected_at
                ),
                MemoryUsageRecord.last_recalled_at: _latest(
                    MemoryUsageRecord.last_recalled_at, add.last_recalled_at
                ),
            },
        ).execute()


def _latest(column: Any, value: float | None) -> Any:
    """The later of the stored date and ``value`` (either may be missing)."""
    if value is None:
        return column
    return fn.max(fn.coalesce(column, 0), value)


_recorders: weakref.WeakKeyDictionary[Any, UsageRecorder] = weakref.WeakKeyDictionary()


def usage_of(platform: Any) -> UsageRecorder:
    """The usage recorder of ``platform`` (created on first use)."""
    recorder = _recorders.get(platform)
    if recorder is None:
        recorder = _recorders[platform] = UsageRecorder(platform)
    return recorder

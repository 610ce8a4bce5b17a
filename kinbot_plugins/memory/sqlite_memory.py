"""The built-in memory backend: memories and history on the platform's SQLite file, searched
with sqlite-vec (KNN over embeddings) and FTS5 together, fused by reciprocal rank fusion.

Vectors live in one ``vec0`` table per vector size (``memory_vec_<dimension>``), partitioned
by Kin, so that providers with different embedding sizes can coexist.

Its writing half is in ``writing``, its searching half (memories and history) in
``hybrid_search``, what a memory's row holds in ``records``; this module registers the
backend, starts and stops its background work, lists memories and hands prompts and marks to
``injection``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.db.models import MemoryRecord
from kinbot_core.memory import Memory, MemoryContext
from kinbot_plugins.memory import injection
from kinbot_plugins.memory.history_index import HistoryIndexer
from kinbot_plugins.memory.hybrid_search import HybridSearch
from kinbot_plugins.memory.records import to_memory
from kinbot_plugins.memory.usage import UsageFigures, usage_of
from kinbot_plugins.memory.vector_cache import VectorCache, evict_idle_vectors
from kinbot_plugins.memory.writing import MemoryWriting


class SqliteMemoryBackend(HybridSearch, MemoryWriting):
    """Memories in ``memory``, ``memory_fts`` and ``memory_vec_<n>``; history in
    ``message_fts`` and ``message_vec_<n>`` (filled in the background by a ``HistoryIndexer``
    per platform)."""

    name = "sqlite"

    def __init__(self) -> None:
        #: The memory vectors of Kins, in memory for fast search (``vector_cache``); call its
        #: ``invalidate(kin_id)`` after writing a Kin's vectors other than through this class.
        self.vectors = VectorCache()
        self._indexers: weakref.WeakKeyDictionary[Any, HistoryIndexer] = weakref.WeakKeyDictionary()
        self._evictions: dict[Any, asyncio.Task[None]] = {}

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, platform: Any) -> None:
        """Start embedding the platform's history in the background (what a previous run
        left unembedded first), and dropping idle Kins' vectors from memory."""
        self.indexer(platform).start()
        idle = platform.settings.memory_vectors_idle_seconds
        self._evictions[platform] = asyncio.create_task(
            evict_idle_vectors(self.vectors, idle), name="kinbot-memory-vector-eviction"
        )

    async def stop(self, platform: Any) -> None:
        """Stop the background embedding of history and the eviction of idle vectors; write
        the usage counters still held."""
        eviction = self._evictions.pop(platform, None)
        if eviction is not None:
            eviction.cancel()
            await asyncio.gather(eviction, return_exceptions=True)
        indexer = self._indexers.pop(platform, None)
        if indexer is not None:
            await indexer.stop()
        await usage_of(platform).flush()

    def indexer(self, platform: Any) -> HistoryIndexer:
        """The history indexer of ``platform`` (created on first use)."""
        indexer = self._indexers.get(platform)
        if indexer is None:
            indexer = self._indexers[platform] = HistoryIndexer(
                platform,
                reembed_memories=lambda model, size: self.reembed_memories(platform, model, size),
                pending_memories=lambda model, kin_id: self.stale_memories(platform, model, kin_id),
            )
        return indexer

    async def embedding_progress(self, platform: Any, kin_id: str | None = None) -> dict[str, Any]:
        """The current embedding model and how many memories and messages (of one Kin, or in
        all) still wait to be embedded with it."""
        return await self.indexer(platform).progress(kin_id)

    # -- reading ---------------------------------------------------------------------------

    async def memories(
        self,
        platform: Any,
        kin_id: str,
        *,
        subject: str | None = None,
        category: str | None = None,
    ) -> list[Memory]:
        def select() -> list[MemoryRecord]:
            query = MemoryRecord.select().where(MemoryRecord.kin == kin_id)
            if subject:
                query = query.where(MemoryRecord.subject == subject)
            if category:
                query = query.where(MemoryRecord.category == category)
            return list(query.order_by(MemoryRecord.id.desc()))

        return [to_memory(row) for row in await platform.db.read(select)]

    async def prompt_context(self, platform: Any, kin_id: str, query: str) -> MemoryContext:
        """Pinned, then relevant memories within the budget (``injection``)."""
        return await injection.prompt_context(self, platform, kin_id, query, to_memory)

    # -- usage and marks -------------------------------------------------------------------

    def note_recalled(self, platform: Any, kin_id: str, memory_ids: list[int]) -> None:
        """Count a recall of each of ``memory_ids`` by the recall tool (written later)."""
        usage_of(platform).note(kin_id, memory_ids, "recalled")

    async def usage(self, platform: Any, kin_id: str) -> dict[int, UsageFigures]:
        """How often, and when last, each of the Kin's used memories was used."""
        return await usage_of(platform).figures(kin_id)

    async def mark(
        self,
        platform: Any,
        kin_id: str,
        memory_id: int,
        *,
        pinned: bool | None = None,
        archived: bool | None = None,
    ) -> Memory:
        """Pin or unpin, archive or restore a memory (``injection.mark``)."""
        return await injection.mark(
            platform, kin_id, memory_id, to_memory, pinned=pinned, archived=archived
        )


backend = SqliteMemoryBackend()


@hookimpl
def register_memory_backends(register: Callable[[Any], None]) -> None:
    register(backend)

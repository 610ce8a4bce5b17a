"""The interface of memory backends (contributed through ``register_memory_backends``), and
the platform's access to the enabled one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kinbot_core.search import SearchMode

CATEGORIES = ("fact", "preference", "decision", "knowledge")


class MemoryError(Exception):
    """A memory operation that cannot be done; the message says why."""


class MemoryNotFound(MemoryError):
    """No such memory for this Kin."""


@dataclass(frozen=True)
class MemoryContext:
    """What memory adds to a Kin's system prompt for one turn."""

    #: The compacted summary of the older part of the session, if any.
    summary: str | None = None
    #: The memories most relevant to the incoming message, most relevant first.
    memories: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Memory:
    """One long-term memory of a Kin."""

    id: int
    kin_id: str
    content: str
    category: str
    subject: str
    source_message_id: int | None
    created_at: float
    updated_at: float
    #: Always injected into the Kin's prompt (within the budget, first).
    pinned: bool = False
    #: When a person archived it (``None``: in use); never injected nor recalled then.
    archived_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class HistoryHit:
    """A message of the session found by ``search_history``."""

    message_id: int
    role: str
    sender_name: str | None
    content: str
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@runtime_checkable
class MemoryBackend(Protocol):
    """Long-term memory (and history search) for Kins. ``name`` is unique among backends.

    Every method receives the running platform (its database, providers…) first.
    """

    name: str

    async def prompt_context(self, platform: Any, kin_id: str, query: str) -> MemoryContext:
        """The summary and relevant memories to show the Kin before answering ``query``."""
        ...

    async def memorize(
        self,
        platform: Any,
        kin_id: str,
        content: str,
        category: str,
        subject: str = "",
        *,
        source_message_id: int | None = None,
    ) -> Memory:
        """Store a memory now."""
        ...

    async def recall(
        self,
        platform: Any,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> list[Memory]:
        """The memories most relevant to ``query``: hybrid (semantic and full-text fused), or
        with ``mode`` one signal alone. With ``min_similarity`` (a person's search: nothing
        for a query nothing is like), a memory found by meaning alone counts only if its
        cosine similarity to the query reaches it; one found by its words always counts."""
        ...

    async def update(self, platform: Any, kin_id: str, memory_id: int, content: str) -> Memory:
        """Replace a memory's content (and its indexes)."""
        ...

    async def forget(self, platform: Any, kin_id: str, memory_id: int) -> None:
        """Delete a memory from storage and every index."""
        ...

    async def memories(
        self,
        platform: Any,
        kin_id: str,
        *,
        subject: str | None = None,
        category: str | None = None,
    ) -> list[Memory]:
        """The Kin's memories, newest first, optionally of one subject or category."""
        ...

    async def search_history(
        self,
        platform: Any,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> list[HistoryHit]:
        """Messages of the Kin's session matching ``query``, best first (the same hybrid
        search as ``recall``; ``mode`` picks one signal alone). With ``min_similarity`` (a
        person's search: nothing for a query nothing is like), a message found by meaning
        alone counts only if its cosine similarity to the query reaches it; one found by
        its words always counts."""
        ...

    async def similar(
        self, platform: Any, kin_id: str, text: str, *, limit: int = 5
    ) -> list[tuple[Memory, float]]:
        """The Kin's memories nearest to ``text`` in meaning, each with its cosine similarity
        (1: same meaning), most similar first; for deduplicating new memories."""
        ...


def _floor(min_similarity: float | None) -> dict[str, float]:
    """``min_similarity`` as a search's keyword, given only when set: a backend written
    before it existed still answers the Kins' own searches."""
    return {} if min_similarity is None else {"min_similarity": min_similarity}


class MemoryAccess:
    """The platform's way to its memory: the first enabled backend, given the platform."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform

    def backend(self) -> MemoryBackend:
        """The backend in use, or ``MemoryError`` when no memory plugin is enabled."""
        for backend in self._platform.registries.memory_backends:
            found: MemoryBackend = backend
            return found
        raise MemoryError("No memory backend is enabled.")

    async def memorize(
        self, kin_id: str, content: str, category: str, subject: str = "", **kwargs: Any
    ) -> Memory:
        return await self.backend().memorize(
            self._platform, kin_id, content, category, subject, **kwargs
        )

    async def start(self) -> None:
        """Let every backend start its background work (one with a ``start`` method)."""
        for backend in self._platform.registries.memory_backends:
            start = getattr(backend, "start", None)
            if start is not None:
                await start(self._platform)

    async def stop(self) -> None:
        """Stop the backends' background work (those with a ``stop`` method)."""
        for backend in self._platform.registries.memory_backends:
            stop = getattr(backend, "stop", None)
            if stop is not None:
                await stop(self._platform)

    async def embedding_progress(self, kin_id: str | None = None) -> dict[str, Any] | None:
        """The backend's embedding model and what (of one Kin) still waits for an embedding
        with it, if the backend reports it (``embedding_progress``); else ``None``."""
        progress = getattr(self.backend(), "embedding_progress", None)
        if progress is None:
            return None
        found: dict[str, Any] = await progress(self._platform, kin_id)
        return found

    async def recall(
        self,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> list[Memory]:
        return await self.backend().recall(
            self._platform, kin_id, query, limit=limit, mode=mode, **_floor(min_similarity)
        )

    def note_recalled(self, kin_id: str, memory_ids: list[int]) -> None:
        """Count a recall of ``memory_ids`` by the recall tool, if the backend keeps usage
        (``note_recalled``)."""
        note = getattr(self.backend(), "note_recalled", None)
        if note is not None and memory_ids:
            note(self._platform, kin_id, memory_ids)

    async def usage(self, kin_id: str) -> dict[int, Any]:
        """Each used memory's usage figures (``to_dict()``-able), if the backend keeps them
        (``usage``); else none."""
        usage = getattr(self.backend(), "usage", None)
        if usage is None:
            return {}
        found: dict[int, Any] = await usage(self._platform, kin_id)
        return found

    async def mark(
        self, kin_id: str, memory_id: int, *, pinned: bool | None, archived: bool | None
    ) -> Memory:
        """Pin or unpin, archive or restore a memory, if the backend can (``mark``); else
        ``MemoryError``."""
        mark = getattr(self.backend(), "mark", None)
        if mark is None:
            raise MemoryError("This memory backend cannot pin or archive memories.")
        found: Memory = await mark(
            self._platform, kin_id, memory_id, pinned=pinned, archived=archived
        )
        return found

    async def update(self, kin_id: str, memory_id: int, content: str) -> Memory:
        return await self.backend().update(self._platform, kin_id, memory_id, content)

    async def forget(self, kin_id: str, memory_id: int) -> None:
        await self.backend().forget(self._platform, kin_id, memory_id)

    async def memories(
        self, kin_id: str, *, subject: str | None = None, category: str | None = None
    ) -> list[Memory]:
        return await self.backend().memories(
            self._platform, kin_id, subject=subject, category=category
        )

    async def search_history(
        self,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> list[HistoryHit]:
        return await self.backend().search_history(
            self._platform, kin_id, query, limit=limit, mode=mode, **_floor(min_similarity)
        )

    async def similar(
        self, kin_id: str, text: str, *, limit: int = 5
    ) -> list[tuple[Memory, float]]:
        return await self.backend().similar(self._platform, kin_id, text, limit=limit)

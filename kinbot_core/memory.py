"""The interface of memory backends (contributed through ``register_memory_backends``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class MemoryContext:
    """What memory adds to a Kin's system prompt for one turn."""

    #: The compacted summary of the older part of the session, if any.
    summary: str | None = None
    #: The memories most relevant to the incoming message, most relevant first.
    memories: list[str] = field(default_factory=list)


@runtime_checkable
class MemoryBackend(Protocol):
    """Long-term memory and compacting for Kins. ``name`` is unique among backends."""

    name: str

    async def prompt_context(self, kin_id: str, query: str) -> MemoryContext:
        """The summary and relevant memories to show the Kin before answering ``query``."""
        ...

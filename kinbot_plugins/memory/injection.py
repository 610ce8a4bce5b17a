"""Which memories go into a Kin's prompt for a turn, and a person's marks on memories.

The injected memories, within ``memory_injected_max_tokens`` (estimated as compacting does):

1. the Kin's pinned memories, oldest first (a person asked for them always);
2. then, of the ``memory_injected_max`` memories most relevant to the turn's query (the
   backend's hybrid recall, or full-text alone when it fails), most relevant first, those
   that earn their place: a cosine similarity to the query of at least
   ``memory_injection_min_score`` and of at least ``memory_injection_relative_score`` of the
   turn's best (memories found by full text alone, when the semantic signal fails, are not
   scored and pass).

A memory that does not fit the budget is skipped and the next is tried (a shorter one may
fit). Archived memories are never injected (recall leaves them out). A memory the session's
recent messages already say (``session_overlap``) is not repeated (pinned ones excepted).
Each injection is counted (``kinbot_plugins.memory.usage``), off the turn's path.
"""

from __future__ import annotations

import time
from typing import Any

from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.db.models import MemoryRecord
from kinbot_core.memory import Memory, MemoryContext, MemoryNotFound
from kinbot_plugins.memory.session_overlap import RecentMessage, already_said
from kinbot_plugins.memory.usage import usage_of

#: Recent messages of the session whose text a memory is not repeated from.
RECENT_MESSAGES = 20

#: A recalled memory and its relevance to the query (``None``: not scored).
Scored = tuple[Memory, float | None]


def memory_line(memory: Memory) -> str:
    """How a memory reads in the prompt."""
    about = f", about {memory.subject})" if memory.subject else ")"
    return f"{memory.content} ({memory.category}{about}"


#: Whether the Kin has a pinned memory (most have none; every turn asks).
_ANY_PINNED = "select 1 from memory where kin_id = ? and pinned and archived_at is null limit 1"


async def _pinned(platform: Any, kin_id: str, to_memory: Any) -> list[Memory]:
    if not platform.db.read_kept(_ANY_PINNED, (kin_id,), [("memory", kin_id)]):
        return []

    def select() -> list[MemoryRecord]:
        return list(
            MemoryRecord.select()
            .where(
                (MemoryRecord.kin == kin_id)
                & MemoryRecord.pinned
                & MemoryRecord.archived_at.is_null()
            )
            .order_by(MemoryRecord.id)
        )

    return [to_memory(row) for row in await platform.db.read(select)]


async def recent_messages(platform: Any, kin_id: str) -> list[RecentMessage]:
    """The session's recent user and assistant messages, as memories are compared with them."""
    return [
        RecentMessage.of(message.content)
        for message in await platform.kins.history(kin_id, RECENT_MESSAGES)
        if message.role in ("user", "assistant") and message.content
    ]


def relevant_enough(settings: Any, scored: list[Scored]) -> list[Memory]:
    """The memories of ``scored`` (best first) whose relevance passes both floors: at least
    ``memory_injection_min_score``, and at least ``memory_injection_relative_score`` of the
    best relevance among them. Unscored memories pass."""
    scores = [score for _memory, score in scored if score is not None]
    if not scores:
        return [memory for memory, _score in scored]
    floor = max(
        settings.memory_injection_min_score,
        settings.memory_injection_relative_score * max(scores),
    )
    return [memory for memory, score in scored if score is None or score >= floor]


def select(
    settings: Any, pinned: list[Memory], scored: list[Scored], recent: list[RecentMessage]
) -> list[Memory]:
    """The memories to inject (the module's rules), from the Kin's ``pinned`` memories, the
    ``scored`` recall of the turn's query and the session's ``recent`` messages."""
    budget = settings.memory_injected_max_tokens
    pinned_ids = {memory.id for memory in pinned}
    relevant = [
        memory
        for memory in relevant_enough(settings, scored)
        if memory.id not in pinned_ids and not already_said(memory.content, recent)
    ]
    chosen: list[Memory] = []
    for memory in [*pinned, *relevant]:
        cost = estimate_tokens(f"- {memory_line(memory)}\n")
        if cost > budget:
            continue
        budget -= cost
        chosen.append(memory)
    return chosen


async def scored_recall(backend: Any, platform: Any, kin_id: str, query: str) -> list[Scored]:
    """The ``memory_injected_max`` memories most relevant to ``query`` with their relevance:
    the backend's scored hybrid recall, or its full-text search (unscored) when that fails."""
    limit = platform.settings.memory_injected_max
    try:
        found: list[Scored] = await backend.recall_scored(platform, kin_id, query, limit=limit)
    except Exception:
        memories = await backend.fulltext_memories(platform, kin_id, query, limit)
        found = [(memory, None) for memory in memories]
    return found


async def prompt_context(
    backend: Any, platform: Any, kin_id: str, query: str, to_memory: Any
) -> MemoryContext:
    """The memories to show the Kin before it answers ``query`` (see the module's rules).
    ``backend`` recalls (``recall_scored``, ``fulltext_memories``); ``to_memory`` reads a row."""
    settings = platform.settings
    if settings.memory_injected_max == 0 or settings.memory_injected_max_tokens == 0:
        return MemoryContext()
    pinned = await _pinned(platform, kin_id, to_memory)
    scored = await scored_recall(backend, platform, kin_id, query)
    recent = await recent_messages(platform, kin_id) if scored else []
    chosen = select(settings, pinned, scored, recent)
    if chosen:
        usage_of(platform).note(kin_id, [memory.id for memory in chosen], "injected")
    return MemoryContext(memories=[memory_line(memory) for memory in chosen])


async def mark(
    platform: Any,
    kin_id: str,
    memory_id: int,
    to_memory: Any,
    *,
    pinned: bool | None = None,
    archived: bool | None = None,
) -> Memory:
    """Pin or unpin, archive or restore one of the Kin's memories; the memory as it is now.
    An archived memory is no longer pinned (archiving wins when both are asked)."""

    def change() -> MemoryRecord | None:
        row = MemoryRecord.get_or_none(MemoryRecord.id == memory_id)
        if row is None or row.__data__["kin"] != kin_id:
            return None
        if pinned is not None:
            row.pinned = pinned
        if archived is not None:
            row.archived_at = (row.archived_at or time.time()) if archived else None
        if row.archived_at is not None:
            row.pinned = False
        row.save()
        return row

    row = await platform.db.write(change)
    if row is None:
        raise MemoryNotFound(f"There is no memory {memory_id}.")
    found: Memory = to_memory(row)
    return found

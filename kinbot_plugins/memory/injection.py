"""Which memories go into a Kin's prompt for a turn, and a person's marks on memories.

The injected memories, within ``memory_injected_max_tokens`` (estimated as compacting does):

1. the Kin's pinned memories, oldest first (a person asked for them always);
2. then up to ``memory_injected_max`` memories most relevant to the turn's query (the
   backend's hybrid recall, or full-text alone when it fails), most relevant first.

A memory that does not fit the budget is skipped and the next is tried (a shorter one may
fit). Archived memories are never injected (recall leaves them out). A memory whose content
the session's recent messages already contain is not repeated (pinned ones excepted). Each
injection is counted (``kinbot_plugins.memory.usage``), off the turn's path.
"""

from __future__ import annotations

import re
import time
from typing import Any

from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.db.models import MemoryRecord
from kinbot_core.memory import Memory, MemoryContext, MemoryNotFound
from kinbot_plugins.memory.usage import usage_of

#: Recent messages of the session whose text a memory is not repeated from.
RECENT_MESSAGES = 20
_SPACES = re.compile(r"\s+")


def _normal(text: str) -> str:
    """Text compared for containment: case-folded, spaces collapsed, outer punctuation off."""
    return _SPACES.sub(" ", text.casefold()).strip(" .!?;:,")


def memory_line(memory: Memory) -> str:
    """How a memory reads in the prompt."""
    about = f", about {memory.subject})" if memory.subject else ")"
    return f"{memory.content} ({memory.category}{about}"


async def _pinned(platform: Any, kin_id: str, to_memory: Any) -> list[Memory]:
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


async def _recent_text(platform: Any, kin_id: str) -> list[str]:
    """The normalised text of the session's recent user and assistant messages."""
    return [
        _normal(message.content)
        for message in await platform.kins.history(kin_id, RECENT_MESSAGES)
        if message.role in ("user", "assistant") and message.content
    ]


async def prompt_context(
    backend: Any, platform: Any, kin_id: str, query: str, to_memory: Any
) -> MemoryContext:
    """The memories to show the Kin before it answers ``query`` (see the module's rules).
    ``backend`` recalls (``recall``, ``fulltext_memories``); ``to_memory`` reads a row."""
    settings = platform.settings
    budget = settings.memory_injected_max_tokens
    if settings.memory_injected_max == 0 or budget == 0:
        return MemoryContext()
    pinned = await _pinned(platform, kin_id, to_memory)
    try:
        found = await backend.recall(platform, kin_id, query, limit=settings.memory_injected_max)
    except Exception:
        found = await backend.fulltext_memories(
            platform, kin_id, query, settings.memory_injected_max
        )
    recent = await _recent_text(platform, kin_id) if found else []
    lines: list[str] = []
    used: list[int] = []
    pinned_ids = {memory.id for memory in pinned}
    relevant = [memory for memory in found if memory.id not in pinned_ids]
    for memory in [*pinned, *relevant]:
        if memory.id not in pinned_ids:
            content = _normal(memory.content)
            if content and any(content in text for text in recent):
                continue
        line = memory_line(memory)
        cost = estimate_tokens(f"- {line}\n")
        if cost > budget:
            continue
        budget -= cost
        lines.append(line)
        used.append(memory.id)
    if used:
        usage_of(platform).note(kin_id, used, "injected")
    return MemoryContext(memories=lines)


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

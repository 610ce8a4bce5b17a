"""Restore a Kin file's memories through the memory backend, so they are searchable.

A backend may offer ``restore_memories(platform, kin_id, memories)`` to store many at once,
keeping their dates and embedding them in batches with the platform's embedding model (the
built-in SQLite backend does); otherwise each memory is stored with ``memorize``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinbot_core.kin_export.documents import MemoryDocument

if TYPE_CHECKING:
    from kinbot_core.platform import Platform


async def restore_memories(platform: Platform, kin_id: str, memories: list[MemoryDocument]) -> int:
    """Store ``memories`` for the Kin, oldest first; returns how many were stored."""
    if not memories:
        return 0
    backend = platform.memory.backend()
    restore = getattr(backend, "restore_memories", None)
    items = [memory.model_dump() for memory in memories]
    if restore is not None:
        stored: int = await restore(platform, kin_id, items)
        return stored
    for memory in memories:
        await platform.memory.memorize(kin_id, memory.content, memory.category, memory.subject)
    return len(memories)

"""A memory as the SQLite backend keeps it: its row read as a ``Memory``, its content checked
before it is stored, and the ``vec0`` table that holds its vector."""

from __future__ import annotations

from kinbot_core.db.models import MemoryRecord
from kinbot_core.memory import CATEGORIES, Memory, MemoryError

MAX_CONTENT = 2000


def memory_vec_table(dimension: int) -> str:
    """The table of the memory vectors of ``dimension`` numbers (one per vector size)."""
    return f"memory_vec_{int(dimension)}"


def to_memory(row: MemoryRecord) -> Memory:
    """The ``Memory`` a row of ``memory`` holds."""
    return Memory(
        id=row.id,
        kin_id=row.__data__["kin"],
        content=row.content,
        category=row.category,
        subject=row.subject,
        source_message_id=row.source_message_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        pinned=bool(row.pinned),
        archived_at=row.archived_at,
    )


def check_memory(content: str, category: str) -> str:
    """The memory's content, stripped, or ``MemoryError`` for empty or too long content or an
    unknown category."""
    content = content.strip()
    if not content:
        raise MemoryError("A memory needs some content.")
    if len(content) > MAX_CONTENT:
        raise MemoryError(f"A memory is at most {MAX_CONTENT} characters.")
    if category not in CATEGORIES:
        raise MemoryError(f"The category is one of: {', '.join(CATEGORIES)}.")
    return content

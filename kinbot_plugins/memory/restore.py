"""Store many memories of one Kin at once (a Kin file's), as ``memorize`` stores one: row,
full-text index and vector, keeping their dates.

They are embedded in batches with the platform's embedding model. If that cannot be done
now (no embedding provider, or it fails), they are stored without a vector: full-text
search finds them at once, and the history indexer embeds them in the background.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import MemoryRecord
from kinbot_core.fulltext import index_terms
from kinbot_core.providers import Vector
from kinbot_plugins.memory.records import check_memory

if TYPE_CHECKING:
    from kinbot_plugins.memory.writing import MemoryWriting

logger = logging.getLogger(__name__)


def _text(item: dict[str, Any]) -> str:
    return f"{item['subject']}: {item['content']}" if item["subject"] else item["content"]


async def _vectors(platform: Any, texts: list[str]) -> tuple[list[Vector], str] | None:
    """The vectors of ``texts`` and the model that made them, or ``None`` if none can be had."""
    size = max(1, int(platform.settings.history_embedding_batch_size))
    vectors: list[Vector] = []
    try:
        model: str = await platform.providers.embedding_model()
        for start in range(0, len(texts), size):
            vectors.extend(await platform.providers.embed(texts[start : start + size]))
    except Exception as exc:  # a provider missing or down: full-text search still works
        logger.warning("restored memories stored without vectors for now: %s", exc)
        return None
    return vectors, model


async def restore_memories(
    backend: MemoryWriting, platform: Any, kin_id: str, items: list[dict[str, Any]]
) -> int:
    """Store ``items`` (``content``, ``category``, ``subject``, optional ``created_at`` and
    ``updated_at``) for the Kin; returns how many were stored."""
    cleaned = [
        {**item, "content": check_memory(item["content"], item["category"]),
         "subject": str(item.get("subject") or "").strip()[:200]}
        for item in items
    ]  # fmt: skip
    embedded = await _vectors(platform, [_text(item) for item in cleaned])
    db = platform.db

    def insert() -> None:
        now = time.time()
        for index, item in enumerate(cleaned):
            vector = embedded[0][index] if embedded else None
            row = MemoryRecord.create(
                kin=kin_id,
                content=item["content"],
                category=item["category"],
                subject=item["subject"],
                embedding_model=embedded[1] if embedded else None,
                dimension=len(vector) if vector else None,
                created_at=item.get("created_at") or now,
                updated_at=item.get("updated_at") or now,
            )
            terms = (index_terms(item["content"]), index_terms(item["subject"]))
            db.sql("insert into memory_fts (rowid, content, subject) values (?, ?, ?)",
                   (row.id, *terms))  # fmt: skip
            if vector:
                backend.store_vector(db, row.id, kin_id, vector)

    await db.write(insert)
    backend.vectors.invalidate(kin_id)
    if embedded is None:
        backend.indexer(platform).reembed_memories_soon()
    return len(cleaned)

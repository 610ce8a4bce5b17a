"""Writing a Kin's memories: stored, changed, forgotten, restored from a Kin file, and
embedded again when the embedding model changes; each write keeps the row, its full-text
terms (``memory_fts``) and its vector (``memory_vec_<n>``) in step."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import MemoryRecord
from kinbot_core.fulltext import index_terms
from kinbot_core.memory import Memory, MemoryNotFound
from kinbot_core.providers import Vector
from kinbot_plugins.memory.history_index import vec0_columns, vector_bytes
from kinbot_plugins.memory.records import check_memory, memory_vec_table, to_memory
from kinbot_plugins.memory.restore import restore_memories
from kinbot_plugins.memory.vector_cache import VectorCache

if TYPE_CHECKING:
    from kinbot_plugins.memory.history_index import HistoryIndexer


class MemoryWriting:
    """The writing half of ``SqliteMemoryBackend``, which mixes it in and holds what it uses."""

    vectors: VectorCache

    if TYPE_CHECKING:

        def indexer(self, platform: Any) -> HistoryIndexer: ...

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
        content = check_memory(content, category)
        subject = subject.strip()[:200]
        vector, model = await self._embed(platform, f"{subject}: {content}" if subject else content)
        db = platform.db

        def insert() -> MemoryRecord:
            now = time.time()
            row = MemoryRecord.create(
                kin=kin_id,
                content=content,
                category=category,
                subject=subject,
                source_message_id=source_message_id,
                embedding_model=model,
                dimension=len(vector),
                created_at=now,
                updated_at=now,
            )
            db.sql("insert into memory_fts (rowid, content, subject) values (?, ?, ?)",
                   (row.id, index_terms(content), index_terms(subject)))  # fmt: skip
            self.store_vector(db, row.id, kin_id, vector)
            return row

        stored = to_memory(await db.write(insert))
        self.vectors.invalidate(kin_id)
        return stored

    async def update(self, platform: Any, kin_id: str, memory_id: int, content: str) -> Memory:
        current = await self._get(platform, kin_id, memory_id)
        content = check_memory(content, current.category)
        text = f"{current.subject}: {content}" if current.subject else content
        vector, model = await self._embed(platform, text)
        db = platform.db

        def update() -> MemoryRecord:
            row = MemoryRecord.get_by_id(memory_id)
            self._drop_vector(db, row)
            row.content, row.embedding_model, row.dimension = content, model, len(vector)
            row.updated_at = time.time()
            row.save()
            db.sql("delete from memory_fts where rowid = ?", (memory_id,))
            db.sql("insert into memory_fts (rowid, content, subject) values (?, ?, ?)",
                   (memory_id, index_terms(content), index_terms(row.subject)))  # fmt: skip
            self.store_vector(db, memory_id, kin_id, vector)
            return row

        updated = to_memory(await db.write(update))
        self.vectors.invalidate(kin_id)
        return updated

    async def forget(self, platform: Any, kin_id: str, memory_id: int) -> None:
        await self._get(platform, kin_id, memory_id)
        db = platform.db

        def delete() -> None:
            row = MemoryRecord.get_by_id(memory_id)
            self._drop_vector(db, row)
            db.sql("delete from memory_fts where rowid = ?", (memory_id,))
            row.delete_instance()

        await db.write(delete)
        self.vectors.invalidate(kin_id)

    async def restore_memories(
        self, platform: Any, kin_id: str, items: list[dict[str, Any]]
    ) -> int:
        """Store many memories at once (a Kin file's), keeping their dates; see
        ``kinbot_plugins.memory.restore``."""
        return await restore_memories(self, platform, kin_id, items)

    # -- embedding again -------------------------------------------------------------------

    async def stale_memories(self, platform: Any, model: str, kin_id: str | None = None) -> int:
        """How many memories (of one Kin, or in all) are not embedded with ``model``."""

        def count() -> int:
            query = MemoryRecord.select().where(
                MemoryRecord.embedding_model.is_null() | (MemoryRecord.embedding_model != model)
            )
            if kin_id is not None:
                query = query.where(MemoryRecord.kin == kin_id)
            found: int = query.count()
            return found

        stale: int = await platform.db.read(count)
        return stale

    async def reembed_memories(self, platform: Any, model: str, size: int) -> int:
        """Embed again, with ``model``, up to ``size`` memories embedded with another one
        (after the embedding model changed); returns how many were handled."""
        db = platform.db

        def select() -> list[MemoryRecord]:
            return list(
                MemoryRecord.select()
                .where(
                    MemoryRecord.embedding_model.is_null() | (MemoryRecord.embedding_model != model)
                )
                .order_by(MemoryRecord.id)
                .limit(size)
            )

        rows = await db.read(select)
        if not rows:
            return 0
        texts = [f"{row.subject}: {row.content}" if row.subject else row.content for row in rows]
        vectors = await platform.providers.embed(texts)

        def store() -> None:
            for old, vector in zip(rows, vectors, strict=True):
                row = MemoryRecord.get_or_none(MemoryRecord.id == old.id)
                if row is None or row.content != old.content or row.embedding_model == model:
                    continue  # gone or changed meanwhile (and then embedded by update)
                self._drop_vector(db, row)
                row.embedding_model, row.dimension = model, len(vector)
                row.save()
                self.store_vector(db, row.id, row.__data__["kin"], vector)

        await db.write(store)
        for kin_id in {row.__data__["kin"] for row in rows}:
            self.vectors.invalidate(kin_id)
        return len(rows)

    # -- helpers ---------------------------------------------------------------------------

    async def _get(self, platform: Any, kin_id: str, memory_id: int) -> Memory:
        row = await platform.db.read(lambda: MemoryRecord.get_or_none(MemoryRecord.id == memory_id))
        if row is None or row.__data__["kin"] != kin_id:
            raise MemoryNotFound(f"There is no memory {memory_id}.")
        return to_memory(row)

    async def _embed(self, platform: Any, text: str) -> tuple[Vector, str]:
        (vector,) = await platform.providers.embed([text])
        return vector, await platform.providers.embedding_model()

    def store_vector(self, db: Any, memory_id: int, kin_id: str, vector: Vector) -> None:
        """Store a memory's vector in the table of its size (inside a write)."""
        table = memory_vec_table(len(vector))
        db.sql(
            f"create virtual table if not exists {table} using vec0({vec0_columns(len(vector))})"
        )
        db.sql(f"insert into {table} (rowid, kin_id, embedding) values (?, ?, ?)",
               (memory_id, kin_id, vector_bytes(vector)))  # fmt: skip

    def _drop_vector(self, db: Any, row: MemoryRecord) -> None:
        if row.dimension:
            db.sql(f"delete from {memory_vec_table(row.dimension)} where rowid = ?", (row.id,))

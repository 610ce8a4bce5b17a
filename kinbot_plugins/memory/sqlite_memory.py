"""The built-in memory backend: memories and history on the platform's SQLite file, searched
with sqlite-vec (KNN over embeddings) and FTS5 together, fused by reciprocal rank fusion.

Vectors live in one ``vec0`` table per vector size (``memory_vec_<dimension>``), partitioned
by Kin, so that providers with different embedding sizes can coexist.
"""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.db.models import MemoryRecord
from kinbot_core.memory import (
    CATEGORIES,
    HistoryHit,
    Memory,
    MemoryContext,
    MemoryError,
    MemoryNotFound,
)
from kinbot_core.search import fts_query, reciprocal_rank_fusion

#: How many candidates each engine returns before fusion, per result wanted.
CANDIDATES_PER_RESULT = 3
MAX_CONTENT = 2000


def _vector(values: list[float]) -> bytes:
    return struct.pack(f"{len(values)}f", *values)


def _vec_table(dimension: int) -> str:
    return f"memory_vec_{int(dimension)}"


def _memory(row: MemoryRecord) -> Memory:
    return Memory(
        id=row.id,
        kin_id=row.__data__["kin"],
        content=row.content,
        category=row.category,
        subject=row.subject,
        source_message_id=row.source_message_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _check(content: str, category: str) -> str:
    content = content.strip()
    if not content:
        raise MemoryError("A memory needs some content.")
    if len(content) > MAX_CONTENT:
        raise MemoryError(f"A memory is at most {MAX_CONTENT} characters.")
    if category not in CATEGORIES:
        raise MemoryError(f"The category is one of: {', '.join(CATEGORIES)}.")
    return content


class SqliteMemoryBackend:
    """Memories in ``memory``, ``memory_fts`` and ``memory_vec_<n>``; history in
    ``message_fts``."""

    name = "sqlite"

    # -- writing ---------------------------------------------------------------------------

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
        content = _check(content, category)
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
                   (row.id, content, subject))  # fmt: skip
            self._store_vector(db, row.id, kin_id, vector)
            return row

        return _memory(await db.write(insert))

    async def update(self, platform: Any, kin_id: str, memory_id: int, content: str) -> Memory:
        current = await self._get(platform, kin_id, memory_id)
        content = _check(content, current.category)
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
                   (memory_id, content, row.subject))  # fmt: skip
            self._store_vector(db, memory_id, kin_id, vector)
            return row

        return _memory(await db.write(update))

    async def forget(self, platform: Any, kin_id: str, memory_id: int) -> None:
        await self._get(platform, kin_id, memory_id)
        db = platform.db

        def delete() -> None:
            row = MemoryRecord.get_by_id(memory_id)
            self._drop_vector(db, row)
            db.sql("delete from memory_fts where rowid = ?", (memory_id,))
            row.delete_instance()

        await db.write(delete)

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

        return [_memory(row) for row in await platform.db.read(select)]

    async def recall(
        self, platform: Any, kin_id: str, query: str, *, limit: int = 10
    ) -> list[Memory]:
        if not query.strip() or limit < 1:
            return []
        has_any = await platform.db.read(
            lambda: MemoryRecord.select().where(MemoryRecord.kin == kin_id).exists()
        )
        if not has_any:
            return []  # nothing to search: spare the embedding call
        wanted = limit * CANDIDATES_PER_RESULT
        settings = platform.settings
        dense_ids, text_ids = await asyncio.gather(
            self._dense(platform, kin_id, query, wanted),
            self._fulltext(platform, kin_id, query, wanted),
        )
        fused = reciprocal_rank_fusion(
            [
                (settings.search_weight_dense, dense_ids),
                (settings.search_weight_fulltext, text_ids),
            ],
            k=settings.search_rrf_k,
        )
        ids = [memory_id for memory_id, _score in fused[:limit]]
        if not ids:
            return []

        def load() -> dict[int, MemoryRecord]:
            return {row.id: row for row in MemoryRecord.select().where(MemoryRecord.id.in_(ids))}

        rows = await platform.db.read(load)
        return [_memory(rows[i]) for i in ids if i in rows]

    async def prompt_context(self, platform: Any, kin_id: str, query: str) -> MemoryContext:
        settings = platform.settings
        if settings.memory_injected_max == 0:
            return MemoryContext()
        try:
            found = await self.recall(platform, kin_id, query, limit=settings.memory_injected_max)
        except Exception:
            found = await self._fulltext_memories(
                platform, kin_id, query, settings.memory_injected_max
            )
        budget, lines = settings.memory_injected_max_chars, []
        for memory in found:
            line = f"{memory.content} ({memory.category}" + (
                f", about {memory.subject})" if memory.subject else ")"
            )
            if len(line) > budget:
                break
            budget -= len(line)
            lines.append(line)
        return MemoryContext(memories=lines)

    async def search_history(
        self, platform: Any, kin_id: str, query: str, *, limit: int = 10
    ) -> list[HistoryHit]:
        match = fts_query(query)
        if match is None:
            return []
        db = platform.db

        def search() -> list[HistoryHit]:
            rows = db.sql(
                "select m.id, m.role, m.sender_name, m.content, m.created_at "
                "from message_fts join message m on m.id = message_fts.rowid "
                "where message_fts match ? and m.kin_id = ? and m.role in ('user', 'assistant') "
                "order by bm25(message_fts) limit ?",
                (match, kin_id, limit),
            ).fetchall()
            hits: list[HistoryHit] = [HistoryHit(*row) for row in rows]
            return hits

        hits: list[HistoryHit] = await db.read(search)
        return hits

    # -- helpers ---------------------------------------------------------------------------

    async def _get(self, platform: Any, kin_id: str, memory_id: int) -> Memory:
        row = await platform.db.read(lambda: MemoryRecord.get_or_none(MemoryRecord.id == memory_id))
        if row is None or row.__data__["kin"] != kin_id:
            raise MemoryNotFound(f"There is no memory {memory_id}.")
        return _memory(row)

    async def _embed(self, platform: Any, text: str) -> tuple[list[float], str]:
        (vector,) = await platform.providers.embed([text])
        return vector, await platform.providers.embedding_model()

    def _store_vector(self, db: Any, memory_id: int, kin_id: str, vector: list[float]) -> None:
        table = _vec_table(len(vector))
        db.sql(
            f"create virtual table if not exists {table} using vec0("
            f"kin_id text partition key, embedding float[{len(vector)}] distance_metric=cosine)"
        )
        db.sql(f"insert into {table} (rowid, kin_id, embedding) values (?, ?, ?)",
               (memory_id, kin_id, _vector(vector)))  # fmt: skip

    def _drop_vector(self, db: Any, row: MemoryRecord) -> None:
        if row.dimension:
            db.sql(f"delete from {_vec_table(row.dimension)} where rowid = ?", (row.id,))

    async def _dense(self, platform: Any, kin_id: str, query: str, wanted: int) -> list[int]:
        (vector,) = await platform.providers.embed([query])
        table = _vec_table(len(vector))
        db = platform.db

        def knn() -> list[int]:
            exists = db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone()
            if not exists:
                return []
            rows = db.sql(
                f"select rowid from {table} where embedding match ? and k = ? and kin_id = ? "
                "order by distance",
                (_vector(vector), wanted, kin_id),
            ).fetchall()
            ids: list[int] = [row[0] for row in rows]
            return ids

        found: list[int] = await db.read(knn)
        return found

    async def _fulltext(self, platform: Any, kin_id: str, query: str, wanted: int) -> list[int]:
        match = fts_query(query)
        if match is None:
            return []
        db = platform.db

        def search() -> list[int]:
            rows = db.sql(
                "select memory_fts.rowid from memory_fts "
                "join memory on memory.id = memory_fts.rowid "
                "where memory_fts match ? and memory.kin_id = ? order by bm25(memory_fts) limit ?",
                (match, kin_id, wanted),
            ).fetchall()
            ids: list[int] = [row[0] for row in rows]
            return ids

        found: list[int] = await db.read(search)
        return found

    async def _fulltext_memories(
        self, platform: Any, kin_id: str, query: str, limit: int
    ) -> list[Memory]:
        ids = await self._fulltext(platform, kin_id, query, limit)

        def load() -> list[MemoryRecord]:
            rows = {row.id: row for row in MemoryRecord.select().where(MemoryRecord.id.in_(ids))}
            return [rows[i] for i in ids if i in rows]

        return [_memory(row) for row in await platform.db.read(load)] if ids else []


backend = SqliteMemoryBackend()


@hookimpl
def register_memory_backends(register: Callable[[Any], None]) -> None:
    register(backend)

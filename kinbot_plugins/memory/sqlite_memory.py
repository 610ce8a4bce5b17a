"""The built-in memory backend: memories and history on the platform's SQLite file, searched
with sqlite-vec (KNN over embeddings) and FTS5 together, fused by reciprocal rank fusion.

Vectors live in one ``vec0`` table per vector size (``memory_vec_<dimension>``), partitioned
by Kin, so that providers with different embedding sizes can coexist.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.db.models import MemoryRecord
from kinbot_core.fulltext import index_terms, match_expression
from kinbot_core.memory import (
    CATEGORIES,
    HistoryHit,
    Memory,
    MemoryContext,
    MemoryError,
    MemoryNotFound,
)
from kinbot_core.providers import Vector
from kinbot_core.search import SEARCH_MODES, SearchMode
from kinbot_plugins.memory import injection, ranking
from kinbot_plugins.memory.history_index import (
    HistoryIndexer,
    message_vec_table,
    vec0_columns,
    vector_bytes,
)
from kinbot_plugins.memory.query_rewrite import semantic_query
from kinbot_plugins.memory.restore import restore_memories
from kinbot_plugins.memory.usage import UsageFigures, usage_of
from kinbot_plugins.memory.vector_cache import VectorCache, evict_idle_vectors

logger = logging.getLogger(__name__)

MAX_CONTENT = 2000


def _vec_table(dimension: int) -> str:
    return f"memory_vec_{int(dimension)}"


def _has_memories(platform: Any, kin_id: str) -> bool:
    """Whether the Kin has any memory (a lookup by key, on the event loop: ``read_now``)."""
    return bool(
        platform.db.read_kept(
            "select 1 from memory where kin_id = ? limit 1", (kin_id,), [("memory", kin_id)]
        )
    )


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
        pinned=bool(row.pinned),
        archived_at=row.archived_at,
    )


def _check_mode(mode: str) -> None:
    if mode not in SEARCH_MODES:
        raise MemoryError(f"The search mode is one of: {', '.join(SEARCH_MODES)}.")


async def _nothing() -> list[int]:
    return []


async def _or_nothing(search: Awaitable[list[int]]) -> list[int]:
    """The semantic ranking, or none when it cannot be had (the full-text one still counts)."""
    try:
        return await search
    except Exception as exc:
        logger.warning("semantic history search unavailable: %s", exc)
        return []


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


class SqliteMemoryBackend:
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

        stored = _memory(await db.write(insert))
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

        updated = _memory(await db.write(update))
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
        self,
        platform: Any,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
    ) -> list[Memory]:
        _check_mode(mode)
        if not query.strip() or limit < 1:
            return []
        if not _has_memories(platform, kin_id):
            return []  # nothing to search: spare the embedding call
        settings = platform.settings
        wanted = ranking.candidates(settings, limit)
        dense_ids, text_ids = await asyncio.gather(
            self._dense(platform, kin_id, semantic_query(settings, query), wanted)
            if mode != "fulltext"
            else _nothing(),
            self._fulltext(platform, kin_id, query, wanted) if mode != "dense" else _nothing(),
        )
        ids = ranking.fuse(settings, mode, dense_ids, text_ids)
        if not ids:
            return []
        rows = await platform.db.read(_in_use, ids)
        return [_memory(rows[i]) for i in ids if i in rows][:limit]

    async def recall_scored(
        self, platform: Any, kin_id: str, query: str, *, limit: int = 10
    ) -> list[tuple[Memory, float | None]]:
        """``recall`` in hybrid mode with each memory's relevance to ``query``: its cosine
        similarity (the query embedded as ``recall`` embeds it), ``None`` for a memory whose
        vector is not comparable (embedded with another model, being re-embedded)."""
        if not query.strip() or limit < 1:
            return []
        if not _has_memories(platform, kin_id):  # every turn asks: spare the embedding
            return []
        settings = platform.settings
        wanted = ranking.candidates(settings, limit)
        (vector, model), text_ids = await asyncio.gather(
            self._embed(platform, semantic_query(settings, query)),
            self._fulltext(platform, kin_id, query, wanted),
        )
        db = platform.db

        def search() -> list[tuple[Memory, float | None]]:
            similarity = self._nearest(db, kin_id, vector, model, wanted)
            ranked = ranking.fuse(settings, "hybrid", list(similarity), text_ids)
            rows = _in_use(ranked) if ranked else {}
            ids = [i for i in ranked if i in rows][:limit]
            missing = _embedded_with(db, model, [i for i in ids if i not in similarity])
            if missing:
                table = _vec_table(len(vector))
                similarity |= self.vectors.similarities(db, table, kin_id, vector, list(missing))
            return [(_memory(rows[i]), similarity.get(i)) for i in ids]

        found: list[tuple[Memory, float | None]] = await db.read(search)
        return found

    async def prompt_context(self, platform: Any, kin_id: str, query: str) -> MemoryContext:
        """Pinned, then relevant memories within the budget (``injection``)."""
        return await injection.prompt_context(self, platform, kin_id, query, _memory)

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
            platform, kin_id, memory_id, _memory, pinned=pinned, archived=archived
        )

    async def search_history(
        self,
        platform: Any,
        kin_id: str,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
    ) -> list[HistoryHit]:
        """The same hybrid search as ``recall``, over the Kin's user and assistant messages.

        Messages not embedded yet (the indexer works in the background) are found by the
        full-text signal alone; if the embedding call fails, the full-text ranking is used."""
        _check_mode(mode)
        if not query.strip() or limit < 1:
            return []
        settings = platform.settings
        wanted = ranking.candidates(settings, limit)
        embedded = semantic_query(settings, query)
        if mode == "fulltext":
            dense_search: Awaitable[list[int]] = _nothing()
        elif mode == "dense":
            dense_search = self._history_dense(platform, kin_id, embedded, wanted)
        else:
            dense_search = _or_nothing(self._history_dense(platform, kin_id, embedded, wanted))
        dense_ids, text_ids = await asyncio.gather(
            dense_search,
            self._history_fulltext(platform, kin_id, query, wanted)
            if mode != "dense"
            else _nothing(),
        )
        db = platform.db
        if mode == "hybrid":
            ids = await db.read(
                ranking.history_ranking, settings, db, kin_id, query, dense_ids, text_ids
            )
        else:
            ids = ranking.fuse(settings, mode, dense_ids, text_ids)

        def load() -> list[HistoryHit]:
            found: list[HistoryHit] = []
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows = db.sql(
                    "select id, role, sender_name, content, created_at from message "
                    f"where id in ({', '.join('?' * len(chunk))}) and kin_id = ? "
                    "and role in ('user', 'assistant')",
                    (*chunk, kin_id),
                ).fetchall()
                by_id = {row[0]: HistoryHit(*row) for row in rows}
                found += [by_id[i] for i in chunk if i in by_id]
                if len(found) >= limit:
                    break
            return found[:limit]

        hits: list[HistoryHit] = await db.read(load) if ids else []
        return hits

    async def similar(
        self, platform: Any, kin_id: str, text: str, *, limit: int = 5
    ) -> list[tuple[Memory, float]]:
        """The Kin's memories nearest to ``text`` in meaning with their cosine similarity, most
        similar first: only those embedded with the current model (others are not comparable).
        ``text`` is compared as memories are embedded: ``"<subject>: <content>"``."""
        if not text.strip() or limit < 1:
            return []
        db = platform.db
        if not _has_memories(platform, kin_id):
            return []  # nothing to compare with: spare the embedding call
        vector, model = await self._embed(platform, text)
        table = _vec_table(len(vector))

        def nearest() -> list[tuple[Memory, float]]:
            if not db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone():
                return []
            rows = db.sql(
                f"select rowid, distance from {table} where embedding match ? and k = ? "
                "and kin_id = ? order by distance",
                (vector_bytes(vector), limit, kin_id),
            ).fetchall()
            records = {
                row.id: row
                for row in MemoryRecord.select().where(
                    MemoryRecord.id.in_([memory_id for memory_id, _ in rows])
                    & (MemoryRecord.embedding_model == model)
                )
            }
            # The table's metric is cosine distance: similarity is its complement.
            return [(_memory(records[i]), 1.0 - float(d)) for i, d in rows if i in records]

        found: list[tuple[Memory, float]] = await db.read(nearest)
        return found

    # -- helpers ---------------------------------------------------------------------------

    async def _get(self, platform: Any, kin_id: str, memory_id: int) -> Memory:
        row = await platform.db.read(lambda: MemoryRecord.get_or_none(MemoryRecord.id == memory_id))
        if row is None or row.__data__["kin"] != kin_id:
            raise MemoryNotFound(f"There is no memory {memory_id}.")
        return _memory(row)

    async def _embed(self, platform: Any, text: str) -> tuple[Vector, str]:
        (vector,) = await platform.providers.embed([text])
        return vector, await platform.providers.embedding_model()

    def store_vector(self, db: Any, memory_id: int, kin_id: str, vector: Vector) -> None:
        """Store a memory's vector in the table of its size (inside a write)."""
        table = _vec_table(len(vector))
        db.sql(
            f"create virtual table if not exists {table} using vec0({vec0_columns(len(vector))})"
        )
        db.sql(f"insert into {table} (rowid, kin_id, embedding) values (?, ?, ?)",
               (memory_id, kin_id, vector_bytes(vector)))  # fmt: skip

    def _drop_vector(self, db: Any, row: MemoryRecord) -> None:
        if row.dimension:
            db.sql(f"delete from {_vec_table(row.dimension)} where rowid = ?", (row.id,))

    async def _dense(self, platform: Any, kin_id: str, query: str, wanted: int) -> list[int]:
        vector, model = await self._embed(platform, query)
        found: dict[int, float] = await platform.db.read(
            self._nearest, platform.db, kin_id, vector, model, wanted
        )
        return list(found)

    def _nearest(
        self, db: Any, kin_id: str, vector: Vector, model: str, wanted: int
    ) -> dict[int, float]:
        """The ``wanted`` memories nearest to ``vector`` with their cosine similarity, nearest
        first, among those embedded with ``model`` (inside a read)."""
        table = _vec_table(len(vector))
        exists = db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone()
        if not exists:
            return {}
        scored = self.vectors.nearest_scored(db, table, kin_id, vector, wanted)
        current = _embedded_with(db, model, list(scored))
        return {i: score for i, score in scored.items() if i in current}

    async def _history_dense(
        self, platform: Any, kin_id: str, query: str, wanted: int
    ) -> list[int]:
        (vector,) = await platform.providers.embed([query])
        table = message_vec_table(len(vector))
        db = platform.db

        def knn() -> list[int]:
            exists = db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone()
            if not exists:
                return []
            rows = db.sql(
                f"select rowid from {table} where embedding match ? and k = ? and kin_id = ? "
                "order by distance",
                (vector_bytes(vector), wanted, kin_id),
            ).fetchall()
            return [row[0] for row in rows]

        found: list[int] = await db.read(knn)
        return found

    async def _history_fulltext(
        self, platform: Any, kin_id: str, query: str, wanted: int
    ) -> list[int]:
        # Messages' terms are written a batch at a time: those still queued first.
        await platform.fulltext_queue.catch_up()
        return await _fulltext_ids(
            platform,
            "select m.id from message_fts cross join message m on m.id = message_fts.rowid "
            "where message_fts match ? and m.kin_id = ? and m.role in ('user', 'assistant') "
            "order by bm25(message_fts) limit ?",
            query,
            kin_id,
            wanted,
        )

    async def _fulltext(self, platform: Any, kin_id: str, query: str, wanted: int) -> list[int]:
        return await _fulltext_ids(
            platform,
            "select memory_fts.rowid from memory_fts "
            "cross join memory on memory.id = memory_fts.rowid "
            "where memory_fts match ? and memory.kin_id = ? order by bm25(memory_fts) limit ?",
            query,
            kin_id,
            wanted,
        )

    async def fulltext_memories(
        self, platform: Any, kin_id: str, query: str, limit: int
    ) -> list[Memory]:
        """The Kin's memories in use matching ``query`` by full-text alone, best first."""
        ids = await self._fulltext(platform, kin_id, query, limit)
        rows = await platform.db.read(_in_use, ids) if ids else {}
        return [_memory(rows[i]) for i in ids if i in rows]


def _in_use(ids: list[int]) -> dict[int, MemoryRecord]:
    """The rows of ``ids`` that are not archived, by id."""
    query = MemoryRecord.select().where(
        MemoryRecord.id.in_(ids) & MemoryRecord.archived_at.is_null()
    )
    return {row.id: row for row in query}


def _embedded_with(db: Any, model: str, ids: list[int]) -> set[int]:
    """Those of ``ids`` embedded with ``model`` (inside a read): vectors of another model are
    not comparable with a query embedded with this one."""
    if not ids:
        return set()
    rows = db.sql(
        f"select id from memory where id in ({', '.join('?' * len(ids))}) and embedding_model = ?",
        (*ids, model),
    )
    return {row[0] for row in rows}


async def _fulltext_ids(
    platform: Any, statement: str, query: str, kin_id: str, wanted: int
) -> list[int]:
    """The ids ``statement`` (parameters: the FTS5 match, the Kin, the limit) finds for the
    free-text ``query``, best first; none when the query has no word to search."""
    match = match_expression(query, drop_stop_words=platform.settings.search_drop_stop_words)
    if match is None:
        return []
    db = platform.db

    def search() -> list[int]:
        return [row[0] for row in db.sql(statement, (match, kin_id, wanted)).fetchall()]

    found: list[int] = await db.read(search)
    return found


backend = SqliteMemoryBackend()


@hookimpl
def register_memory_backends(register: Callable[[Any], None]) -> None:
    register(backend)

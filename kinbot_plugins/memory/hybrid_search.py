"""Hybrid search over a Kin's memories (``recall``) and history (``search_history``): a
sqlite-vec KNN over embeddings and an FTS5 query run together, fused by reciprocal rank
fusion (``ranking``); and the memories nearest in meaning to a text (``similar``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import MemoryRecord
from kinbot_core.fulltext import match_expression
from kinbot_core.memory import HistoryHit, Memory, MemoryError
from kinbot_core.providers import Vector
from kinbot_core.search import SEARCH_MODES, SearchMode
from kinbot_plugins.memory import ranking
from kinbot_plugins.memory.history_index import message_vec_table, vector_bytes
from kinbot_plugins.memory.query_rewrite import semantic_query
from kinbot_plugins.memory.records import memory_vec_table, to_memory
from kinbot_plugins.memory.vector_cache import VectorCache

logger = logging.getLogger(__name__)


def _has_memories(platform: Any, kin_id: str) -> bool:
    """Whether the Kin has any memory (a lookup by key, on the event loop: ``read_now``)."""
    return bool(
        platform.db.read_kept(
            "select 1 from memory where kin_id = ? limit 1", (kin_id,), [("memory", kin_id)]
        )
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


class HybridSearch:
    """The searching half of ``SqliteMemoryBackend``, which mixes it in and holds what it
    uses."""

    vectors: VectorCache

    if TYPE_CHECKING:

        async def _embed(self, platform: Any, text: str) -> tuple[Vector, str]: ...

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
        _check_mode(mode)
        if not query.strip() or limit < 1:
            return []
        if not _has_memories(platform, kin_id):
            return []  # nothing to search: spare the embedding call
        settings = platform.settings
        wanted = ranking.candidates(settings, limit)
        dense_ids, text_ids = await asyncio.gather(
            self._dense(platform, kin_id, semantic_query(settings, query), wanted, min_similarity)
            if mode != "fulltext"
            else _nothing(),
            self._fulltext(platform, kin_id, query, wanted) if mode != "dense" else _nothing(),
        )
        ids = ranking.fuse(settings, mode, dense_ids, text_ids)
        if not ids:
            return []
        rows = await platform.db.read(_in_use, ids)
        return [to_memory(rows[i]) for i in ids if i in rows][:limit]

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
                table = memory_vec_table(len(vector))
                similarity |= self.vectors.similarities(db, table, kin_id, vector, list(missing))
            return [(to_memory(rows[i]), similarity.get(i)) for i in ids]

        found: list[tuple[Memory, float | None]] = await db.read(search)
        return found

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
        """The same hybrid search as ``recall``, over the Kin's user and assistant messages.

        Messages not embedded yet (the indexer works in the background) are found by the
        full-text signal alone; if the embedding call fails, the full-text ranking is used.
        With ``min_similarity``, the semantic signal keeps only the messages whose cosine
        similarity to the query reaches it (``None``: its nearest ``search_candidates``
        whatever they are); those the full-text signal finds count whatever their meaning."""
        _check_mode(mode)
        if not query.strip() or limit < 1:
            return []
        settings = platform.settings
        wanted = ranking.candidates(settings, limit)
        embedded = semantic_query(settings, query)
        if mode == "fulltext":
            dense_search: Awaitable[list[int]] = _nothing()
        else:
            dense_search = self._history_dense(platform, kin_id, embedded, wanted, min_similarity)
            if mode == "hybrid":
                dense_search = _or_nothing(dense_search)
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
        table = memory_vec_table(len(vector))

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
            return [(to_memory(records[i]), 1.0 - float(d)) for i, d in rows if i in records]

        found: list[tuple[Memory, float]] = await db.read(nearest)
        return found

    # -- helpers ---------------------------------------------------------------------------

    async def _dense(
        self,
        platform: Any,
        kin_id: str,
        query: str,
        wanted: int,
        min_similarity: float | None = None,
    ) -> list[int]:
        """The ``wanted`` memories nearest to ``query`` in meaning, nearest first; with
        ``min_similarity``, only those whose cosine similarity to it reaches that."""
        vector, model = await self._embed(platform, query)
        found: dict[int, float] = await platform.db.read(
            self._nearest, platform.db, kin_id, vector, model, wanted
        )
        floor = -1.0 if min_similarity is None else min_similarity
        return [memory_id for memory_id, similarity in found.items() if similarity >= floor]

    def _nearest(
        self, db: Any, kin_id: str, vector: Vector, model: str, wanted: int
    ) -> dict[int, float]:
        """The ``wanted`` memories nearest to ``vector`` with their cosine similarity, nearest
        first, among those embedded with ``model`` (inside a read)."""
        table = memory_vec_table(len(vector))
        exists = db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone()
        if not exists:
            return {}
        scored = self.vectors.nearest_scored(db, table, kin_id, vector, wanted)
        current = _embedded_with(db, model, list(scored))
        return {i: score for i, score in scored.items() if i in current}

    async def _history_dense(
        self,
        platform: Any,
        kin_id: str,
        query: str,
        wanted: int,
        min_similarity: float | None = None,
    ) -> list[int]:
        """The ``wanted`` messages nearest to ``query`` in meaning, nearest first; with
        ``min_similarity``, only those whose cosine similarity to it reaches that."""
        (vector,) = await platform.providers.embed([query])
        table = message_vec_table(len(vector))
        db = platform.db

        def knn() -> list[int]:
            exists = db.sql("select 1 from sqlite_master where name = ?", (table,)).fetchone()
            if not exists:
                return []
            rows = db.sql(
                f"select rowid, distance from {table} where embedding match ? and k = ? "
                "and kin_id = ? order by distance",
                (vector_bytes(vector), wanted, kin_id),
            ).fetchall()
            # The table's metric is cosine distance: the similarity's complement.
            return [
                message_id
                for message_id, distance in rows
                if min_similarity is None or 1.0 - distance >= min_similarity
            ]

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
        return [to_memory(rows[i]) for i in ids if i in rows]


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

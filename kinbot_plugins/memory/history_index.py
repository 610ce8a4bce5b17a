"""The background indexer of dense history search: embeds session messages off the turn's path.

Triggers (migration 0008) put every new, edited or deleted user/assistant message in
``message_embedding_queue`` in the message's own transaction. One indexer per platform drains
that queue in batches: it embeds each message with its speaker and the preceding message(s) as
context, stores the vector in ``message_vec_<dimension>`` (a sqlite-vec table partitioned by
Kin, cosine distance), and removes the message from the queue in the same transaction. What a
crash or a failed embedding call leaves in the queue is simply picked up again later.

When the embedding model changes (``embedding_state`` remembers the history's), the history's
vectors are dropped and every message is queued again, and the backend's memories embedded
with another model are embedded again batch by batch; progress goes to the live feed
(``memory.embedding``) and ``progress`` reports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import struct
from array import array
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from kinbot_core.providers import ProviderConfigError, Vector
from kinbot_core.usage import attributed

logger = logging.getLogger(__name__)

#: Characters of a message (and of each context message) given to the embedding model; the
#: small local model reads about 256 word pieces anyway.
MAX_EMBEDDED_CHARS = 1000
MAX_CONTEXT_CHARS = 300
#: Seconds to wait before trying again after a failed embedding call.
RETRY_SECONDS = 30.0
#: Messages stored per write transaction: a turn's own writes wait for at most this many.
STORE_CHUNK = 8

_VEC_TABLE = re.compile(r"^message_vec_(\d+)$")


def vector_bytes(values: Vector) -> bytes:
    """A vector as sqlite-vec's float32 blob (an ``array('f')`` is those bytes already)."""
    if isinstance(values, array) and values.typecode == "f":
        return values.tobytes()
    return struct.pack(f"{len(values)}f", *values)


#: Vectors per ``vec0`` chunk (sqlite-vec's default is 1,024). Each insert rewrites part of
#: its partition's chunk blob: 64 vectors of 1,536 floats make a 384 KB blob instead of 6 MB,
#: a third of the CPU per insert and of the bytes written (``docs/benchmarks.md``, vec0
#: chunks). Tables made before keep the size they were made with.
VECTOR_CHUNK_SIZE = 64


def vec0_columns(dimension: int) -> str:
    """The columns and options of a ``vec0`` table of one vector size, partitioned by Kin."""
    return (
        f"kin_id text partition key, embedding float[{int(dimension)}] distance_metric=cosine, "
        f"chunk_size={VECTOR_CHUNK_SIZE}"
    )


def message_vec_table(dimension: int) -> str:
    """The vector table of history for one embedding size."""
    return f"message_vec_{int(dimension)}"


@dataclass(frozen=True)
class Pending:
    """A queued message as the indexer read it (``content`` is ``None`` once deleted)."""

    message_id: int
    kin_id: str | None
    content: str | None
    text: str


def embedding_text(sender: str | None, content: str, context: list[tuple[str | None, str]]) -> str:
    """What is embedded for a message: who said it and what, then the message(s) it follows.

    The message comes first, so that a model truncating long inputs cuts the context."""

    def said(name: str | None, text: str, limit: int) -> str:
        text = " ".join(text.split())[:limit]
        return f"{name}: {text}" if name else text

    lines = [said(sender, content, MAX_EMBEDDED_CHARS)]
    lines += [said(name, text, MAX_CONTEXT_CHARS) for name, text in context]
    return "\n".join(lines)


class HistoryIndexer:
    """Drains the embedding queue of one platform, in the background or on demand."""

    def __init__(
        self,
        platform: Any,
        reembed_memories: Callable[[str, int], Awaitable[int]] | None = None,
        pending_memories: Callable[[str, str | None], Awaitable[int]] | None = None,
    ) -> None:
        self._platform = platform
        self._reembed_memories = reembed_memories
        self._pending_memories = pending_memories
        self._model: str | None = None
        self._reindexing = False
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the background loop, which first catches up on what is queued (once the
        platform answers requests: ``Platform.serving``), then looks
        at the queue every ``history_embedding_poll_seconds``: new messages wait that long,
        so that the messages of busy Kins are embedded in batches, between their turns rather
        than during them (full-text search finds them at once meanwhile)."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="kinbot-history-indexer")

    async def stop(self) -> None:
        """Stop the background loop; a batch being written completes or rolls back whole."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def reembed_memories_soon(self) -> None:
        """Have the next batches embed memories stored without a vector of the current
        model (restored ones the provider could not embed at the time)."""
        self._reindexing = True

    async def pending(self, kin_id: str | None = None) -> int:
        """How many queued messages (of one Kin, or in all) wait for their embedding."""
        db = self._platform.db

        def count() -> int:
            if kin_id is None:
                row = db.sql("select count(*) from message_embedding_queue").fetchone()
            else:
                row = db.sql(
                    "select count(*) from message_embedding_queue q "
                    "join message m on m.id = q.message_id where m.kin_id = ?",
                    (kin_id,),
                ).fetchone()
            return int(row[0])

        found: int = await db.read(count)
        return found

    async def catch_up(self) -> int:
        """Embed everything queued now, batch after batch; returns how many were handled.

        Raises the provider's error if an embedding call fails (nothing is lost)."""
        total = 0
        while True:
            done = await self.index_batch()
            if done == 0:
                return total
            total += done

    async def index_batch(self) -> int:
        """Embed one batch of queued messages (and of memories embedded with another model
        than the current one); returns how many were handled."""
        async with self._lock:
            try:
                model = await self._platform.providers.embedding_model()
            except ProviderConfigError:
                return 0  # no embedding provider: nothing can be embedded yet
            await self._follow(model)
            settings = self._platform.settings
            done = await self._messages(settings)
            if self._reindexing:  # new memories are embedded with the current model anyway
                if self._reembed_memories is not None:
                    size = settings.history_embedding_batch_size
                    done += await self._reembed_memories(model, size)
                await self._publish_progress(model)
            return done

    async def progress(self, kin_id: str | None = None) -> dict[str, Any]:
        """The current embedding model and what still waits to be embedded with it."""
        try:
            model: str | None = await self._platform.providers.embedding_model()
        except ProviderConfigError:
            model = None
        memories = 0
        if model is not None and self._pending_memories is not None:
            memories = await self._pending_memories(model, kin_id)
        return {
            "model": model,
            "memories_pending": memories,
            "messages_pending": await self.pending(kin_id),
        }

    async def _publish_progress(self, model: str) -> None:
        progress = await self.progress()
        if progress["model"] != model:
            return
        if not progress["memories_pending"] and not progress["messages_pending"]:
            self._reindexing = False
        self._platform.live.publish("memory.embedding", {**progress, "done": not self._reindexing})

    async def _follow(self, model: str) -> None:
        """Start over when the embedding model has changed: vectors of different models
        cannot be compared, so the history's are dropped and every message queued again."""
        if model == self._model:
            return
        changed: bool = await self._platform.db.write(self._switch_model, model)
        self._model = model
        if changed or (
            self._pending_memories is not None and await self._pending_memories(model, None)
        ):
            logger.info("embedding model is now %s: re-embedding in the background", model)
            self._reindexing = True

    def _switch_model(self, model: str) -> bool:
        db = self._platform.db
        row = db.sql("select model from embedding_state where name = 'history'").fetchone()
        if row is not None and row[0] == model:
            return False
        if row is not None:
            for table in self._vector_tables():
                db.sql(f"delete from {table}")
            db.sql(
                "insert or ignore into message_embedding_queue (message_id) "
                "select id from message where role in ('user', 'assistant')"
            )
        db.sql(
            "insert or replace into embedding_state (name, model) values ('history', ?)", (model,)
        )
        return row is not None

    def _vector_tables(self) -> list[str]:
        db = self._platform.db
        return [
            name
            for (name,) in db.sql("select name from sqlite_master where name like 'message_vec_%'")
            if _VEC_TABLE.match(name)
        ]

    async def _messages(self, settings: Any) -> int:
        batch = await self._platform.db.read(
            self._read_batch,
            settings.history_embedding_batch_size,
            settings.history_embedding_context_messages,
        )
        if not batch:
            return 0
        # One call per Kin, so that each Kin's history counts against it, and a sub-Kin's
        # against the Kin it belongs to (kinbot_core.usage).
        owner_of = self._platform.kins.owners.of
        owners: dict[str, str] = {
            item.kin_id: owner_of(item.kin_id) for item in batch if item.kin_id
        }

        def owner(item: Pending) -> str:
            return owners.get(item.kin_id or "", "")

        batch.sort(key=owner)
        vectors: list[Vector] = []
        for kin_id, items in groupby(batch, key=owner):
            texts = [item.text for item in items if item.content is not None]
            if texts:
                with attributed(kin_id or None, origin="indexing"):
                    vectors += await self._platform.providers.embed(texts)
        # A few messages per transaction, each after the writes already waiting: a turn's
        # writes never queue behind a whole batch (kinbot_core.db.Database.write_later).
        done, remaining = 0, iter(vectors)
        for start in range(0, len(batch), STORE_CHUNK):
            chunk = batch[start : start + STORE_CHUNK]
            chunk_vectors = [next(remaining) for item in chunk if item.content is not None]
            done += await self._platform.db.write_later(self._store, chunk, iter(chunk_vectors))
        return done

    async def _loop(self) -> None:
        poll = self._platform.settings.history_embedding_poll_seconds
        await self._platform.serving.wait()  # what a previous run left waits for the server
        while True:
            try:
                done = await self.index_batch()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a provider down, say: the queue keeps everything
                logger.warning("history embedding postponed: %s", exc)
                done = 0
                await asyncio.sleep(RETRY_SECONDS)
            if done < self._platform.settings.history_embedding_batch_size:
                await asyncio.sleep(poll)  # a backlog goes batch after batch, the rest waits

    def _read_batch(self, size: int, context_messages: int) -> list[Pending]:
        db = self._platform.db
        queued = db.sql(
            "select q.message_id, m.kin_id, m.sender_name, m.content, m.role "
            "from message_embedding_queue q left join message m on m.id = q.message_id "
            # A message flagged for redaction, or whose turn has not ended (the Kin may still
            # redact a secret pasted in it), waits in the queue: its text may hold a secret
            # that must not reach an embedding provider.
            "where m.id is null or (m.redaction_pending = 0 "
            "and m.status not in ('queued', 'processing')) order by q.message_id limit ?",
            (size,),
        ).fetchall()
        batch = []
        for message_id, kin_id, sender, content, role in queued:
            if role not in ("user", "assistant") or not content.strip():  # gone, or nothing
                batch.append(Pending(message_id, None, None, ""))
                continue
            context = db.sql(
                "select sender_name, content from message where kin_id = ? and id < ? "
                "and role in ('user', 'assistant') and content != '' and redaction_pending = 0 "
                "and status not in ('queued', 'processing') "
                "order by id desc limit ?",
                (kin_id, message_id, context_messages),
            ).fetchall()
            text = embedding_text(sender, content, [(name, text) for name, text in context])
            batch.append(Pending(message_id, kin_id, content, text))
        return batch

    def _store(self, batch: list[Pending], vectors: Any) -> int:
        db = self._platform.db
        tables = self._vector_tables()
        marks = ", ".join("?" * len(batch))
        ids = [item.message_id for item in batch]
        current = dict(db.sql(f"select id, content from message where id in ({marks})", ids))
        done = 0
        for item in batch:
            vector = next(vectors) if item.content is not None else None
            if current.get(item.message_id) != item.content and item.content is not None:
                continue  # edited meanwhile: still queued, embedded again next time
            for table in tables:
                db.sql(f"delete from {table} where rowid = ?", (item.message_id,))
            if vector is not None:
                table = message_vec_table(len(vector))
                if table not in tables:
                    db.sql(
                        f"create virtual table if not exists {table} "
                        f"using vec0({vec0_columns(len(vector))})"
                    )
                    tables.append(table)
                db.sql(
                    f"insert into {table} (rowid, kin_id, embedding) values (?, ?, ?)",
                    (item.message_id, item.kin_id, vector_bytes(vector)),
                )
            db.sql("delete from message_embedding_queue where message_id = ?", (item.message_id,))
            done += 1
        return done

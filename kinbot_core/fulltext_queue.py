"""Messages' full-text terms, written a batch at a time (migration 0032).

Storing or editing a message queues it in ``message_fts_queue`` (its trigger); its terms
(``kinbot_core.fulltext``) go into ``message_fts`` with those of the other queued messages, in
one transaction: FTS5 writes a new segment for every transaction that adds rows, so one per
batch instead of one per message (about 20 µs a message instead of 100 to 190 µs, and seven
pages fewer in the write-ahead log). ``FulltextQueue`` empties the queue in the background
every ``INDEX_SECONDS`` and whenever a search asks (``catch_up``), so a search finds every
message stored before it, as when the trigger wrote the terms itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from kinbot_core.db import Database
from kinbot_core.fulltext import SQL_TERMS_FUNCTION

logger = logging.getLogger(__name__)

#: How often the background loop writes the terms of what was queued meanwhile.
INDEX_SECONDS = 2.0
#: Messages indexed per write transaction: a turn's own writes wait for at most this many.
BATCH = 256

_ANY_QUEUED = "select 1 from message_fts_queue limit 1"


def index_queued(db: Database, limit: int = BATCH) -> int:
    """Write the terms of up to ``limit`` queued messages and take them off the queue; how
    many were taken (runs on the database's writer, ``Database.write``)."""
    ids = [
        row[0]
        for row in db.sql(
            "select message_id from message_fts_queue order by message_id limit ?", (limit,)
        )
    ]
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    db.sql(
        "insert into message_fts (rowid, content, sender_name) "
        f"select id, {SQL_TERMS_FUNCTION}(content), "
        f"{SQL_TERMS_FUNCTION}(coalesce(sender_name, '')) from message where id in ({marks})",
        ids,
    )
    db.sql(f"delete from message_fts_queue where message_id in ({marks})", ids)
    return len(ids)


class FulltextQueue:
    """Empties ``message_fts_queue``: in the background while the platform runs, and on
    demand before a full-text search of messages."""

    def __init__(self, db: Database, serving: asyncio.Event) -> None:
        self._db = db
        self._serving = serving
        self._task: asyncio.Task[None] | None = None

    async def catch_up(self, *, in_background: bool = False) -> int:
        """Index everything queued now; how many messages. ``in_background``: each batch
        waits until no other write is queued (``Database.write_later``)."""
        if not self._db.read_now(_ANY_QUEUED):
            return 0  # no write transaction for nothing (the loop asks every two seconds)
        write = self._db.write_later if in_background else self._db.write
        total = 0
        while done := await write(index_queued, self._db):
            total += done
        return total

    def start(self) -> None:
        """Start the background loop (once the platform answers requests)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._periodically(), name="kinbot-fulltext-queue"
            )

    async def stop(self) -> None:
        """Stop the background loop; what is still queued waits for the next start."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _periodically(self) -> None:
        await self._serving.wait()
        while True:
            try:
                await self.catch_up(in_background=True)
            except Exception:  # the loop must outlive a failing write; the queue keeps all
                logger.exception("indexing messages for full-text search failed; retrying")
            await asyncio.sleep(INDEX_SECONDS)

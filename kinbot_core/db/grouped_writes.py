"""Writes that arrive together share one transaction (group commit).

Each ``Database.write`` used to be its own ``BEGIN IMMEDIATE`` … ``COMMIT`` on the writer
thread: when fifty Kins answer at once, beginning and committing a turn's five transactions
cost about a millisecond of CPU per turn. Writes queued while the writer thread is busy now
run together, each in a savepoint of one transaction: a write that raises takes back its own
changes only, and every write's caller hears of it only once the transaction committed.

A write of a few statements may run on the event loop's thread instead (``inline``), on the
writer's connection lent to it while the writer thread is idle: handing a write to another
thread and back costs 70 to 100 µs of CPU on two cores, more than the write itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from contextlib import AbstractContextManager
from typing import Any

import peewee

from kinbot_core.db.changes import ChangeLog

#: The most writes one transaction holds: the first of a group waits for all of them.
MAX_GROUP = 32
#: Inline writes in a row before one goes to the writer thread anyway: its commits checkpoint
#: the write-ahead log when it has grown (SQLite's automatic checkpoint, whose copying and
#: fsyncs would stall the event loop; an inline commit never checkpoints).
INLINE_IN_A_ROW = 32
#: SQLite's automatic checkpoint, in pages of the log (its default), on the writer thread.
AUTOCHECKPOINT_PAGES = 1000

_Outcome = tuple[bool, Any]  # (succeeded, its result or its exception)


class _Locked(Exception):
    """A transaction lent the writer's connection could not begin (another process writes)."""


class GroupedWrites:
    """A queue of writes for one writer thread. ``submit`` and everything that follows a
    group's end run on the event loop; only ``_on_writer_thread`` runs on the writer thread.

    The writer's connection is used under ``connection_lock`` only: by the writer thread, or
    by the event loop for an ``inline`` write or a ``read_here`` while the thread is idle."""

    def __init__(
        self,
        database: peewee.SqliteDatabase,
        writer: Executor,
        changes: ChangeLog,
        *,
        busy_timeout_ms: int,
        lend: Callable[[Any], AbstractContextManager[None]],
    ) -> None:
        """``lend(connection)``: while it lasts, the calling thread's queries (models' too)
        run on ``connection``."""
        self._database = database
        self._lend = lend
        self._writer = writer
        self._changes = changes
        self._busy_timeout_ms = busy_timeout_ms
        self._queue: deque[tuple[Callable[[], Any], asyncio.Future[Any]]] = deque()
        self._running = False
        self._idle_waiters: list[asyncio.Future[None]] = []
        #: Held while the writer's connection is in use, on whichever thread.
        self.connection_lock = threading.Lock()
        #: The writer thread's connection, once it has written (``None`` before).
        self._connection: Any = None
        #: Whether the writer's connection is set for the event loop (no busy timeout, no
        #: automatic checkpoint) or for the writer thread; ``None`` before either.
        self._set_for_loop: bool | None = None
        #: Inline writes since the writer thread's last transaction.
        self._inline_in_a_row = 0

    def submit(self, fn: Callable[[], Any], *, inline: bool = False) -> asyncio.Future[Any]:
        """Queue ``fn`` to run on the writer thread inside a transaction; the future has its
        result (or exception) once that transaction has committed. ``inline``: run it now on
        this thread instead, when the writer thread is idle and no other process holds the
        file's write lock (else it is queued as any other)."""
        future = asyncio.get_running_loop().create_future()
        if (
            inline
            and not self._running
            and not self._queue
            and self._inline_in_a_row < INLINE_IN_A_ROW
        ):
            outcome = self._run_inline(fn)
            if outcome is not None:
                _settle_one(future, outcome)
                return future
        self._queue.append((fn, future))
        if not self._running:
            self._start_group()
        return future

    def read_here(self, statement: str, params: Sequence[Any]) -> list[Any] | None:
        """The rows of a read run on the writer's connection, on this thread, when the
        writer thread leaves it idle (its page cache is warm: the other connections drop
        theirs at each of its commits); ``None`` when it does not."""
        connection = self._connection
        if connection is None or not self.connection_lock.acquire(blocking=False):
            return None
        try:
            return connection.execute(statement, params).fetchall()  # type: ignore[no-any-return]
        finally:
            self.connection_lock.release()

    def _run_inline(self, fn: Callable[[], Any]) -> _Outcome | None:
        connection = self._connection
        if connection is None or not self.connection_lock.acquire(blocking=False):
            return None
        try:
            with self._lend(connection):
                self._set_for(connection, loop=True)
                outcome = self._run(connection, [fn], give_up_when_locked=True)[0]
                self._inline_in_a_row += 1
                return outcome
        except _Locked:
            return None
        finally:
            self.connection_lock.release()

    async def idle(self) -> None:
        """Wait until every write queued so far has finished."""
        if self._running:
            waiter = asyncio.get_running_loop().create_future()
            self._idle_waiters.append(waiter)
            await waiter

    def _start_group(self) -> None:
        count = min(len(self._queue), MAX_GROUP)
        group = [self._queue.popleft() for _ in range(count)]
        self._running = True
        loop = asyncio.get_running_loop()
        calls = [fn for fn, _ in group]
        futures = [future for _, future in group]
        try:
            work = self._writer.submit(self._on_writer_thread, calls)
        except RuntimeError as exc:  # the writer was shut down
            self._settle(futures, [(False, exc)] * len(futures))
            return
        work.add_done_callback(lambda done: loop.call_soon_threadsafe(self._ended, futures, done))

    def _ended(self, futures: list[asyncio.Future[Any]], work: Future[list[_Outcome]]) -> None:
        try:
            outcomes = work.result()
        except BaseException as exc:  # the writer thread's work was cancelled
            outcomes = [(False, exc)] * len(futures)
        self._settle(futures, outcomes)

    def _settle(self, futures: list[asyncio.Future[Any]], outcomes: list[_Outcome]) -> None:
        for future, outcome in zip(futures, outcomes, strict=True):
            _settle_one(future, outcome)
        self._running = False
        if self._queue:
            self._start_group()
            return
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _on_writer_thread(self, calls: list[Callable[[], Any]]) -> list[_Outcome]:
        database = self._database
        database.connect(reuse_if_open=True)
        connection = database.connection()  # type: ignore[no-untyped-call]
        with self.connection_lock:
            self._connection = connection
            self._set_for(connection, loop=False)
            self._inline_in_a_row = 0
            return self._run(connection, calls, give_up_when_locked=False)

    def _set_for(self, connection: Any, *, loop: bool) -> None:
        """On the event loop, the writer's connection never waits for a lock (another
        process's sends the write to the writer thread) and never checkpoints the log."""
        if self._set_for_loop is loop:
            return
        busy, pages = (0, 0) if loop else (self._busy_timeout_ms, AUTOCHECKPOINT_PAGES)
        connection.execute(f"pragma busy_timeout = {int(busy)}")
        connection.execute(f"pragma wal_autocheckpoint = {pages}")
        self._set_for_loop = loop

    def _run(
        self, connection: Any, calls: list[Callable[[], Any]], *, give_up_when_locked: bool
    ) -> list[_Outcome]:
        try:
            self._changes.install(connection)
            return self._in_transaction(self._database, calls, give_up_when_locked)
        except BaseException:
            self._changes.withdraw_offers()  # rolled back
            raise
        finally:
            self._changes.publish(connection)

    def _in_transaction(
        self,
        database: peewee.SqliteDatabase,
        calls: list[Callable[[], Any]],
        give_up_when_locked: bool,
    ) -> list[_Outcome]:
        changes = self._changes
        began = False
        try:
            if len(calls) == 1:
                with database.atomic(lock_type="IMMEDIATE"):
                    began = True
                    return [(True, calls[0]())]
            outcomes: list[_Outcome] = []
            with database.atomic(lock_type="IMMEDIATE"):
                began = True
                for call in calls:
                    _execute(database, "savepoint grouped_write")
                    offers = changes.offers_made()
                    try:
                        result = call()
                    except Exception as exc:
                        _execute(database, "rollback to grouped_write")
                        changes.withdraw_offers(offers)  # what it read back is undone
                        outcomes.append((False, exc))
                    else:
                        outcomes.append((True, result))
                    _execute(database, "release grouped_write")
            return outcomes
        except Exception as exc:  # the call of a write alone, or BEGIN or COMMIT
            changes.withdraw_offers()
            if give_up_when_locked and not began:
                raise _Locked from exc  # the writer thread will wait for the lock instead
            return [(False, exc)] * len(calls)


def _settle_one(future: asyncio.Future[Any], outcome: _Outcome) -> None:
    if future.done():  # its caller was cancelled; the write happened all the same
        return
    succeeded, value = outcome
    if succeeded:
        future.set_result(value)
    else:
        future.set_exception(value)


def _execute(database: peewee.SqliteDatabase, statement: str) -> None:
    database.execute_sql(statement)  # type: ignore[no-untyped-call]

"""Writes that arrive together share one transaction (group commit).

Each ``Database.write`` used to be its own ``BEGIN IMMEDIATE`` … ``COMMIT`` on the writer
thread: when fifty Kins answer at once, beginning and committing a turn's five transactions
cost about a millisecond of CPU per turn. Writes queued while the writer thread is busy now
run together, each in a savepoint of one transaction: a write that raises takes back its own
changes only, and every write's caller hears of it only once the transaction committed.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import peewee

from kinbot_core.db.changes import ChangeLog

#: The most writes one transaction holds: the first of a group waits for all of them.
MAX_GROUP = 32

_Outcome = tuple[bool, Any]  # (succeeded, its result or its exception)


class GroupedWrites:
    """A queue of writes for one writer thread. ``submit`` and everything that follows a
    group's end run on the event loop; only ``_run`` runs on the writer thread."""

    def __init__(
        self, database: peewee.SqliteDatabase, writer: Executor, changes: ChangeLog
    ) -> None:
        self._database = database
        self._writer = writer
        self._changes = changes
        self._queue: deque[tuple[Callable[[], Any], asyncio.Future[Any]]] = deque()
        self._running = False
        self._idle_waiters: list[asyncio.Future[None]] = []

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Queue ``fn`` to run on the writer thread inside a transaction; the future has its
        result (or exception) once that transaction has committed."""
        future = asyncio.get_running_loop().create_future()
        self._queue.append((fn, future))
        if not self._running:
            self._start_group()
        return future

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
            work = self._writer.submit(self._run, calls)
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
        for future, (succeeded, value) in zip(futures, outcomes, strict=True):
            if future.done():  # its caller was cancelled; the write happened all the same
                continue
            if succeeded:
                future.set_result(value)
            else:
                future.set_exception(value)
        self._running = False
        if self._queue:
            self._start_group()
            return
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _run(self, calls: list[Callable[[], Any]]) -> list[_Outcome]:
        database = self._database
        database.connect(reuse_if_open=True)
        connection = database.connection()  # type: ignore[no-untyped-call]
        try:
            self._changes.install(connection)
            return self._in_transaction(database, calls)
        except BaseException:
            self._changes.withdraw_offers()  # rolled back
            raise
        finally:
            self._changes.publish(connection)

    def _in_transaction(
        self, database: peewee.SqliteDatabase, calls: list[Callable[[], Any]]
    ) -> list[_Outcome]:
        changes = self._changes
        try:
            if len(calls) == 1:
                with database.atomic(lock_type="IMMEDIATE"):
                    return [(True, calls[0]())]
            outcomes: list[_Outcome] = []
            with database.atomic(lock_type="IMMEDIATE"):
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
            return [(False, exc)] * len(calls)


def _execute(database: peewee.SqliteDatabase, statement: str) -> None:
    database.execute_sql(statement)  # type: ignore[no-untyped-call]

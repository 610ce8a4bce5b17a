"""A write of a few statements runs at once on the event loop's thread, on the writer's
connection, when the writer thread leaves it idle (``Database.write_inline``); otherwise it
waits its turn on the writer thread, and the event loop never waits for the file's lock."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest

from kinbot_core.db import Database
from kinbot_core.db.grouped_writes import INLINE_IN_A_ROW
from kinbot_core.db.models import KinRecord
from tests import test_database_grouped_writes
from tests.test_database_grouped_writes import note, note_then_fail, notes

db = test_database_grouped_writes.db  # a database with a table of notes


def noted_on_thread(db: Database, text: str) -> int:
    note(db, text)
    return threading.get_ident()


async def test_an_inline_write_runs_on_the_event_loop_and_is_committed(db: Database) -> None:
    statements: list[str] = []
    writer_connection = await db.write(lambda: db.peewee.connection())  # type: ignore[no-untyped-call]
    writer_connection.set_trace_callback(statements.append)
    ran_on = await db.write_inline(noted_on_thread, db, "inline")
    assert ran_on == threading.get_ident()
    assert any(statement.startswith("insert into note") for statement in statements)
    assert await db.read(notes, db) == ["inline"]  # committed: another connection sees it


async def test_an_inline_write_waits_its_turn_while_the_writer_thread_writes(
    db: Database,
) -> None:
    noted, release = threading.Event(), threading.Event()

    def note_and_hold() -> None:
        note(db, "held")
        noted.set()
        assert release.wait(30)

    held = asyncio.create_task(db.write(note_and_hold))
    assert await asyncio.to_thread(noted.wait, 30)  # the writer thread is inside its write
    queued = asyncio.create_task(db.write_inline(noted_on_thread, db, "queued"))
    await asyncio.sleep(0)
    assert not queued.done()
    # Meanwhile a lookup does not see the held transaction's row, not committed yet.
    assert db.read_now("select count(*) from note") == [(0,)]
    release.set()
    await held
    assert await queued != threading.get_ident()
    assert await db.read(notes, db) == ["held", "queued"]
    assert db.read_now("select count(*) from note") == [(2,)]


#: Another process holding the file's write lock until told to commit, or for a minute at
#: most (locks taken in this process would not stop it: POSIX locks do not conflict within a
#: process).
LOCK_HOLDER = """
import select, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("begin immediate")
print("locked", flush=True)
select.select([sys.stdin], [], [], 60)
connection.execute("commit")
"""


async def test_the_event_loop_never_waits_for_another_process_holding_the_lock(
    data_dir: Path,
) -> None:
    """Were the event loop to wait for the lock (busy timeout of two minutes here), it would
    stand still until the other process gives up after a minute, then write inline."""
    db = Database(data_dir / "kinbot.db", busy_timeout=120.0)
    await db.open()
    try:
        await db.write(lambda: db.sql("create table note (text text not null)"))
        await held_by_another_process(db, data_dir)
    finally:
        await db.close()


async def held_by_another_process(db: Database, data_dir: Path) -> None:
    await db.write_inline(note, db, "first")  # the writer's connection is known from now on
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LOCK_HOLDER, str(data_dir / "kinbot.db"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdin is not None and holder.stdout is not None
    assert await holder.stdout.readline() == b"locked\n"
    writing = asyncio.create_task(db.write_inline(noted_on_thread, db, "after the other"))
    for _ in range(3):
        await asyncio.sleep(0)  # the loop goes on: the write waits on the writer thread
    assert not writing.done()
    holder.stdin.write(b"commit\n")
    await holder.wait()
    assert await writing != threading.get_ident()
    assert await db.read(notes, db) == ["first", "after the other"]
    assert await db.write_inline(noted_on_thread, db, "again") == threading.get_ident()


async def test_a_failed_inline_write_changes_nothing_and_the_loop_still_cannot_query_models(
    db: Database,
) -> None:
    await db.write(note, db, "kept")
    with pytest.raises(ValueError, match="this write fails"):
        await db.write_inline(note_then_fail, db)
    assert await db.read(notes, db) == ["kept"]
    # Models may be queried inside an inline write; outside, on the loop, they still fail.
    assert await db.write_inline(lambda: KinRecord.select().count()) == 0
    with pytest.raises(AttributeError, match="uninitialized Proxy"):
        KinRecord.select().count()
    assert db.read_now("select text from note") == [("kept",)]


def noted_big(db: Database) -> int:
    db.sql("insert into note (text) values (?)", ("x" * 200_000,))  # about 50 pages
    return threading.get_ident()


async def test_inline_commits_leave_the_checkpoint_to_the_writer_thread(
    db: Database, data_dir: Path
) -> None:
    """In WAL mode only a checkpoint writes the database file. The event loop's commits never
    make one (its copying and fsyncs would stall the loop): the writer thread's do, and
    every ``INLINE_IN_A_ROW``-th write goes there for it."""
    await db.write_inline(note, db, "first")
    main_file = data_dir / "kinbot.db"
    before = main_file.stat()
    threads = [await db.write_inline(noted_big, db) for _ in range(INLINE_IN_A_ROW - 1)]
    assert set(threads) == {threading.get_ident()}  # about 1,550 pages into the log
    after = main_file.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert await db.write_inline(noted_big, db) != threading.get_ident()
    assert main_file.stat().st_size > before.st_size  # the writer thread's commit checkpointed
    assert await db.write_inline(noted_big, db) == threading.get_ident()

"""Writes queued together share one transaction, each in its own savepoint
(``kinbot_core.db.grouped_writes``): each caller gets its own result or error, a failed
write takes back only its own changes, and nothing queued is lost when the database closes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from kinbot_core.db import Database


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    database = Database(data_dir / "kinbot.db")
    await database.open()
    await database.write(lambda: database.sql("create table note (text text not null)"))
    yield database
    await database.close()


def held_write(db: Database, statements: list[str]) -> tuple[threading.Event, Callable[[], None]]:
    """A write that keeps the writer thread busy until the event is set (the writes queued
    meanwhile form the next group), and from then on notes in ``statements`` each statement
    the writer's connection runs."""
    release = threading.Event()

    def hold() -> None:
        connection = db.peewee.connection()  # type: ignore[no-untyped-call]
        connection.set_trace_callback(statements.append)
        assert release.wait(30)

    return release, hold


def note(db: Database, text: str) -> str:
    db.sql("insert into note (text) values (?)", (text,))
    return text


def begun(statements: list[str]) -> int:
    """How many transactions ``statements`` began."""
    return sum(1 for statement in statements if statement.upper().startswith("BEGIN"))


def notes(db: Database) -> list[str]:
    return [row[0] for row in db.sql("select text from note order by rowid")]


async def test_writes_queued_together_share_one_transaction_and_each_get_their_result(
    db: Database,
) -> None:
    statements: list[str] = []
    release, hold = held_write(db, statements)
    first = asyncio.create_task(db.write(hold))
    await asyncio.sleep(0)  # the held write is running: the next ones queue behind it
    queued = [asyncio.create_task(db.write(note, db, f"note {n}")) for n in range(5)]
    await asyncio.sleep(0)
    release.set()
    await first
    assert await asyncio.gather(*queued) == [f"note {n}" for n in range(5)]
    assert begun(statements) == 1
    assert sum(1 for statement in statements if statement.startswith("savepoint")) == 5
    assert await db.read(notes, db) == [f"note {n}" for n in range(5)]
    statements.clear()
    assert await db.write(note, db, "alone") == "alone"  # nothing queued: a transaction alone
    assert begun(statements) == 1
    assert not any(statement.startswith("savepoint") for statement in statements)


def note_then_fail(db: Database) -> None:
    note(db, "taken back")
    raise ValueError("this write fails")


async def test_a_failed_write_in_a_group_takes_back_only_its_own_changes(db: Database) -> None:
    release, hold = held_write(db, [])
    first = asyncio.create_task(db.write(hold))
    await asyncio.sleep(0)
    before = asyncio.create_task(db.write(note, db, "before"))
    failing = asyncio.create_task(db.write(note_then_fail, db))
    after = asyncio.create_task(db.write(note, db, "after"))
    await asyncio.sleep(0)
    release.set()
    await first
    assert await before == "before"
    with pytest.raises(ValueError, match="this write fails"):
        await failing
    assert await after == "after"
    assert await db.read(notes, db) == ["before", "after"]


async def test_a_write_alone_that_fails_changes_nothing(db: Database) -> None:
    with pytest.raises(ValueError, match="this write fails"):
        await db.write(note_then_fail, db)
    assert await db.read(notes, db) == []


async def test_a_cancelled_caller_does_not_undo_its_queued_write(db: Database) -> None:
    release, hold = held_write(db, [])
    first = asyncio.create_task(db.write(hold))
    await asyncio.sleep(0)
    gone = asyncio.create_task(db.write(note, db, "kept"))
    await asyncio.sleep(0)
    gone.cancel()
    release.set()
    await first
    with pytest.raises(asyncio.CancelledError):
        await gone
    await db.write(note, db, "next")
    assert await db.read(notes, db) == ["kept", "next"]


async def test_closing_finishes_every_queued_write(data_dir: Path) -> None:
    db = Database(data_dir / "kinbot.db")
    await db.open()
    await db.write(lambda: db.sql("create table note (text text not null)"))
    statements: list[str] = []
    release, hold = held_write(db, statements)
    first = asyncio.create_task(db.write(hold))
    await asyncio.sleep(0)
    queued = [asyncio.create_task(db.write(note, db, f"note {n}")) for n in range(40)]
    await asyncio.sleep(0)
    closing = asyncio.create_task(db.close())
    await asyncio.sleep(0)
    release.set()
    await closing
    await asyncio.gather(first, *queued)
    assert begun(statements) == 2  # at most 32 writes a transaction
    reopened = Database(data_dir / "kinbot.db")
    await reopened.open()
    try:
        assert len(await reopened.read(notes, reopened)) == 40
    finally:
        await reopened.close()

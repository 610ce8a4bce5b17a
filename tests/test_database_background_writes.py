"""Background writes (``Database.write_later``) give way to the writes waiting or running, so
that a turn's writes never queue behind a backlog of background work."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.db import Database


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    database = Database(data_dir / "kinbot.db")
    await database.open()
    yield database
    await database.close()


async def test_a_background_write_waits_for_the_writes_queued_before_and_after_it(
    db: Database,
) -> None:
    release = threading.Event()
    order: list[str] = []

    def record(name: str, hold: bool = False) -> None:
        if hold:
            assert release.wait(30)
        order.append(name)

    # Tasks start in this order: the first write holds the writer thread, the background
    # write comes next, then another write.
    first = asyncio.create_task(db.write(record, "first", True))
    later = asyncio.create_task(db.write_later(record, "background"))
    second = asyncio.create_task(db.write(record, "second"))
    await asyncio.sleep(0)  # let them all reach the database
    release.set()
    await asyncio.gather(first, later, second)
    assert order == ["first", "second", "background"]


async def test_a_background_write_runs_at_once_when_nothing_else_writes(db: Database) -> None:
    assert await db.write_later(lambda: db.sql("select 41 + 1").fetchone()[0]) == 42

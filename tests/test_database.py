"""The database: driver choice, sqlite-vec and FTS5 on every connection, WAL, migrations, loop."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import struct
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.db import Database, DatabaseDriverError, driver
from kinbot_core.db.database import MIGRATIONS_DIR
from kinbot_core.db.models import PluginState, User


def vector(*values: float) -> bytes:
    return struct.pack(f"{len(values)}f", *values)


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    database = Database(data_dir / "kinbot.db", read_workers=2)
    await database.open()
    yield database
    await database.close()


async def test_sqlite_vec_knn_and_fts5_work_on_the_same_file(db: Database) -> None:
    def setup() -> None:
        db.sql("create virtual table memo_vec using vec0(embedding float[3])")
        db.sql("create virtual table memo_fts using fts5(body)")
        for rowid, (values, body) in enumerate(
            [
                ((1.0, 0.0, 0.0), "Nicolas is vegetarian"),
                ((0.0, 1.0, 0.0), "the grocery budget is 600 euros"),
                ((0.9, 0.1, 0.0), "Marie is allergic to peanuts"),
            ],
            start=1,
        ):
            db.sql("insert into memo_vec(rowid, embedding) values (?, ?)", (rowid, vector(*values)))
            db.sql("insert into memo_fts(rowid, body) values (?, ?)", (rowid, body))

    await db.write(setup)

    def knn() -> list[int]:
        rows = db.sql(
            "select rowid from memo_vec where embedding match ? and k = 2 order by distance",
            (vector(1.0, 0.05, 0.0),),
        ).fetchall()
        return [row[0] for row in rows]

    def full_text() -> list[int]:
        sql = "select rowid from memo_fts where memo_fts match ?"
        return [row[0] for row in db.sql(sql, ("budget",))]

    assert await db.read(knn) == [1, 3]
    assert await db.read(full_text) == [2]


async def test_the_data_directory_is_private(db: Database, data_dir: Path) -> None:
    assert stat.S_IMODE(os.stat(data_dir).st_mode) == 0o700
    for name in ("kinbot.db", "kinbot.db-wal", "kinbot.db-shm"):
        assert stat.S_IMODE(os.stat(data_dir / name).st_mode) == 0o600


async def test_the_file_is_in_wal_mode_with_foreign_keys(db: Database) -> None:
    info = await db.info()
    assert info.journal_mode == "wal"
    assert info.fts5
    assert info.sqlite_vec_version.startswith("v")
    foreign_keys = await db.read(lambda: db.sql("pragma foreign_keys").fetchone())
    assert foreign_keys == (1,)


async def test_migrations_are_applied_once_and_recorded(data_dir: Path) -> None:
    every_migration = sorted(path.stem for path in MIGRATIONS_DIR.glob("[0-9]*.py"))
    first = Database(data_dir / "kinbot.db")
    assert await first.open() == every_migration
    await first.write(lambda: PluginState.create(name="metrics", enabled=False, updated_at=1.0))
    await first.close()
    again = Database(data_dir / "kinbot.db")
    assert await again.open() == []
    assert (await again.info()).migrations == every_migration
    assert await again.read(lambda: PluginState.get_by_id("metrics").enabled) is False
    await again.close()


def test_each_migration_is_its_own_numbered_file() -> None:
    names = sorted(path.name for path in MIGRATIONS_DIR.glob("[0-9]*.py"))
    assert names[0] == "0001_base.py"
    numbers = [int(name.split("_", 1)[0]) for name in names]
    assert numbers == list(range(1, len(names) + 1))


async def test_a_failed_write_rolls_back_entirely(db: Database) -> None:
    def half_done() -> None:
        PluginState.create(name="a", enabled=True, updated_at=1.0)
        raise RuntimeError("crash in the middle")

    with pytest.raises(RuntimeError):
        await db.write(half_done)
    assert await db.read(lambda: PluginState.select().count()) == 0


async def test_constraints_hold(db: Database) -> None:
    def user(email: str) -> None:
        User.create(
            id=email, email=email, first_name="N", last_name="D", pseudonym="nico",
            password_hash="x", role="admin",
        )  # fmt: skip

    await db.write(user, "nico@example.org")
    with pytest.raises(Exception, match="UNIQUE"):
        await db.write(user, "NICO@example.org")


async def test_a_query_runs_off_the_event_loop(data_dir: Path) -> None:
    released = threading.Event()
    database = Database(data_dir / "kinbot.db")
    database.peewee.register_function(lambda: int(released.wait(10)), "wait_for_loop", 0)
    await database.open()
    try:
        query = asyncio.create_task(
            database.read(lambda: database.sql("select wait_for_loop()").fetchone())
        )
        await asyncio.sleep(0)
        # Only a free event loop can get here while the query waits; a query run on the
        # loop would have waited its full 10 s and returned 0.
        released.set()
        assert await query == (1,)
    finally:
        await database.close()


async def test_models_cannot_be_queried_on_the_event_loop_thread(db: Database) -> None:
    with pytest.raises(AttributeError, match="uninitialized Proxy"):
        PluginState.select().count()
    assert await db.read(lambda: PluginState.select().count()) == 0


async def test_a_lookup_by_key_runs_on_the_loop_and_sees_committed_writes(
    tmp_path: Path,
) -> None:
    """``read_now``: plain SQL on the event loop's thread (on the writer's connection when
    the writer thread leaves it idle), which sees what the writer committed, each database
    its own, and refuses once the database is closed."""
    first = Database(tmp_path / "one" / "kinbot.db")
    second = Database(tmp_path / "two" / "kinbot.db")
    await first.open()
    await second.open()
    lookup = "select enabled from plugin_state where name = ?"
    try:
        assert first.read_now(lookup, ("a",)) == []
        await first.write(lambda: PluginState.create(name="a", enabled=True, updated_at=1.0))
        assert first.read_now(lookup, ("a",)) == [(1,)]
        assert second.read_now(lookup, ("a",)) == []
    finally:
        await first.close()
        await second.close()
    with pytest.raises(RuntimeError, match="closed"):
        first.read_now(lookup, ("a",))


async def test_two_databases_in_one_process_stay_apart(tmp_path: Path) -> None:
    first = Database(tmp_path / "one" / "kinbot.db")
    second = Database(tmp_path / "two" / "kinbot.db")
    await first.open()
    await second.open()
    try:
        await first.write(lambda: PluginState.create(name="a", enabled=True, updated_at=1.0))
        assert await first.read(lambda: PluginState.select().count()) == 1
        assert await second.read(lambda: PluginState.select().count()) == 0
    finally:
        await first.close()
        await second.close()


class StandardModuleWithoutExtensions:
    """A ``sqlite3`` module whose connections cannot load extensions (pyenv's default build)."""

    __name__ = "sqlite3"
    Connection = type("Connection", (), {})


def test_without_an_extension_capable_driver_start_up_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(driver, "_candidates", lambda: [StandardModuleWithoutExtensions])
    with pytest.raises(DatabaseDriverError, match="pysqlite3-binary"):
        driver.select_driver()


async def test_a_python_whose_sqlite3_cannot_load_extensions_runs_on_pysqlite3(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """pyenv's default build, say: ``make`` prefers the distribution's Python, so the whole
    suite may run on the standard module, and this keeps the other path tried for real."""
    pysqlite3 = pytest.importorskip("pysqlite3.dbapi2")  # installed on Linux x86_64
    candidates = [StandardModuleWithoutExtensions, pysqlite3]
    monkeypatch.setattr(driver, "_candidates", lambda: candidates)
    await test_migrations_are_applied_once_and_recorded(data_dir)
    (data_dir / "other").mkdir()
    database = Database(data_dir / "other" / "kinbot.db", read_workers=2)
    await database.open()
    try:
        assert database.driver is pysqlite3
        await test_sqlite_vec_knn_and_fts5_work_on_the_same_file(database)
    finally:
        await database.close()


def test_this_pythons_own_sqlite3_is_checked_for_real() -> None:
    chosen = driver.select_driver()
    assert hasattr(chosen.Connection, "enable_load_extension")
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        assert chosen.__name__ == "pysqlite3.dbapi2"
    assert driver.check_driver(chosen).startswith("v")

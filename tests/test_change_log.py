"""The writer's change log: each transaction's changed rows are told once it ended, a write
that failed included, and a reader whose position is older than what is remembered is told
to read everything anew."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

import pytest

from kinbot_core.db.changes import TRACKED, ChangeLog
from kinbot_core.db.models import KinRecord, MessageRecord
from kinbot_core.kins.read_back import kin_read_back
from kinbot_core.kins.views import KIN_COLUMNS
from kinbot_core.platform import Platform
from tests.test_contacts import add_kin


async def test_a_write_is_told_by_table_key_and_row(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    other = await add_kin(platform, "Jardinier")
    changes = platform.db.changes
    before = changes.position()
    message = await platform.kins.add_message(kin, role="user", source="user", content="Salut")
    assert changes.position() > before
    assert changes.changed_since(before, "message", kin)
    assert changes.changed_since(before, "message")
    assert not changes.changed_since(before, "message", other)
    assert not changes.changed_since(before, "compacting_snapshot", kin)
    assert changes.rows_changed_since(before, "message", kin) == {message.id}
    assert changes.rows_changed_since(before, "message", other) == set()
    now = changes.position()
    assert changes.rows_changed_since(now, "message", kin) == set()


async def test_a_failed_write_is_told_too(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    message = await platform.kins.add_message(kin, role="user", source="user", content="Salut")
    before = platform.db.changes.position()

    def edit_then_fail() -> None:
        MessageRecord.update(content="Autre").where(MessageRecord.id == message.id).execute()
        raise ValueError("taken back")

    with pytest.raises(ValueError, match="taken back"):
        await platform.db.write(edit_then_fail)
    assert platform.db.changes.rows_changed_since(before, "message", kin) == {message.id}


def test_rows_forgotten_are_told_as_unknown() -> None:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    for table in TRACKED:
        connection.execute(f"create table {table} (id integer primary key, kin_id text)")
    changes = ChangeLog(retained_rows=2)
    changes.install(connection)
    start = changes.position()
    for _ in range(3):
        connection.execute("insert into message (kin_id) values ('chef')")
        changes.publish(connection)
    assert changes.rows_changed_since(start, "message", "chef") is None
    assert changes.changed_since(start, "message", "chef")
    assert changes.rows_changed_since(changes.position() - 1, "message", "chef") == {3}
    connection.execute("update message set kin_id = 'chef' where id = 2")
    changes.publish(connection)
    assert changes.rows_changed_since(changes.position() - 1, "message", "chef") == {2}


async def test_a_kept_read_is_read_again_once_its_rows_changed(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    other = await add_kin(platform, "Jardinier")
    name = "select name from kin where id = ?"

    async def rename(kin_id: str, new_name: str) -> None:
        await platform.db.write(
            lambda: KinRecord.update(name=new_name).where(KinRecord.id == kin_id).execute()
        )

    assert platform.db.read_kept(name, (kin,), [("kin", kin)]) == [("Chef",)]
    await rename(other, "Paysagiste")  # another Kin's row: the answer is kept
    assert platform.db.read_kept(name, (kin,), [("kin", kin)]) == [("Chef",)]
    await rename(kin, "Cuisinier")
    assert platform.db.read_kept(name, (kin,), [("kin", kin)]) == [("Cuisinier",)]
    with pytest.raises(ValueError, match="usage_record"):
        platform.db.read_kept("select 1 from usage_record", (), [("usage_record", None)])


def test_a_table_made_later_is_tracked_from_the_next_write() -> None:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.execute("create table message (id integer primary key, kin_id text)")
    changes = ChangeLog()
    changes.install(connection)
    connection.execute("create table kin (id text primary key)")  # a migration, say
    changes.schema_changed()
    start = changes.position()
    changes.install(connection)  # the next write
    connection.execute("insert into kin (id) values ('chef')")
    changes.publish(connection)
    assert changes.changed_since(start, "kin", "chef")
    assert not changes.changed_since(start, "kin", "other")


async def test_a_row_read_back_is_offered_only_while_it_reads_so(platform: Platform) -> None:
    """What a write read back of a row it changed is served for the row until anything else
    changes it: a later write of the same transaction, or a rollback of its own."""
    kin = await add_kin(platform, "Chef")
    db = platform.db
    renamed = f"update kin set name = ? where id = ? returning {KIN_COLUMNS}"

    def read_back(name: str, fail: bool = False) -> Callable[[], None]:
        def write() -> None:
            kin_read_back(db, db.sql(renamed, (name, kin)).fetchone())
            if fail:
                raise ValueError("taken back")

        return write

    await db.write(read_back("Un"))
    offered = db.changes.offered("kin", kin)
    assert offered is not None and offered[1].name == "Un"
    # Queued behind the first, the next three share one transaction, each in a savepoint.
    outcomes = await asyncio.gather(
        db.write(read_back("Deux")),
        db.write(read_back("Trois")),
        db.write(read_back("Quatre", fail=True)),
        db.write(lambda: None),
        return_exceptions=True,
    )
    assert isinstance(outcomes[2], ValueError)
    # "Trois" was changed after it was read back (then taken back: told all the same), and
    # "Quatre" was taken back: nothing is offered, the row is read.
    assert db.changes.offered("kin", kin) is None
    assert (await platform.kins.get(kin)).name == "Trois"
    await db.write(read_back("Trois"))
    assert db.changes.offered("kin", kin) is not None
    await db.write(lambda: KinRecord.update(role="Cook").where(KinRecord.id == kin).execute())
    assert db.changes.offered("kin", kin) is None  # changed since, without a read-back
    with pytest.raises(ValueError, match="taken back"):
        await db.write(read_back("Cinq", fail=True))
    assert db.changes.offered("kin", kin) is None
    assert (await platform.kins.get(kin)).name == "Trois"

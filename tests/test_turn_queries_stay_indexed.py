"""The statements every turn runs find their rows through an index, so that a turn's cost does
not grow with the number of messages stored (every session's, not only its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.db import Database

#: What a turn asks about the messages its trigger produced: the newest one
#: (``KinService.latest_of_turn``) and its newest step (``approvals.gate.unanswered_calls``).
PER_TURN = [
    "select max(id) from message where turn_of = ?",
    'SELECT "t1"."id" FROM "message" AS "t1" WHERE ((("t1"."turn_of" = ?) AND NOT '
    '"t1"."superseded") AND ("t1"."role" = ?)) ORDER BY "t1"."id" DESC LIMIT ?',
]


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    database = Database(data_dir / "kinbot.db")
    await database.open()
    yield database
    await database.close()


@pytest.mark.parametrize("statement", PER_TURN)
async def test_the_messages_of_a_turn_are_found_through_an_index(
    db: Database, statement: str
) -> None:
    params = (1,) if statement.count("?") == 1 else (1, "assistant", 1)
    plan = await db.read(
        lambda: [row[3] for row in db.sql(f"explain query plan {statement}", params)]
    )
    assert any("INDEX message_turn_of" in step for step in plan), plan

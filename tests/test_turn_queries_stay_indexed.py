"""The statements every turn runs find their rows through an index, so that a turn's cost does
not grow with the number of messages stored (every session's, not only its own), nor with a
Kin's contacts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.channels.delivery_rows import ANY_AWAITING
from kinbot_core.db import Database
from kinbot_core.kins.claims import ANY_QUEUED, TURN_PROGRESS
from kinbot_core.kins.session_rows import _ACTIVE_SUMMARY, _AFTER_CUT, _SIZE_AFTER_CUT

#: Statements run for every turn, their parameters, and the index each must be answered from.
PER_TURN = [
    # The messages its trigger produced: whether any, and the newest (``claims.take_next``), and
    # its newest step (``approvals.gate.unanswered_calls``).
    (TURN_PROGRESS, (1,), "INDEX message_turn_of"),
    (
        'SELECT "t1"."id" FROM "message" AS "t1" WHERE ((("t1"."turn_of" = ?) AND NOT '
        '"t1"."superseded") AND ("t1"."role" = ?)) ORDER BY "t1"."id" DESC LIMIT ?',
        (1, "assistant", 1),
        "INDEX message_turn_of",
    ),
    # Whether anything waits in the Kin's queue (``KinService.claim_next``).
    (ANY_QUEUED, ("kin",), "INDEX message_queue"),
    # Whether a channel delivery waits for a turn to end (``ChannelDeliveries.reconcile``).
    (ANY_AWAITING, (), "INDEX channel_delivery_status"),
    # The session after the compacting cut (``session_rows``) and its size after the turn
    # (``session_size``), read on the event loop.
    (_ACTIVE_SUMMARY, ("kin",), "INDEX compacting_snapshot_kin"),
    (_AFTER_CUT, ("kin", 0, 200), "INDEX message_position"),
    (_SIZE_AFTER_CUT, ("kin", 0), "INDEX message_position"),
]


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    database = Database(data_dir / "kinbot.db")
    await database.open()
    yield database
    await database.close()


@pytest.mark.parametrize(("statement", "params", "index"), PER_TURN)
async def test_what_a_turn_asks_is_found_through_an_index(
    db: Database, statement: str, params: tuple[object, ...], index: str
) -> None:
    plan = await db.read(
        lambda: [row[3] for row in db.sql(f"explain query plan {statement}", params)]
    )
    assert any(index in step for step in plan), plan

"""A Kin's session window and its own view are kept between turns and brought up to date from
the rows the writer changed: whatever changes (content, status, a flag, a retry, a deletion,
the compacting cut, another process writing the file), the next read is what a fresh read
finds."""

from __future__ import annotations

import random
import sqlite3
import time
from typing import Any

import peewee
import pytest

from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.db.models import KinRecord, MessageRecord
from kinbot_core.kins.session_rows import session_size
from kinbot_core.kins.session_window import SessionWindows
from kinbot_core.kins.sessions import _HISTORY
from kinbot_core.kins.views import MessageView, TurnEnd
from kinbot_core.platform import Platform
from tests.test_contacts import add_kin


async def test_the_session_read_at_each_turn_follows_every_change(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    for text in ("Une question", "Une autre"):
        await platform.kins.add_message(kin, role="user", source="user", content=text)
    before = (await platform.compacting.session(kin, 200)).messages
    assert [view.content for view in before] == ["Une question", "Une autre"]
    await platform.db.write(
        lambda: (
            MessageRecord.update(content="Corrigée", redaction_pending=True)
            .where(MessageRecord.id == before[0].id)
            .execute()
        )
    )
    after = (await platform.compacting.session(kin, 200)).messages
    assert [(view.content, view.redaction_pending) for view in after] == [
        ("Corrigée", True),
        ("Une autre", False),
    ]
    assert after[1] is before[1]  # an unchanged message keeps its view


async def test_a_full_window_takes_back_an_older_message_when_one_leaves(
    platform: Platform,
) -> None:
    kin = await add_kin(platform, "Chef")
    ids = [
        (await platform.kins.add_message(kin, role="user", source="user", content=f"m{n}")).id
        for n in range(4)
    ]
    assert [view.id for view in (await platform.compacting.session(kin, 2)).messages] == ids[2:]
    await platform.db.write(
        lambda: MessageRecord.update(superseded=True).where(MessageRecord.id == ids[3]).execute()
    )
    assert [view.id for view in (await platform.compacting.session(kin, 2)).messages] == [
        ids[1],
        ids[2],
    ]


async def test_a_new_summary_moves_the_cut(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    for n in range(3):
        await platform.kins.add_message(kin, role="user", source="user", content=f"m{n}")
    assert len((await platform.compacting.session(kin, 10)).messages) == 3

    def compacted() -> None:
        CompactingSnapshot.create(
            kin=kin, kind="summary", summary="Résumé", through_position=2, active=True,
            created_at=time.time(),
        )  # fmt: skip

    await platform.db.write(compacted)
    session = await platform.compacting.session(kin, 10)
    assert (session.summary, [view.content for view in session.messages]) == ("Résumé", ["m2"])


@pytest.mark.parametrize("size", [3, 200])
async def test_every_change_is_seen_as_a_fresh_read_sees_it(platform: Platform, size: int) -> None:
    """Random inserts, edits, retries, deletions and status changes, with a window smaller
    and larger than the session: after each, the kept window reads as a fresh one."""
    kin = await add_kin(platform, "Chef")
    chance = random.Random(size)
    kept_reads = platform.compacting.session
    for step in range(120):
        ids = [row.id for row in await platform.db.read(lambda: list(MessageRecord.select()))]
        action = chance.choice(["add", "add", "edit", "status", "supersede", "restore", "delete"])
        if action == "add" or not ids:
            await platform.kins.add_message(kin, role="user", source="user", content=f"m{step}")
        else:
            target = chance.choice(ids)
            changes: dict[str, dict[str, Any]] = {
                "edit": {"content": f"edited {step}"},
                "status": {"status": chance.choice(["queued", "processing", "done"])},
                "supersede": {"superseded": True},
                "restore": {"superseded": False},
            }
            query: peewee.Query = (
                MessageRecord.delete().where(MessageRecord.id == target)
                if action == "delete"
                else MessageRecord.update(**changes[action]).where(MessageRecord.id == target)
            )
            await platform.db.write(query.execute)
        kept = (await kept_reads(kin, size)).messages
        fresh = SessionWindows(platform.db).read(kin, size)[1]  # read whole, nothing kept
        assert kept == fresh, (step, action)
        # The Kin's last messages and its session's size are taken from the kept window.
        history = platform.db.read_now(_HISTORY, (kin, 2))
        expected = [MessageView.from_row(row) for row in reversed(history)]
        assert await platform.kins.history(kin, 2) == expected, (step, action)
        kept_size = platform.kins.windows.size(kin)
        assert kept_size in (None, session_size(platform.db, kin)), (step, action)
        assert kept_size is not None or size == 3


async def test_a_kin_read_again_is_the_same_view_until_its_row_changes(
    platform: Platform,
) -> None:
    kin = await add_kin(platform, "Chef")
    first = await platform.kins.get(kin)
    assert await platform.kins.get(kin) is first
    await platform.db.write(
        lambda: (
            KinRecord.update(tools='["recall"]', state="thinking")
            .where(KinRecord.id == kin)
            .execute()
        )
    )
    changed = await platform.kins.get(kin)
    assert (changed.tools, changed.state) == (("recall",), "thinking")
    assert (await platform.kins.get(kin)) is changed


async def test_another_process_writing_the_file_is_seen_at_the_next_write(
    platform: Platform,
) -> None:
    kin = await add_kin(platform, "Chef")
    assert (await platform.kins.get(kin)).name == "Chef"
    with sqlite3.connect(platform.db.path) as other:
        other.execute("update kin set name = 'Cuisinier' where id = ?", (kin,))
    await platform.kins.add_message(kin, role="user", source="user", content="Bonjour")
    assert (await platform.kins.get(kin)).name == "Cuisinier"


async def test_what_a_turns_writes_read_back_is_served_without_a_lookup(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn's claim and end read back the rows they change (``kinbot_core.kins.read_back``):
    the Kin and its window are then served as a fresh read finds them, without a lookup."""
    kin = await add_kin(platform, "Chef")
    kins = platform.kins
    kins.workers = None  # the test claims the messages, as a Kin's worker does
    await kins.add_message(kin, role="user", source="user", content="Bonjour")
    kins.windows.read(kin, 200)
    await kins.get(kin)
    await kins.enqueue(kin, "Une question", source="user", sender_id=None, sender_name="Nico")
    claimed = await kins.claim_next(kin)
    assert claimed is not None
    lookups: list[str] = []
    read_now = platform.db.read_now

    def counted(statement: str, params: Any = ()) -> list[Any]:
        lookups.append(statement)
        return read_now(statement, params)

    monkeypatch.setattr(platform.db, "read_now", counted)
    assert await kins.get(kin) is claimed.kin  # the claim's view of the Kin (thinking)
    await kins.add_message(
        kin,
        role="assistant",
        source="kin",
        content="Une réponse",
        turn_of=claimed.message.id,
        ends=TurnEnd(claimed.message.id, "done", state="idle"),
    )
    after = await kins.get(kin)
    _summary, window = kins.windows.read(kin, 200)
    assert lookups == []
    assert after.state == "idle"
    fresh = [MessageView.from_row(row) for row in reversed(read_now(_HISTORY, (kin, 200)))]
    assert window == fresh
    assert [(m.content, m.status) for m in window][-2:] == [
        ("Une question", "done"),
        ("Une réponse", "done"),
    ]


async def test_a_row_read_back_then_changed_again_is_looked_up(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    kins = platform.kins
    kins.workers = None  # the test claims the message, as a Kin's worker does
    await kins.enqueue(kin, "Une question", source="user", sender_id=None, sender_name="Nico")
    claimed = await kins.claim_next(kin)
    assert claimed is not None

    def rename() -> None:
        KinRecord.update(name="Cuisinier").where(KinRecord.id == kin).execute()

    await platform.db.write(rename)  # a write that does not read it back
    assert (await kins.get(kin)).name == "Cuisinier"
    assert (await kins.get(kin)).state == "thinking"

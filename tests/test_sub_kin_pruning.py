"""Ended sub-Kins are deleted after the retention period, on a real SQLite file: their hidden
Kin row, session and the tasks they spawned go; the task row and the result delivered to
the parent's session stay; a task still running, or ended too recently, keeps its sub-Kin."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from kinbot_core.config import load_settings
from kinbot_core.db.models import KinRecord, MessageRecord, TaskRecord
from kinbot_core.platform import Platform

DAY = 86400.0
NOW = time.time()


@dataclass(frozen=True)
class Spawned:
    task_id: str
    session_kin_id: str


def _kin(**fields: object) -> str:
    kin_id = uuid.uuid4().hex
    KinRecord.create(id=kin_id, name="Chef", model="openai:gpt-test", workspace="/tmp", **fields)
    return kin_id


def _task(parent: str, identity: str, status: str, ended: float | None) -> Spawned:
    """A task as ``TaskService.spawn`` leaves it: the task row, the sub-Kin's hidden row with
    its session, and, once ended, its result in the parent's session."""
    task_id = f"task_{uuid.uuid4().hex}"
    TaskRecord.create(
        id=task_id,
        parent_kin=parent,
        kin=identity,
        title="Find a recipe",
        description="Something with leeks",
        mode="await",
        model="openai:gpt-test",
        status=status,
        depth=1,
        created_at=NOW - 60 * DAY,
        ended_at=ended,
        result="Leek gratin" if status == "completed" else None,
    )
    session = _kin(task_id=task_id)
    TaskRecord.update(session_kin=session).where(TaskRecord.id == task_id).execute()
    MessageRecord.create(kin=session, role="user", source="kin", content="Find a recipe")
    MessageRecord.create(kin=session, role="assistant", source="kin", content="Leek gratin")
    if status == "completed":
        MessageRecord.create(
            kin=parent, role="user", source="task", content="Result: Leek gratin", task_id=task_id
        )
    return Spawned(task_id, session)


def _exists(kin_id: str) -> bool:
    return KinRecord.get_or_none(KinRecord.id == kin_id) is not None


def _messages_of(kin_id: str) -> int:
    return int(MessageRecord.select().where(MessageRecord.kin == kin_id).count())


async def test_ended_sub_kins_go_after_the_retention_and_the_parent_keeps_the_result(
    platform: Platform,
) -> None:
    assert platform.settings.sub_kin_retention_days == 30

    def build() -> dict[str, object]:
        parent = _kin()
        old = _task(parent, parent, "completed", NOW - 31 * DAY)
        # The old sub-Kin spawned a task of its own: pruned with it.
        nested = _task(old.session_kin_id, parent, "completed", NOW - 31 * DAY)
        recent = _task(parent, parent, "completed", NOW - 29 * DAY)
        running = _task(parent, parent, "in_progress", None)
        # Ended long ago, but a sub-task of its sub-Kin still runs: kept whole.
        waiting = _task(parent, parent, "cancelled", NOW - 40 * DAY)
        still_running = _task(waiting.session_kin_id, parent, "in_progress", None)
        return {
            "parent": parent,
            "old": old,
            "nested": nested,
            "recent": recent,
            "running": running,
            "waiting": waiting,
            "still_running": still_running,
        }

    made = await platform.db.write(build)
    old, nested = made["old"], made["nested"]
    assert isinstance(old, Spawned) and isinstance(nested, Spawned)
    parent = str(made["parent"])

    pruned = await platform.sub_kin_pruning.prune_now()

    assert sorted(pruned) == sorted([old.session_kin_id, nested.session_kin_id])

    def check() -> None:
        # The sub-Kins' rows and sessions are gone...
        assert not _exists(old.session_kin_id)
        assert not _exists(nested.session_kin_id)
        assert _messages_of(old.session_kin_id) == 0
        assert _messages_of(nested.session_kin_id) == 0
        # ...the task the parent asked for stays, with its result, and so does the parent's
        # session with the result delivered to it.
        task = TaskRecord.get_by_id(old.task_id)
        assert task.result == "Leek gratin"
        assert task.__data__["session_kin"] is None
        delivered = MessageRecord.select().where(
            (MessageRecord.kin == parent) & (MessageRecord.task_id == old.task_id)
        )
        assert [m.content for m in delivered] == ["Result: Leek gratin"]
        assert _exists(parent)
        # The task the pruned sub-Kin spawned went with it.
        assert TaskRecord.get_or_none(TaskRecord.id == nested.task_id) is None
        # Too recent, still running, or with a running sub-task: untouched.
        for name in ("recent", "running", "waiting", "still_running"):
            kept = made[name]
            assert isinstance(kept, Spawned)
            assert _exists(kept.session_kin_id), name
            assert _messages_of(kept.session_kin_id) == 2, name

    await platform.db.read(check)

    # A running task's sub-Kin is never pruned, however old the task.
    running, recent = made["running"], made["recent"]
    assert isinstance(running, Spawned) and isinstance(recent, Spawned)
    later = await platform.sub_kin_pruning.prune_now(now=NOW + 3650 * DAY)
    assert later == [recent.session_kin_id]
    assert await platform.db.read(_exists, running.session_kin_id)


async def test_a_retention_of_zero_keeps_every_sub_kin(data_dir: Path) -> None:
    platform = Platform(load_settings(data_dir=data_dir, sub_kin_retention_days=0))
    await platform.start()
    try:

        def build() -> Spawned:
            parent = _kin()
            return _task(parent, parent, "completed", NOW - 400 * DAY)

        old = await platform.db.write(build)
        assert await platform.sub_kin_pruning.prune_now() == []
        assert await platform.db.read(_exists, old.session_kin_id)
    finally:
        await platform.stop()

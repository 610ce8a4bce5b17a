"""An existing database upgraded by migration 0033: the usage recorded against sub-Kins'
hidden Kin rows (their history's indexing) moves to the Kin each belongs to, and the usage
summary and the Kin's budget count it there; a Kin that was really deleted keeps its rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playhouse.migrations import Runner

from kinbot_core.db import Database
from kinbot_core.db.database import MIGRATIONS_DIR
from kinbot_core.usage.summaries import Period, month_start, spent_since, summarise

MIGRATION = "0033_sub_kin_usage_to_owner"


def a_family_with_tasks(db: Database, now: float) -> None:
    """Banker with two ended tasks whose indexing was recorded against their hidden rows,
    one call of its own, and a call of a Kin deleted since."""
    db.sql(
        "insert into kin (id, name, model, workspace, created_at, updated_at) "
        "values ('banker', 'Banker', 'gpt-4o', '/tmp/banker', 1, 1)"
    )
    for n in (1, 2):
        db.sql(
            "insert into task (id, parent_kin_id, kin_id, title, description, mode, model, "
            "status, depth, created_at) values "
            f"('task_{n}', 'banker', 'banker', 'Rates', 'Compare', 'await', 'gpt-4o', "
            "'completed', 1, 1)"
        )
        db.sql(
            "insert into kin (id, name, model, workspace, task_id, created_at, updated_at) "
            f"values ('session_{n}', 'Banker', 'gpt-4o', '/tmp/banker', 'task_{n}', 1, 1)"
        )
        db.sql(f"update task set session_kin_id = 'session_{n}' where id = 'task_{n}'")
    for kin_id, origin in (
        ("session_1", "indexing"),
        ("session_2", "indexing"),
        ("banker", "user"),
        ("gone", "user"),
    ):
        db.sql(
            "insert into usage_record (created_at, day, kind, provider, model, kin_id, "
            "origin, input_tokens, cost) values (?, '2025-01-01', 'embedding', 'OpenAI', "
            "'text-embedding-3-small', ?, ?, 12, 0.25)",
            (now, kin_id, origin),
        )


async def test_usage_of_sub_kins_moves_to_the_kin_they_belong_to(data_dir: Path) -> None:
    names = sorted(path.stem for path in MIGRATIONS_DIR.glob("[0-9]*.py"))
    before = names[names.index(MIGRATION) - 1]
    await asyncio.to_thread(data_dir.mkdir)
    old = Database(data_dir / "kinbot.db")
    await old.read(lambda: Runner(old.peewee, directory=str(MIGRATIONS_DIR)).up(target=before))
    now = month_start() + 60
    await old.write(a_family_with_tasks, old, now)
    await old.close()

    upgraded = Database(data_dir / "kinbot.db")
    assert MIGRATION in await upgraded.open()
    try:
        period = Period.this_month()
        summary = await upgraded.read(summarise, upgraded, period)
        by_kin = [(k["kin_id"], k["name"], k["calls"]) for k in summary["by_kin"]]
        assert sorted(by_kin, key=str) == [("banker", "Banker", 3), ("gone", None, 1)]
        spent = await upgraded.read(
            spent_since, upgraded, month_start(), scope="kin", target_id="banker"
        )
        assert spent == pytest.approx(0.75)
    finally:
        await upgraded.close()

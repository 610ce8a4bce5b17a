"""Memories that earn their place, at a fair price: a per-Kin override of the compacting
model, a memory's pin and archive marks, and how often (and when last) each memory was
injected into a prompt and recalled by the recall tool."""

from typing import Any

STATEMENTS = [
    "alter table kin add column compacting_model text",
    # Pinned: always injected (within the budget, first). Archived: never injected nor
    # recalled, still listed, restorable.
    "alter table memory add column pinned integer not null default 0",
    "alter table memory add column archived_at real",
    """
    create table memory_usage (
        memory_id integer primary key references memory (id) on delete cascade,
        kin_id text not null references kin (id) on delete cascade,
        injected_count integer not null default 0,
        recalled_count integer not null default 0,
        last_injected_at real,
        last_recalled_at real
    )
    """,
    "create index memory_usage_kin on memory_usage (kin_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

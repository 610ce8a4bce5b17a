"""Long-term memory extraction: a per-Kin model override, the per-Kin watermark of what was
already mined for memories, and the log of every dedup/merge decision."""

from typing import Any

STATEMENTS = [
    "alter table kin add column memory_extraction_model text",
    # The last message position of the Kin's session already mined for memories.
    """
    create table memory_extraction_state (
        kin_id text primary key references kin (id) on delete cascade,
        last_position integer not null default 0,
        failures integer not null default 0,
        last_error text,
        updated_at real not null
    )
    """,
    """
    create table memory_decision (
        id integer primary key autoincrement,
        kin_id text not null references kin (id) on delete cascade,
        action text not null check (action in ('added', 'merged', 'duplicate')),
        memory_id integer references memory (id) on delete set null,
        content text not null,
        category text not null,
        subject text not null default '',
        source_message_id integer references message (id) on delete set null,
        similarity real,
        model text not null,
        created_at real not null
    )
    """,
    "create index memory_decision_kin on memory_decision (kin_id, id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

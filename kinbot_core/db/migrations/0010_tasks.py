"""Sub-Kin tasks: the task table, the hidden Kin row each sub-Kin runs as (``kin.task_id``),
and the task a session message comes from or is about (``message.task_id``)."""

from typing import Any

STATEMENTS = [
    "alter table kin add column task_id text",
    "alter table message add column task_id text",
    """
    create table task (
        id text primary key,
        parent_kin_id text not null references kin (id) on delete cascade,
        kin_id text not null references kin (id) on delete cascade,
        session_kin_id text references kin (id) on delete set null,
        parent_task_id text references task (id) on delete cascade,
        cron_id text,
        title text not null,
        description text not null,
        mode text not null check (mode in ('await', 'async', 'cron')),
        model text not null,
        status text not null
            check (status in ('pending', 'in_progress', 'completed', 'failed', 'cancelled')),
        depth integer not null,
        awaiting_input integer not null default 0,
        input_requests integer not null default 0,
        reported_in_turn integer,
        result text,
        error text,
        created_at real not null,
        started_at real,
        ended_at real
    )
    """,
    "create index task_status on task (status, created_at)",
    "create index task_parent on task (parent_kin_id, status)",
    "create unique index task_session on task (session_kin_id)",
    "create index kin_task on kin (task_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

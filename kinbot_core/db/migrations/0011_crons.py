"""Scheduled crons (specification section 8) and their runs.

A run row is written for every scheduled time a cron reached, whatever became of it (run,
skipped, failed): the unique ``(cron_id, scheduled_for)`` makes sure a scheduled time is
handled once, even across restarts.
"""

from typing import Any

STATEMENTS = [
    """
    create table cron (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        name text not null,
        schedule text not null,
        timezone text,
        task_description text not null,
        model text,
        active integer not null default 0,
        needs_confirmation integer not null default 0,
        confirmed_by_id text references user (id) on delete set null,
        confirmed_at real,
        created_by_user_id text references user (id) on delete set null,
        created_by_kin_id text references kin (id) on delete set null,
        activated_at real,
        last_scheduled_for real,
        last_run_at real,
        last_run_status text,
        last_task_id text,
        last_skip_at real,
        last_skip_reason text,
        created_at real not null,
        updated_at real not null
    )
    """,
    "create index cron_kin on cron (kin_id)",
    "create index cron_active on cron (active, needs_confirmation)",
    """
    create table cron_run (
        id integer primary key autoincrement,
        cron_id text not null references cron (id) on delete cascade,
        scheduled_for real not null,
        status text not null
            check (status in ('starting', 'running', 'completed', 'failed', 'cancelled',
                              'skipped')),
        task_id text,
        skip_reason text,
        error text,
        missed integer not null default 0,
        started_at real not null,
        ended_at real,
        unique (cron_id, scheduled_for)
    )
    """,
    "create index cron_run_status on cron_run (status)",
    "create index cron_run_task on cron_run (task_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

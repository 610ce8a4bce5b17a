"""Scheduled backups (``kinbot_core/backup``): the administrator's schedule (one row, off by
default; the archives' passphrase sealed under the master key) and the record of each backup
run, for the list in Settings and the last backup on ``/api/health``."""

from typing import Any

STATEMENTS = [
    """
    create table backup_settings (
        id integer primary key check (id = 1),
        enabled integer not null default 0,
        interval_hours real not null default 24,
        keep integer not null default 7,
        target_dir text,
        passphrase_sealed blob,
        updated_at real not null
    )
    """,
    """
    create table backup_run (
        id integer primary key autoincrement,
        trigger text not null check (trigger in ('scheduled', 'manual')),
        status text not null check (status in ('running', 'done', 'failed')),
        started_at real not null,
        finished_at real,
        file_name text,
        size integer,
        error_code text
    )
    """,
    "create index backup_run_started on backup_run (started_at)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

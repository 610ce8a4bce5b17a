"""Messages carry structured facts for the UI (``meta``, JSON: a task's result, a failed
turn's error code, a stopped reply) and whether a retry replaced them (``superseded``: kept
visible, left out of the Kin's context)."""

from typing import Any

STATEMENTS = [
    "alter table message add column meta text",
    "alter table message add column superseded integer not null default 0",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

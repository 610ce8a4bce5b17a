"""Messages carry structured facts for the UI (``meta``, JSON: a task's result, a failed
turn's error code, a stopped reply) and whether a retry replaced them (``superseded``: kept
visible, left out of the Kin's context). A Kin's last error gets its code too
(``last_error_code``), for the UI to word it."""

from typing import Any

STATEMENTS = [
    "alter table message add column meta text",
    "alter table message add column superseded integer not null default 0",
    "alter table kin add column last_error_code text",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""Tools that need a person's approval (``kinbot_core/approvals``): the rules an administrator
sets (platform-wide when ``kin_id`` is null, else for one Kin) and the requests a Kin's calls
made, each waiting in the database until someone decides or it expires. A message whose turn
waits for a decision has ``status = 'waiting'``, which the message table's check now allows
(widened as migration 0022 widened ``source``: SQLite cannot alter a check constraint).
"""

from typing import Any

STATEMENTS = [
    """
    create table tool_approval_rule (
        id integer primary key autoincrement,
        kin_id text references kin (id) on delete cascade,
        tool_name text not null,
        mode text not null check (mode in ('ask', 'allow')),
        updated_by_id text references user (id) on delete set null,
        updated_at real not null
    )
    """,
    # A null kin_id is distinct from every other null to SQLite's unique: coalesce it.
    "create unique index tool_approval_rule_scope on tool_approval_rule "
    "(coalesce(kin_id, ''), tool_name)",
    """
    create table tool_approval (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        trigger_id integer not null references message (id) on delete cascade,
        tool_call_id text not null,
        tool_name text not null,
        arguments text not null,
        reason text,
        asked_by text,
        status text not null default 'pending'
            check (status in ('pending', 'allowed', 'always', 'declined', 'expired')),
        decline_reason text,
        decided_by_id text references user (id) on delete set null,
        created_at real not null,
        expires_at real not null,
        decided_at real,
        unique (trigger_id, tool_call_id)
    )
    """,
    "create index tool_approval_pending on tool_approval (status, expires_at)",
    "create index tool_approval_kin on tool_approval (kin_id, status)",
]
STATUSES_BEFORE = "check (status in ('queued', 'processing', 'done', 'failed', 'cancelled'))"
STATUSES_AFTER = (
    "check (status in ('queued', 'processing', 'done', 'failed', 'cancelled', 'waiting'))"
)


def allow_waiting_status(db: Any) -> None:
    """Widen the check on ``message.status`` to take ``'waiting'``."""
    version = db.execute_sql("pragma schema_version").fetchone()[0]
    db.execute_sql("pragma writable_schema = on")
    try:
        changed = db.execute_sql(
            "update sqlite_schema set sql = replace(sql, ?, ?) "
            "where type = 'table' and name = 'message' and instr(sql, ?) > 0",
            (STATUSES_BEFORE, STATUSES_AFTER, STATUSES_BEFORE),
        ).rowcount
        if changed != 1:
            raise RuntimeError("the message table's check on status is not the expected one")
        db.execute_sql(f"pragma schema_version = {int(version) + 1}")
    finally:
        db.execute_sql("pragma writable_schema = off")


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)
    allow_waiting_status(db)

"""Invitations: one-time, expiring codes an administrator gives to future users."""

from typing import Any

STATEMENTS = [
    """
    create table invitation (
        id text primary key,
        code_hash text not null unique,
        role text not null default 'member' check (role in ('admin', 'member')),
        note text,
        created_by_id text references user (id) on delete set null,
        created_at real not null,
        expires_at real not null,
        used_at real,
        used_by_id text references user (id) on delete set null,
        revoked_at real
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

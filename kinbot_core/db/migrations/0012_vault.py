"""The Vault: named secrets, each value encrypted under the master key."""

from typing import Any

STATEMENTS = [
    """
    create table vault_secret (
        id text primary key,
        key text not null unique,
        value_sealed blob not null,
        description text not null default '',
        created_by text references user (id) on delete set null,
        created_at real not null,
        updated_at real not null,
        last_used_at real
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""Secrets detected in incoming messages, sealed until a Kin stores them in the Vault or a
member says they are not secrets (``kinbot_core/vault/pending.py``)."""

from typing import Any

STATEMENTS = [
    """
    create table pending_secret (
        id text primary key,
        message_id integer not null references message (id) on delete cascade,
        number integer not null,
        kind text not null,
        value_sealed blob not null,
        created_at real not null,
        unique (message_id, number)
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

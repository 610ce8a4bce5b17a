"""Inbound webhooks: secret URLs whose requests become messages in a Kin's queue
(``kinbot_core/webhooks``). The token is kept as a hash, the signing secret sealed. Their
messages have ``source = 'webhook'``, which the message table's check now allows.

SQLite cannot alter a check constraint; widening one (every stored row still satisfies it)
is done as SQLite documents for removing constraints ("Making other kinds of table schema
changes", sqlite.org/lang_altertable.html): the table's SQL is edited in the schema under
``writable_schema`` and the schema version raised, so every connection reads it again. The
stored rows are untouched.
"""

from typing import Any

STATEMENTS = [
    """
    create table webhook (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        name text not null,
        token_hash text not null unique,
        signing_secret_sealed blob,
        max_body_bytes integer not null,
        enabled integer not null default 1,
        created_by_id text references user (id) on delete set null,
        created_at real not null,
        updated_at real not null,
        last_received_at real,
        received_count integer not null default 0
    )
    """,
    "create index webhook_kin on webhook (kin_id)",
]
SOURCES_BEFORE = "check (source in ('user', 'kin', 'task', 'cron', 'system'))"
SOURCES_AFTER = "check (source in ('user', 'kin', 'task', 'cron', 'system', 'webhook'))"


def allow_webhook_source(db: Any) -> None:
    """Widen the check on ``message.source`` to take ``'webhook'``."""
    version = db.execute_sql("pragma schema_version").fetchone()[0]
    db.execute_sql("pragma writable_schema = on")
    try:
        changed = db.execute_sql(
            "update sqlite_schema set sql = replace(sql, ?, ?) "
            "where type = 'table' and name = 'message' and instr(sql, ?) > 0",
            (SOURCES_BEFORE, SOURCES_AFTER, SOURCES_BEFORE),
        ).rowcount
        if changed != 1:
            raise RuntimeError("the message table's check on source is not the expected one")
        db.execute_sql(f"pragma schema_version = {int(version) + 1}")
    finally:
        db.execute_sql("pragma writable_schema = off")


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)
    allow_webhook_source(db)

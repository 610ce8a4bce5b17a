"""Compacting: snapshots of each Kin's summary layer, and the redaction flag of messages."""

from typing import Any

STATEMENTS = [
    "alter table message add column redaction_pending integer not null default 0",
    """
    create table compacting_snapshot (
        id integer primary key autoincrement,
        kin_id text not null references kin (id) on delete cascade,
        kind text not null check (kind in ('summary', 'purge')),
        summary text not null default '',
        through_position integer not null,
        through_message_id integer,
        messages_folded integer not null default 0,
        tokens_before integer not null default 0,
        summary_tokens integer not null default 0,
        model text,
        active integer not null default 0,
        created_at real not null
    )
    """,
    "create index compacting_snapshot_kin on compacting_snapshot (kin_id, id)",
    # At most one active snapshot per Kin.
    """
    create unique index compacting_snapshot_active on compacting_snapshot (kin_id)
        where active = 1
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

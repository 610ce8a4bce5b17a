"""What every turn asks, answered without reading a table through.

``contact_version``: a number per Kin that triggers move whenever one of its contacts is
added, edited or deleted, by any writer (the contacts service, a Kin import, a cascade). A
turn reads it to know whether the Kin's prompt's contacts section can be reused: one row,
however many contacts (counting them and taking their latest ``updated_at`` read every one).

``channel_delivery (status)``, in place of the partial index on the open deliveries: SQLite
uses a partial index only for a query that repeats its condition, and none of the queries
for ``status = 'awaiting'`` or ``'pending'`` did, so each read the whole table (every
delivery ever sent). One of them runs after every turn."""

from typing import Any

STATEMENTS = [
    """
    create table contact_version (
        kin_id text primary key references kin (id) on delete cascade,
        version integer not null
    )
    """,
    "insert into contact_version (kin_id, version) select distinct kin_id, 1 from contact",
    # A deleted Kin's contacts go by cascade while its row here goes too: deletes and updates
    # only move an existing number, so that none is written back for a Kin being deleted.
    """
    create trigger contact_version_insert after insert on contact begin
        insert into contact_version (kin_id, version) values (new.kin_id, 1)
        on conflict (kin_id) do update set version = version + 1;
    end
    """,
    """
    create trigger contact_version_update after update on contact begin
        update contact_version set version = version + 1
        where kin_id in (old.kin_id, new.kin_id);
    end
    """,
    """
    create trigger contact_version_delete after delete on contact begin
        update contact_version set version = version + 1 where kin_id = old.kin_id;
    end
    """,
    "drop index if exists channel_delivery_open",
    "create index if not exists channel_delivery_status on channel_delivery (status)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""Two indexes for what every turn asks.

``contact (kin_id, updated_at)``: whether a Kin's contacts changed (their count and latest
``updated_at``) before its prompt's contacts section is reused. The index alone answers it;
before, each of the Kin's contact rows was read, so a turn cost more the more contacts.

``channel_delivery (status)``, in place of the partial index on the open deliveries: SQLite
uses a partial index only for a query that repeats its condition, and none of the queries
for ``status = 'awaiting'`` or ``'pending'`` did, so each read the whole table (every
delivery ever sent). One of them runs after every turn."""

from typing import Any


def up(migrator: Any, db: Any) -> None:
    db.execute_sql("create index if not exists contact_kin_updated on contact (kin_id, updated_at)")
    db.execute_sql("drop index if exists channel_delivery_open")
    db.execute_sql(
        "create index if not exists channel_delivery_status on channel_delivery (status)"
    )

"""Inter-Kin messaging: what kind of Kin message a queued message is (a request, an inform, a
reply), its request id and its chain depth; and the persisted requests, so that a request
stays answerable across a restart."""

from typing import Any

STATEMENTS = [
    "alter table message add column kin_message_type text",
    "alter table message add column request_id text",
    "alter table message add column chain_depth integer",
    """
    create table kin_request (
        id text primary key,
        from_kin_id text not null references kin (id) on delete cascade,
        to_kin_id text not null references kin (id) on delete cascade,
        status text not null check (status in ('open', 'answered')),
        chain_depth integer not null,
        created_at real not null,
        answered_at real
    )
    """,
    "create index kin_request_to on kin_request (to_kin_id, status)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

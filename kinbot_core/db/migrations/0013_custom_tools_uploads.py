"""A Kin's own tools (scripts of its workspace) and the files users upload into chats,
referenced from their message."""

from typing import Any

STATEMENTS = [
    """
    create table custom_tool (
        id integer primary key autoincrement,
        kin_id text not null references kin (id) on delete cascade,
        name text not null,
        description text not null,
        parameters text not null,
        path text not null,
        created_at real not null,
        updated_at real not null,
        unique (kin_id, name)
    )
    """,
    """
    create table upload (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        uploaded_by_id text references user (id) on delete set null,
        filename text not null,
        mime_type text not null,
        kind text not null check (kind in ('image', 'pdf', 'document')),
        size integer not null,
        text text,
        created_at real not null
    )
    """,
    "create index upload_kin on upload (kin_id)",
    "alter table message add column attachments text",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

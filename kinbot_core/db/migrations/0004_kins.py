"""Kins, their continuous sessions (messages, which are also the queue) and contacts."""

from typing import Any

STATEMENTS = [
    """
    create table kin (
        id text primary key,
        name text not null,
        role text not null default '',
        avatar_path text,
        character text not null default '',
        expertise text not null default '',
        model text not null,
        tools text not null default '[]',
        workspace text not null,
        state text not null default 'idle' check (state in ('idle', 'thinking', 'error')),
        last_error text,
        created_by_id text references user (id) on delete set null,
        created_at real not null,
        updated_at real not null
    )
    """,
    """
    create table message (
        id integer primary key autoincrement,
        kin_id text not null references kin (id) on delete cascade,
        role text not null check (role in ('user', 'assistant', 'tool', 'system')),
        source text not null check (source in ('user', 'kin', 'task', 'cron', 'system')),
        sender_id text,
        sender_name text,
        content text not null default '',
        tool_calls text,
        tool_call_id text,
        is_error integer not null default 0,
        status text not null default 'done'
            check (status in ('queued', 'processing', 'done', 'failed', 'cancelled')),
        priority integer not null default 1,
        turn_of integer references message (id) on delete set null,
        position integer,
        created_at real not null,
        processed_at real
    )
    """,
    "create index message_session on message (kin_id, id)",
    "create index message_queue on message (kin_id, status, priority, id)",
    "create index message_position on message (kin_id, position)",
    """
    create table contact (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        name text not null,
        type text not null check (type in ('human', 'kin')),
        linked_id text,
        relation text not null default '',
        notes text not null default '',
        facts text not null default '[]',
        preferences text not null default '[]',
        created_at real not null,
        updated_at real not null
    )
    """,
    "create index contact_kin on contact (kin_id, name)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

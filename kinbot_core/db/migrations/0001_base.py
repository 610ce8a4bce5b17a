"""Base tables: users, browser sessions, settings and plugin states."""

from typing import Any

STATEMENTS = [
    """
    create table user (
        id text primary key,
        email text not null unique collate nocase,
        first_name text not null,
        last_name text not null,
        pseudonym text not null,
        language text not null default 'en' check (language in ('en', 'fr')),
        password_hash text not null,
        role text not null default 'member' check (role in ('admin', 'member')),
        avatar_path text,
        is_active integer not null default 1,
        created_at real not null,
        updated_at real not null
    )
    """,
    """
    create table browser_session (
        id text primary key,
        user_id text not null references user (id) on delete cascade,
        created_at real not null,
        last_seen_at real not null,
        expires_at real not null,
        ip text,
        user_agent text
    )
    """,
    "create index browser_session_user on browser_session (user_id)",
    """
    create table setting (
        key text primary key,
        value text not null,
        updated_at real not null
    )
    """,
    """
    create table plugin_state (
        name text primary key,
        enabled integer not null,
        updated_at real not null
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

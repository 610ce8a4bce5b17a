"""Providers: configured AI and search providers, their encrypted configuration and models."""

from typing import Any

STATEMENTS = [
    """
    create table provider (
        id text primary key,
        kind text not null check (kind in ('ai', 'search')),
        type text not null,
        name text not null unique collate nocase,
        config_sealed blob not null,
        secret_hints text not null default '{}',
        capabilities text not null default '[]',
        models text,
        models_fetched_at real,
        created_at real not null,
        updated_at real not null
    )
    """,
    "create index provider_kind on provider (kind, created_at)",
    """
    create table onboarding_step (
        step text primary key,
        state text not null check (state in ('done', 'skipped')),
        updated_at real not null
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

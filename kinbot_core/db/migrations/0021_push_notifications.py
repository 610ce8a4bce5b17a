"""Web Push notifications: the instance's VAPID key pair (its private half sealed under the
master key), each person's push subscriptions (one per browser or installed app, their keys
sealed) and each person's notification preference and route."""

from typing import Any

STATEMENTS = [
    """
    create table vapid_key (
        id integer primary key check (id = 1),
        public_key text not null,
        private_sealed blob not null,
        created_at real not null
    )
    """,
    """
    create table push_subscription (
        id text primary key,
        user_id text not null references user (id) on delete cascade,
        endpoint text not null unique,
        keys_sealed blob not null,
        device_label text not null default '',
        created_at real not null,
        last_success_at real,
        last_failure_at real
    )
    """,
    "create index push_subscription_user on push_subscription (user_id)",
    """
    create table notification_preference (
        user_id text primary key references user (id) on delete cascade,
        mode text not null default 'always' check (mode in ('always', 'away', 'never')),
        route text not null default 'push',
        updated_at real not null
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

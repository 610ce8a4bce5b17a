"""Messaging channels (``kinbot_core/channels``): configured connections and the Kins they
talk to, linked platform identities, pending pairings, the platform messages already taken
in (so none is stored twice) and the deliveries of replies (so none is lost or sent twice).
Uploads may now be audio (voice notes), so the ``upload`` table is rebuilt with that kind."""

from typing import Any

STATEMENTS = [
    """
    create table channel_connection (
        id text primary key,
        type text not null,
        label text not null,
        settings text not null,
        enabled integer not null default 1,
        state text not null default 'stopped',
        last_error_code text,
        last_error_at real,
        cursor text,
        created_at real not null,
        updated_at real not null
    )
    """,
    """
    create table channel_binding (
        id integer primary key autoincrement,
        connection_id text not null references channel_connection (id) on delete cascade,
        kin_id text not null references kin (id) on delete cascade,
        position integer not null,
        unique (connection_id, kin_id)
    )
    """,
    """
    create table channel_identity (
        id text primary key,
        connection_id text not null references channel_connection (id) on delete cascade,
        platform_user_id text not null,
        display_name text not null,
        user_id text references user (id) on delete cascade,
        contact_id text references contact (id) on delete cascade,
        chat_id text,
        linked_by text,
        created_at real not null,
        unique (connection_id, platform_user_id),
        check ((user_id is null) <> (contact_id is null))
    )
    """,
    "create index channel_identity_user on channel_identity (user_id)",
    """
    create table channel_pairing (
        id text primary key,
        connection_id text not null references channel_connection (id) on delete cascade,
        platform_user_id text not null,
        display_name text not null,
        chat_id text not null,
        language text,
        code_hash text not null unique,
        created_at real not null,
        expires_at real not null,
        unique (connection_id, platform_user_id)
    )
    """,
    """
    create table channel_inbound (
        id integer primary key autoincrement,
        connection_id text not null references channel_connection (id) on delete cascade,
        platform_message_id text not null,
        message_id integer references message (id) on delete set null,
        created_at real not null,
        unique (connection_id, platform_message_id)
    )
    """,
    """
    create table channel_delivery (
        id integer primary key autoincrement,
        connection_id text not null references channel_connection (id) on delete cascade,
        chat_id text not null,
        kin_id text references kin (id) on delete cascade,
        trigger_id integer references message (id) on delete cascade,
        reply_to text,
        status text not null check (status in ('awaiting', 'pending', 'sent', 'failed')),
        text text,
        attachments text,
        parts_sent integer not null default 0,
        platform_ids text not null default '[]',
        attempts integer not null default 0,
        next_attempt_at real not null default 0,
        last_error_code text,
        created_at real not null,
        updated_at real not null
    )
    """,
    "create index channel_delivery_open on channel_delivery (status) where status in "
    "('awaiting', 'pending')",
    "create index channel_delivery_trigger on channel_delivery (trigger_id)",
    # The upload table again, with audio among its kinds (SQLite cannot alter a check).
    """
    create table upload_with_audio (
        id text primary key,
        kin_id text not null references kin (id) on delete cascade,
        uploaded_by_id text references user (id) on delete set null,
        filename text not null,
        mime_type text not null,
        kind text not null check (kind in ('image', 'pdf', 'document', 'audio')),
        size integer not null,
        text text,
        created_at real not null
    )
    """,
    "insert into upload_with_audio select id, kin_id, uploaded_by_id, filename, mime_type, kind,"
    " size, text, created_at from upload",
    "drop table upload",
    "alter table upload_with_audio rename to upload",
    "create index upload_kin on upload (kin_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""Long-term memories (with full-text and vector indexes) and full-text search of sessions."""

from typing import Any

STATEMENTS = [
    """
    create table memory (
        id integer primary key autoincrement,
        kin_id text not null references kin (id) on delete cascade,
        content text not null,
        category text not null check (category in ('fact', 'preference', 'decision', 'knowledge')),
        subject text not null default '',
        source_message_id integer references message (id) on delete set null,
        embedding_model text,
        dimension integer,
        created_at real not null,
        updated_at real not null
    )
    """,
    "create index memory_kin on memory (kin_id, category, subject)",
    # Full-text index of memories; rows are kept in step by the memory backend.
    """
    create virtual table memory_fts using fts5(
        content, subject, tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    # Full-text index of every session's messages, kept in step by triggers.
    """
    create virtual table message_fts using fts5(
        content, content = 'message', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    """
    create trigger message_fts_insert after insert on message begin
        insert into message_fts (rowid, content) values (new.id, new.content);
    end
    """,
    """
    create trigger message_fts_delete after delete on message begin
        insert into message_fts (message_fts, rowid, content)
            values ('delete', old.id, old.content);
    end
    """,
    """
    create trigger message_fts_update after update of content on message begin
        insert into message_fts (message_fts, rowid, content)
            values ('delete', old.id, old.content);
        insert into message_fts (rowid, content) values (new.id, new.content);
    end
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)
    # Messages stored before this migration.
    db.execute_sql("insert into message_fts (rowid, content) select id, content from message")

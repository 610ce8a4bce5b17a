"""Dense history search: a persistent queue of messages whose embedding must be (re)computed.

Triggers fill ``message_embedding_queue`` in the same transaction as the message itself, so a
crash never loses track of what is not yet embedded: the memory backend's background indexer
drains the queue (embedding into ``message_vec_<dimension>``, which it creates) and picks up
where it stopped at the next start. A deleted message is queued too, so that its vector goes.
"""

from typing import Any

EMBEDDED_ROLES = "('user', 'assistant')"

STATEMENTS = [
    "create table message_embedding_queue (message_id integer primary key)",
    # Which embedding model the history's vectors come from ('history'): when it changes,
    # they are dropped and every message is embedded again.
    "create table embedding_state (name text primary key, model text not null)",
    f"""
    create trigger message_embedding_insert after insert on message
    when new.role in {EMBEDDED_ROLES} begin
        insert or ignore into message_embedding_queue (message_id) values (new.id);
    end
    """,
    f"""
    create trigger message_embedding_update after update of content, sender_name on message
    when new.role in {EMBEDDED_ROLES} begin
        insert or ignore into message_embedding_queue (message_id) values (new.id);
    end
    """,
    f"""
    create trigger message_embedding_delete after delete on message
    when old.role in {EMBEDDED_ROLES} begin
        insert or ignore into message_embedding_queue (message_id) values (old.id);
    end
    """,
    # Full-text indexes with stemming ("allergies" finds "allergic"), and the speaker's name
    # searchable along with what they said.
    "drop trigger message_fts_insert",
    "drop trigger message_fts_delete",
    "drop trigger message_fts_update",
    "drop table message_fts",
    """
    create virtual table message_fts using fts5(
        content, sender_name, content = 'message', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    )
    """,
    """
    create trigger message_fts_insert after insert on message begin
        insert into message_fts (rowid, content, sender_name)
            values (new.id, new.content, coalesce(new.sender_name, ''));
    end
    """,
    """
    create trigger message_fts_delete after delete on message begin
        insert into message_fts (message_fts, rowid, content, sender_name)
            values ('delete', old.id, old.content, coalesce(old.sender_name, ''));
    end
    """,
    """
    create trigger message_fts_update after update of content, sender_name on message begin
        insert into message_fts (message_fts, rowid, content, sender_name)
            values ('delete', old.id, old.content, coalesce(old.sender_name, ''));
        insert into message_fts (rowid, content, sender_name)
            values (new.id, new.content, coalesce(new.sender_name, ''));
    end
    """,
    """
    insert into message_fts (rowid, content, sender_name)
        select id, content, coalesce(sender_name, '') from message
    """,
    """
    create virtual table memory_fts_stemmed using fts5(
        content, subject, tokenize = 'porter unicode61 remove_diacritics 2'
    )
    """,
    """
    insert into memory_fts_stemmed (rowid, content, subject)
        select rowid, content, subject from memory_fts
    """,
    "drop table memory_fts",
    "alter table memory_fts_stemmed rename to memory_fts",
    # Messages stored before this migration.
    f"""
    insert into message_embedding_queue (message_id)
        select id from message where role in {EMBEDDED_ROLES}
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

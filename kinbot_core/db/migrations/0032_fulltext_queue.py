"""Messages' full-text terms written in batches (``kinbot_core.fulltext_queue``) instead of by
the trigger of each message's insert.

FTS5 writes a segment of its own for every transaction that adds a row: eight of the fifteen
pages a stored message wrote, and 100 to 190 µs of the writer's CPU, twice a turn. The insert
and edit triggers now queue the message (``message_fts_queue``); its terms are written with
those of the others queued, a batch a transaction (about 20 µs a message). An edit still
removes the old terms at once, in its own transaction (a redacted secret's terms never wait);
a deleted message leaves the queue with its terms. Invariant: a queued message has no terms
in ``message_fts``, so the batch only inserts.
"""

from typing import Any

STATEMENTS = [
    "create table message_fts_queue (message_id integer primary key)",
    "drop trigger message_fts_insert",
    "drop trigger message_fts_update",
    "drop trigger message_fts_delete",
    """
    create trigger message_fts_insert after insert on message begin
        insert or ignore into message_fts_queue (message_id) values (new.id);
    end
    """,
    """
    create trigger message_fts_update after update of content, sender_name on message begin
        delete from message_fts where rowid = old.id;
        insert or ignore into message_fts_queue (message_id) values (new.id);
    end
    """,
    """
    create trigger message_fts_delete after delete on message begin
        delete from message_fts where rowid = old.id;
        delete from message_fts_queue where message_id = old.id;
    end
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

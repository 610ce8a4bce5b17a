"""Full-text search in the text's language: ``memory_fts`` and ``message_fts`` index terms
(stemmed in English or French, accents folded: ``kinbot_core.fulltext``) instead of FTS5's
English-only porter stemming of the raw text. Both are rebuilt from what is stored.

``message_fts`` stops being an external-content table (its text is no longer the message's):
it holds the terms, kept in step by triggers that call ``kinbot_fulltext_terms``, which every
connection of the platform's database registers. Deleting a row by rowid needs no old text,
so a message edited or redacted leaves no stale terms behind.
"""

from typing import Any

STATEMENTS = [
    "drop trigger message_fts_insert",
    "drop trigger message_fts_delete",
    "drop trigger message_fts_update",
    "drop table message_fts",
    """
    create virtual table message_fts using fts5(
        content, sender_name, tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    """
    create trigger message_fts_insert after insert on message begin
        insert into message_fts (rowid, content, sender_name) values (
            new.id, kinbot_fulltext_terms(new.content),
            kinbot_fulltext_terms(coalesce(new.sender_name, ''))
        );
    end
    """,
    """
    create trigger message_fts_delete after delete on message begin
        delete from message_fts where rowid = old.id;
    end
    """,
    """
    create trigger message_fts_update after update of content, sender_name on message begin
        delete from message_fts where rowid = old.id;
        insert into message_fts (rowid, content, sender_name) values (
            new.id, kinbot_fulltext_terms(new.content),
            kinbot_fulltext_terms(coalesce(new.sender_name, ''))
        );
    end
    """,
    """
    insert into message_fts (rowid, content, sender_name)
        select id, kinbot_fulltext_terms(content),
            kinbot_fulltext_terms(coalesce(sender_name, '')) from message
    """,
    """
    create virtual table memory_fts_terms using fts5(
        content, subject, tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    """
    insert into memory_fts_terms (rowid, content, subject)
        select id, kinbot_fulltext_terms(content), kinbot_fulltext_terms(subject) from memory
    """,
    "drop table memory_fts",
    "alter table memory_fts_terms rename to memory_fts",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

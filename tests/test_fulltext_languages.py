"""Full-text search in the text's language (kinbot_core.fulltext): French and English words
stemmed and folded, the language told per text, memories and history searched that way in a
real platform database, and an existing database upgraded by migration 0028."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playhouse.migrations import Runner

from benchmarks import memory_recall_french
from benchmarks.french_family import MEMORIES, QUESTIONS
from kinbot_core.config import load_settings
from kinbot_core.db import Database
from kinbot_core.db.database import MIGRATIONS_DIR
from kinbot_core.fulltext import index_terms, match_expression, query_terms
from kinbot_core.fulltext_queue import index_queued
from kinbot_core.platform import Platform
from kinbot_core.text_language import detect_languages, fold, words
from kinbot_plugins.memory.sqlite_memory import backend


def matches(query: str, text: str) -> bool:
    """Whether ``query``'s terms meet ``text``'s indexed terms."""
    return not set(query_terms(query)).isdisjoint(index_terms(text).split())


def test_the_language_is_told_by_its_function_words() -> None:
    assert detect_languages(words("Léo est allergique aux arachides depuis ses trois ans")) == (
        "fr",
    )
    assert detect_languages(words("Leo has been allergic to peanuts since he was three")) == ("en",)
    # Too little to tell: both ways.
    assert detect_languages(words("Dentiste mardi 14h")) == ("en", "fr")
    assert fold("Élève cœur Noël") == "eleve coeur noel"


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("végétarienne", "Julien est végétarien depuis deux ans."),  # gender
        ("Qui aime le cheval ?", "Les chevaux du centre équestre plaisent à Emma."),  # -aux
        ("Qui tricotait les pulls ?", "Mamie tricote des pulls chaque hiver."),  # tense
        ("les vaccins du chien", "Caramel doit être vacciné en octobre."),  # noun for verb
        ("vegetariens", "Julien est végétarien depuis deux ans."),  # no accents typed
        ("activites", "Les activités du mercredi sont annulées."),  # a stemmer reads accents
        ("activités", "les activites du mercredi sont annulees"),  # the text lacks them
        ("What is Leo allergic to?", "Leo has allergies to peanuts and cashews."),  # English
    ],
)
def test_another_form_of_a_word_meets_its_terms(query: str, text: str) -> None:
    assert matches(query, text)


def test_function_words_of_the_query_language_are_left_out() -> None:
    assert query_terms("Qui est végétarienne dans la famille ?") == ["vegetarien", "famill"]
    assert match_expression("Quand est-elle heureuse ?") == '"heureux"'
    # A query made of function words alone still searches something.
    assert query_terms("et les autres ?") != []
    assert match_expression("?!") is None
    # FTS syntax in a query is only text.
    assert match_expression('NEAR("a" b) OR *') == '"near" OR "b"'


@pytest.fixture
async def platform(data_dir: Path) -> AsyncIterator[Platform]:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    await platform.providers.add("ai", "local-embeddings", "Local", {})
    yield platform
    await platform.stop()


async def new_kin(platform: Platform) -> str:
    """A Kin stored directly: nothing here talks to a chat model."""
    return await memory_recall_french.new_kin(platform)


def question(text: str) -> tuple[str, int]:
    """A question of the French family set and the index of its (first) answer."""
    found = next(item for item in QUESTIONS if item.text == text)
    return found.text, found.answers[0]


async def test_french_memories_are_found_by_inflected_unaccented_and_paraphrased_questions(
    platform: Platform,
) -> None:
    kin_id = await new_kin(platform)
    # Stored as a Kin file's memories are (one embedding call per batch, not one each).
    items = [{"content": m.content, "category": "fact", "subject": m.subject} for m in MEMORIES]
    assert await backend.restore_memories(platform, kin_id, items) == len(MEMORIES)
    ids = [memory.id for memory in reversed(await platform.memory.memories(kin_id))]
    assert len(ids) == len(MEMORIES)

    async def ranked(text: str, mode: str) -> list[int]:
        found = await platform.memory.recall(kin_id, text, limit=5, mode=mode)  # type: ignore[arg-type]
        return [ids.index(memory.id) for memory in found]

    async def first(text: str, mode: str) -> int:
        return next(iter(await ranked(text, mode)), -1)

    inflected, answer = question("Qui est végétarienne dans la famille ?")
    assert await first(inflected, "fulltext") == answer
    # Hybrid: "famille" draws the English-only embedding to the family's holidays, but the
    # stemmed words keep the answer among the first two.
    assert answer in (await ranked(inflected, "hybrid"))[:2]
    assert await first("vegetarienne", "fulltext") == answer
    unaccented, answer = question("impots declares")
    assert await first(unaccented, "fulltext") == answer
    assert answer in (await ranked(unaccented, "hybrid"))[:2]
    # No word in common: only meaning finds it, and the fused ranking keeps it first.
    paraphrase, answer = question("Qu'est-ce que Mamie ne peut pas boire ?")
    assert await first(paraphrase, "hybrid") == answer


async def test_french_history_is_found_by_another_form_of_its_words(platform: Platform) -> None:
    kin_id = await new_kin(platform)
    said = [
        "Les enfants ont adoré les crêpes de Mamie hier soir.",
        "Rappelle-moi d'acheter des piles pour la télécommande.",
        "We booked the Rome flights for the 12th of August.",
    ]
    ids = [
        (
            await platform.kins.add_message(
                kin_id, role="user", source="user", sender_name="Sophie", content=text
            )
        ).id
        for text in said
    ]

    async def found(query: str) -> list[int]:
        hits = await platform.memory.search_history(kin_id, query, limit=3, mode="fulltext")
        return [hit.message_id for hit in hits]

    assert (await found("une crepe adorée"))[0] == ids[0]
    assert (await found("la pile"))[0] == ids[1]
    assert (await found("booking a flight"))[0] == ids[2]
    # Edited: the old words go, the new ones are found.
    db = platform.db
    await db.write(
        lambda: db.sql(
            "update message set content = ? where id = ?",
            ("Il faut racheter des ampoules pour le salon.", ids[1]),
        )
    )
    assert ids[1] not in await found("la pile")
    assert (await found("une ampoule"))[0] == ids[1]


async def test_an_existing_database_is_indexed_in_its_languages_on_upgrade(
    data_dir: Path,
) -> None:
    names = sorted(path.stem for path in MIGRATIONS_DIR.glob("[0-9]*.py"))
    before = names[names.index("0028_fulltext_languages") - 1]
    await asyncio.to_thread(data_dir.mkdir)
    old = Database(data_dir / "kinbot.db")
    await old.read(lambda: Runner(old.peewee, directory=str(MIGRATIONS_DIR)).up(target=before))

    def a_family() -> None:
        old.sql(
            "insert into kin (id, name, model, workspace, created_at, updated_at) "
            "values ('k1', 'Majordome', 'gpt-4o', '/tmp/k1', 1, 1)"
        )
        old.sql(
            "insert into message (kin_id, role, source, sender_name, content, created_at) "
            "values ('k1', 'user', 'user', 'Sophie', 'Les chevaux de Chloé sont arrivés', 1)"
        )
        old.sql(
            "insert into memory (kin_id, content, category, subject, created_at, updated_at) "
            "values ('k1', 'Julien est végétarien depuis deux ans', 'fact', 'Julien', 1, 1)"
        )
        old.sql(
            "insert into memory_fts (rowid, content, subject) "
            "values (last_insert_rowid(), 'Julien est végétarien depuis deux ans', 'Julien')"
        )

    await old.write(a_family)
    await old.close()

    upgraded = Database(data_dir / "kinbot.db")
    assert "0028_fulltext_languages" in await upgraded.open()
    try:

        def search(table: str, query: str) -> list[int]:
            rows = upgraded.sql(
                f"select rowid from {table} where {table} match ?", (match_expression(query),)
            )
            return [row[0] for row in rows]

        assert await upgraded.read(search, "message_fts", "un cheval arrivé") == [1]
        assert await upgraded.read(search, "message_fts", "sophie") == [1]
        assert await upgraded.read(search, "memory_fts", "vegetarienne") == [1]

        # New, edited and deleted messages keep the index in step (kinbot_core.fulltext_queue).
        def later() -> None:
            upgraded.sql(
                "insert into message (kin_id, role, source, content, created_at) "
                "values ('k1', 'assistant', 'kin', 'Les poules pondent bien cet été', 2)"
            )
            upgraded.sql("update message set content = 'Le poney boite' where id = 1")

        await upgraded.write(later)
        # An edit drops the old terms at once; new terms wait for the queue's batch.
        assert await upgraded.read(search, "message_fts", "cheval") == []
        assert await upgraded.read(search, "message_fts", "poneys") == []
        assert await upgraded.write(index_queued, upgraded) == 2
        assert await upgraded.read(search, "message_fts", "une poule pondait") == [2]
        assert await upgraded.read(search, "message_fts", "cheval") == []
        assert await upgraded.read(search, "message_fts", "poneys") == [1]
        await upgraded.write(lambda: upgraded.sql("delete from message where id = 2"))
        assert await upgraded.read(search, "message_fts", "poule") == []
        # Checked on the connection that wrote: SQLite (3.51) reports a false checksum
        # mismatch for an FTS5 table with its own content on a connection that read it before
        # another one wrote (memory_fts has always been such a table).
        check = await upgraded.write(lambda: upgraded.sql("pragma integrity_check").fetchall())
        assert check == [("ok",)]
    finally:
        await upgraded.close()

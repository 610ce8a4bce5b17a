"""The ranking of hybrid history search (``kinbot_plugins.memory.ranking``): time cues in
questions and messages, on a real platform database with the offline embedding model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db.models import KinRecord
from kinbot_core.platform import Platform
from kinbot_core.providers import Vector
from kinbot_plugins.memory.query_rewrite import keywords, semantic_query, statement
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.memory.time_cues import DateCue, asks_when, date_cues, says_when

FILLER = [
    "We talked about the weather all afternoon.",
    "The kids want pasta for dinner again.",
    "My sister called about the holidays.",
    "The car needs new tyres before winter.",
]


def at(day: str) -> float:
    return datetime.fromisoformat(f"{day}T14:00:00").replace(tzinfo=UTC).timestamp()


@pytest.fixture
async def platform(data_dir: Path) -> AsyncIterator[Platform]:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    await platform.providers.add("ai", "local-embeddings", "Local", {})
    yield platform
    await platform.stop()


async def kin_with(platform: Platform, messages: list[tuple[str, float]]) -> tuple[str, list[int]]:
    """A Kin whose history is ``messages`` (text, sent at), embedded; returns the Kin and the
    messages' ids."""
    kin_id = f"kin-{len(messages)}-{int(messages[0][1])}"
    await platform.db.write(
        lambda: KinRecord.create(id=kin_id, name="Ann's Kin", model="none/none", workspace="w")
    )
    ids = []
    for text, sent_at in messages:
        message = await platform.kins.add_message(
            kin_id, role="user", source="user", sender_name="Ann", content=text, created_at=sent_at
        )
        ids.append(message.id)
    await backend.indexer(platform).catch_up()
    return kin_id, ids


async def first_hit(platform: Platform, kin_id: str, query: str, **settings: Any) -> int:
    """The message id hybrid history search puts first with ``settings`` changed."""
    base = platform.settings
    platform.settings = base.model_copy(update=settings)
    try:
        hits = await platform.memory.search_history(kin_id, query, limit=5)
    finally:
        platform.settings = base
    return hits[0].message_id


def test_time_cues_of_questions_and_messages_in_english_and_french() -> None:
    assert asks_when("When did Ann sign up for the pottery class?")
    assert asks_when("Depuis quand Paul fait-il du judo ?")
    assert not asks_when("What does Ann paint?")
    assert says_when("I signed up for a pottery class yesterday!")
    assert says_when("On est allés au lac il y a deux semaines.")
    assert not says_when("I love my pottery class.")
    assert date_cues("What did Ann paint on October 13, 2023?") == [DateCue(2023, 10, 13)]
    assert date_cues("Qu'a fait Paul en juillet ?") == [DateCue(None, 7, None)]
    assert date_cues("Where did we go in 2022?") == [DateCue(2022, None, None)]
    # "may" and "march" are words too: a date only beside a day, a year or a preposition.
    assert date_cues("May I march with you?") == []
    assert date_cues("Did we meet in May?") == [DateCue(None, 5, None)]


async def test_a_question_asking_when_prefers_the_message_that_says_when(
    platform: Platform,
) -> None:
    kin_id, ids = await kin_with(
        platform,
        [
            ("Pottery class is such fun, I love pottery and my pottery class.", at("2023-05-01")),
            *[(text, at("2023-05-02")) for text in FILLER],
            ("I signed up for a pottery class yesterday.", at("2023-05-08")),
        ],
    )  # fmt: skip
    question = "When did Ann go to the pottery class?"
    assert await first_hit(platform, kin_id, question, search_when_boost=0.0) == ids[0]
    assert await first_hit(platform, kin_id, question, search_when_boost=1.0) == ids[-1]
    # Not a question about time: the boost leaves the ranking alone.
    assert await first_hit(platform, kin_id, "Ann's pottery class", search_when_boost=1.0) == ids[0]


async def test_a_question_naming_a_date_prefers_the_messages_sent_that_month(
    platform: Platform,
) -> None:
    kin_id, ids = await kin_with(
        platform,
        [
            ("We went camping by the lake, camping at the lake is the best.", at("2023-06-10")),
            *[(text, at("2023-07-02")) for text in FILLER],
            ("We went camping in the mountains.", at("2023-08-12")),
        ],
    )
    question = "Where did Ann go camping in August 2023?"
    assert await first_hit(platform, kin_id, question, search_date_boost=0.0) == ids[0]
    assert await first_hit(platform, kin_id, question, search_date_boost=1.0) == ids[-1]


def test_the_semantic_query_without_its_question_form_or_its_function_words() -> None:
    assert statement("When did Ann go to the pottery class?") == "Ann go to the pottery class"
    assert statement("How long has Paul had his dog?") == "Paul had his dog"
    assert statement("What is Ann's job?") == "Ann's job"
    assert statement("Qu'est-ce que Léa mange le soir ?") == "Léa mange le soir"
    assert statement("Quand est-ce que Paul part ?") == "Paul part"
    assert statement("Ann's pottery class") == "Ann's pottery class"
    assert statement("When?") == "When?"  # nothing else: left as it is
    assert keywords("When did Ann go to the pottery class?") == "ann go pottery class"
    assert keywords("Où habite Marie ?") == "habite marie"


async def test_search_semantic_query_chooses_what_the_semantic_signal_embeds(
    platform: Platform,
) -> None:
    kin_id, _ids = await kin_with(platform, [(text, at("2023-05-02")) for text in FILLER])
    embed = platform.providers.embed
    embedded: list[str] = []

    async def recording(texts: list[str]) -> Sequence[Vector]:
        embedded.extend(texts)
        return await embed(texts)

    platform.providers.embed = recording  # type: ignore[method-assign]
    question = "When did Ann go to the pottery class?"
    expected = {
        "question": question,
        "statement": "Ann go to the pottery class",
        "keywords": "ann go pottery class",
    }
    for form, text in expected.items():
        embedded.clear()
        await first_hit(platform, kin_id, question, search_semantic_query=form)
        assert embedded == [text]
    assert semantic_query(platform.settings, question) == question  # the default


async def test_a_similarity_floor_keeps_what_is_like_the_query_and_every_word_match(
    platform: Platform,
) -> None:
    kin_id, ids = await kin_with(
        platform,
        [(text, at("2023-05-02")) for text in FILLER]
        + [("The plumber comes on Tuesday to fix the kitchen sink.", at("2023-05-03"))],
    )
    floor = platform.settings.history_search_min_score

    async def found(query: str, min_similarity: float | None) -> list[int]:
        hits = await platform.memory.search_history(
            kin_id, query, limit=5, min_similarity=min_similarity
        )
        return [hit.message_id for hit in hits]

    # Nonsense: nothing is like it. Without a floor (the Kin's own tool) the nearest come.
    assert await found("zzzqqq", floor) == []
    assert len(await found("zzzqqq", None)) == 5
    # Found by meaning alone, no word in common: the pasta for "spaghetti", the plumber for
    # a leak.
    assert (await found("spaghetti", floor))[:1] == [ids[1]]
    assert (await found("someone to repair a leak", floor))[:1] == [ids[4]]
    # Found by its words, however its meaning scores.
    assert (await found("tyres", floor))[:1] == [ids[3]]

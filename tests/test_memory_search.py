"""Dense history search (messages embedded in the background, fused with FTS5), its catching up
after a restart, the search modes, and the LoCoMo recall benchmark on a tiny generated file."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks import memory_injection, memory_recall
from kinbot_core.config import load_settings
from kinbot_core.memory import MemoryError
from kinbot_core.platform import Platform
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.tools.memory_tools import TOOLS
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import API_KEY, add_local_memory_providers
from tests.support.server import running_server

SEARCH_HISTORY = next(tool for tool in TOOLS if tool.name == "search_history")

MESSAGES = [
    "We booked the Rome flights for the 12th of August",
    "The plumber comes on Tuesday morning to fix the kitchen sink",
    "Grandma's birthday cake needs dark chocolate and raspberries",
    "Dinner is at eight tonight",
]
#: A paraphrase of the plumber message sharing no word with it.
PARAPHRASE = "who repairs that leaking tap?"


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def configure(platform: Platform, fake_llm: FakeOpenAI) -> None:
    await platform.providers.add("ai", "local-embeddings", "Local", {})
    await platform.providers.add(
        "ai",
        "openai-compatible",
        "Chat",
        {"base_url": f"{fake_llm.base_url}/v1", "api_key": API_KEY},
    )


@pytest.fixture
async def platform(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[Platform]:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    await configure(platform, fake_llm)
    yield platform
    await platform.stop()


async def add_messages(platform: Platform, kin_id: str) -> dict[str, int]:
    ids = {}
    for index, text in enumerate(MESSAGES):
        message = await platform.kins.add_message(
            kin_id,
            role="user" if index % 2 == 0 else "assistant",
            source="user" if index % 2 == 0 else "kin",
            sender_name="Nico" if index % 2 == 0 else None,
            content=text,
        )
        ids[text] = message.id
    return ids


async def embedded_in_background(platform: Platform, kin_id: str) -> None:
    """Wait (without calling the indexer) until the background loop has embedded everything."""
    for _ in range(600):
        if await backend.indexer(platform).pending(kin_id) == 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the history was not embedded in the background")


async def contents(platform: Platform, kin_id: str, query: str, mode: Any = "hybrid") -> list[str]:
    hits = await platform.memory.search_history(kin_id, query, limit=3, mode=mode)
    return [hit.content for hit in hits]


async def test_a_paraphrase_finds_a_message_sharing_no_keyword(platform: Platform) -> None:
    kin = await platform.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
    await add_messages(platform, kin.id)
    await embedded_in_background(platform, kin.id)
    plumber = MESSAGES[1]
    assert set(PARAPHRASE.lower().strip("?").split()).isdisjoint(plumber.lower().split())
    assert plumber not in await contents(platform, kin.id, PARAPHRASE, "fulltext")
    assert (await contents(platform, kin.id, PARAPHRASE, "dense"))[0] == plumber
    context = ToolContext(platform, kin.id, "Chef", Speaker("user", None, "Nico"))
    result = await SEARCH_HISTORY.run(context, {"query": PARAPHRASE})
    assert result["messages"][0]["content"] == plumber
    # Exact keywords still work, and each Kin only searches its own history.
    assert (await contents(platform, kin.id, "Rome"))[0] == MESSAGES[0]
    other = await platform.kins.create({"name": "Scout", "model": "Chat/gpt-4o"})
    assert await contents(platform, other.id, PARAPHRASE) == []


async def test_edited_and_deleted_messages_are_embedded_again_or_dropped(
    platform: Platform,
) -> None:
    kin = await platform.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
    ids = await add_messages(platform, kin.id)
    await backend.indexer(platform).catch_up()
    db = platform.db
    sink = ids[MESSAGES[1]]
    await db.write(
        lambda: db.sql(
            "update message set content = ? where id = ?",
            ("Our cat Felix needs his vaccine at the vet", sink),
        )
    )
    await db.write(lambda: db.sql("delete from message where id = ?", (ids[MESSAGES[3]],)))
    assert await backend.indexer(platform).pending() == 2
    await backend.indexer(platform).catch_up()
    found = await platform.memory.search_history(
        kin.id, "an appointment for our pet animal", limit=1, mode="dense"
    )
    assert [hit.message_id for hit in found] == [sink]
    vectors = await db.read(
        lambda: db.sql(
            "select count(*) from message_vec_384 where kin_id = ?", (kin.id,)
        ).fetchone()
    )
    assert vectors == (3,)
    # Made with small chunks: an insert rewrites 64 vectors' blob, not sqlite-vec's 1,024.
    made = await db.read(
        lambda: db.sql("select sql from sqlite_master where name = 'message_vec_384'").fetchone()
    )
    assert "chunk_size=64" in made[0]


async def test_unembedded_messages_are_found_by_keyword_and_embedded_after_a_restart(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    # A first run whose indexer never wakes up again after its first (empty) look.
    first = Platform(load_settings(data_dir=data_dir, history_embedding_poll_seconds=3600))
    await first.start()
    try:
        await configure(first, fake_llm)
        kin = await first.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
        await add_messages(first, kin.id)
        assert await backend.indexer(first).pending(kin.id) == len(MESSAGES)
        assert (await contents(first, kin.id, "plumber"))[0] == MESSAGES[1]
        assert await contents(first, kin.id, PARAPHRASE, "dense") == []
    finally:
        await first.stop()

    second = Platform(load_settings(data_dir=data_dir))
    await second.start()
    try:
        await embedded_in_background(second, kin.id)
        assert (await contents(second, kin.id, PARAPHRASE, "dense"))[0] == MESSAGES[1]
    finally:
        await second.stop()


async def test_an_unknown_search_mode_is_refused(platform: Platform) -> None:
    kin = await platform.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
    with pytest.raises(MemoryError, match="search mode"):
        await platform.memory.search_history(kin.id, "Rome", mode="telepathy")  # type: ignore[arg-type]
    with pytest.raises(MemoryError, match="search mode"):
        await platform.memory.recall(kin.id, "Rome", mode="telepathy")  # type: ignore[arg-type]


def tiny_locomo(path: Path) -> None:
    """One conversation in the LoCoMo format, with a malformed evidence id, an adversarial
    question and one whose evidence does not exist."""
    turns_1 = [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit!"},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely. I started learning the violin."},
        {
            "speaker": "Ann",
            "dia_id": "D1:3",
            "text": "Look at my garden",
            "img_url": ["x"],
            "blip_caption": "a photo of red tulips in a garden",
        },
    ]
    turns_2 = [
        {"speaker": "Bob", "dia_id": "D2:1", "text": "My violin teacher moved to Lyon."},
        {"speaker": "Ann", "dia_id": "D2:2", "text": "Biscuit chewed my shoes again."},
    ]
    sample = {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns_1,
            "session_2_date_time": "10:00 am on 9 June, 2023",
            "session_2": turns_2,
        },
        "observation": {
            "session_1_observation": {
                "Ann": [["Ann adopted a puppy named Biscuit.", "D1:1"]],
                "Bob": [["Bob is learning to play the violin.", "D1:2"]],
            },
            "session_2_observation": {
                "Bob": [["Bob's violin teacher moved to Lyon.", "D2:1"]],
            },
        },
        "qa": [
            {
                "question": "What is the name of Ann's dog?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where did Bob's music teacher move?",
                "answer": "Lyon",
                "evidence": ["D:2:1"],
                "category": 1,
            },
            {
                "question": "What flowers grow in Ann's garden?",
                "answer": "tulips",
                "evidence": ["D1:3; D2:2"],
                "category": 3,
            },
            {
                "question": "What did Bob's cat eat?",
                "adversarial_answer": "fish",
                "evidence": ["D1:2"],
                "category": 5,
            },
            {
                "question": "When did Ann move?",
                "answer": "never",
                "evidence": ["D9:9"],
                "category": 2,
            },
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")


def test_the_injection_benchmark_runs_on_a_locomo_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "tiny.json"
    tiny_locomo(dataset)
    memory_injection.main([str(dataset), "--sweep"])
    out = capsys.readouterr().out
    # Session 1's two facts are memorised when session 2 starts; its two turns are measured.
    assert "conversation tiny-1: 2 turns measured, 2 memories at the end, 1 questions" in out
    # Before the floors, the ten most relevant: both memories, the dog's among them.
    assert "questions whose evidence is injected: before 1/1 (100.0 %)" in out
    assert "tiny-1: tokens per turn" in out
    assert len([line for line in out.splitlines() if "/1 (" in line]) >= 1 + 8 * 5


def test_the_recall_benchmark_runs_on_a_locomo_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "tiny.json"
    tiny_locomo(dataset)
    # The latency measure over a few memories and queries: it runs, not how fast.
    memory_recall.main([str(dataset), "--latency-memories", "300", "--latency-queries", "3"])
    out = capsys.readouterr().out
    assert "1 conversations, 5 turns, 3 observation facts, 3 questions" in out
    assert "skipped 1 questions: category 5" in out
    assert "skipped 1 questions: no evidence id found among the turns" in out
    turns = out.split("turn level", 1)[1].split("observation level", 1)[0]
    facts = out.split("observation level", 1)[1]
    rows = {line.split()[0]: line.split()[1:] for line in turns.splitlines()[2:5]}
    assert set(rows) == {"dense", "fulltext", "hybrid"}
    # Five turns: the semantic signal ranks them all, so every evidence turn is in the top 25.
    assert rows["dense"][2] == "100.0" and rows["hybrid"][2] == "100.0"
    # Two of the three questions' evidence turns are cited by a fact (D1:3 and D2:2 are not).
    assert "evidence turns cited by some observation fact: 50.0 %" in facts
    assert "recall over 300 memories of one Kin (3 queries, limit 10, ms)" in out
    for mode in ("hybrid", "dense", "fulltext"):
        assert f"{mode} p50:" in out and f"{mode} p99:" in out


async def test_a_new_embedding_model_re_embeds_memories_and_history_in_the_background(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        await set_up_admin(server.client)
        platform = server.platform
        ids = await add_local_memory_providers(server.client, fake_llm)
        kin = await platform.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
        memory = await platform.memory.memorize(kin.id, "Marie is allergic to peanuts", "fact")
        await add_messages(platform, kin.id)
        await backend.indexer(platform).catch_up()
        route = f"/api/kins/{kin.id}/memories/embedding"
        before = (await server.client.get(route)).json()
        assert before == {
            "model": "Local/all-MiniLM-L6-v2",
            "memories_pending": 0,
            "messages_pending": 0,
        }

        # The local provider goes: embeddings now come from the other one.
        feed, _complete = platform.live.subscribe("observer")
        removed = await server.client.delete(f"/api/providers/{ids['Local']}")
        assert removed.status_code == 204, removed.text
        switched = (await server.client.get(route)).json()
        assert switched["model"].startswith("Chat/") and switched["memories_pending"] == 1
        # Meanwhile, searches work: full text finds what has no vector of the new model.
        found = await platform.memory.recall(kin.id, "peanuts")
        assert [m.id for m in found] == [memory.id]
        assert (await contents(platform, kin.id, "plumber"))[0] == MESSAGES[1]

        await backend.indexer(platform).catch_up()
        after = (await server.client.get(route)).json()
        assert after["model"].startswith("Chat/"), after
        assert after["memories_pending"] == 0 and after["messages_pending"] == 0
        db = platform.db
        stored = await db.read(
            lambda: db.sql(
                "select embedding_model, dimension from memory where id = ?", (memory.id,)
            ).fetchone()
        )
        assert stored[0] == after["model"] and stored[1] != 384
        old_vectors = await db.read(
            lambda: db.sql("select count(*) from message_vec_384").fetchone()
        )
        new_vectors = await db.read(
            lambda: db.sql(f"select count(*) from message_vec_{stored[1]}").fetchone()
        )
        assert old_vectors == (0,) and new_vectors == (len(MESSAGES),)
        assert [m.id for m in await platform.memory.recall(kin.id, "peanuts", mode="dense")] == [
            memory.id
        ]
        progress = []
        while True:
            item = await asyncio.wait_for(feed.next(), timeout=10)
            assert item is not None
            if item.type == "memory.embedding":
                progress.append(item.data)
                if item.data["done"]:
                    break
        assert progress[-1]["memories_pending"] == 0 and progress[-1]["messages_pending"] == 0
        other = await server.client.get("/api/kins/nope/memories/embedding")
        assert other.status_code == 404


async def test_a_message_awaiting_redaction_is_embedded_only_once_redacted(
    platform: Platform,
) -> None:
    kin = await platform.kins.create({"name": "Chef", "model": "Chat/gpt-4o"})
    flagged = await platform.kins.add_message(
        kin.id,
        role="user",
        source="user",
        sender_name="Nico",
        content="The alarm code is 4521",
        redaction_pending=True,
    )
    await add_messages(platform, kin.id)
    await backend.indexer(platform).catch_up()
    db = platform.db

    def vectors_of(message_id: int) -> Any:
        return db.sql(
            "select count(*) from message_vec_384 where rowid = ?", (message_id,)
        ).fetchone()

    assert await backend.indexer(platform).pending(kin.id) == 1
    assert await db.read(vectors_of, flagged.id) == (0,)
    await db.write(
        lambda: db.sql(
            "update message set content = ?, redaction_pending = 0 where id = ?",
            ("The alarm code is [redacted]", flagged.id),
        )
    )
    await backend.indexer(platform).catch_up()
    assert await backend.indexer(platform).pending(kin.id) == 0
    assert await db.read(vectors_of, flagged.id) == (1,)

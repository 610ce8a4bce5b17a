"""Memories that earn their place: what is injected (pinned first, then by relevance, within
the budget, nothing the session already says, nothing archived), how often each memory was
injected and recalled, and pinning, archiving and restoring through the API."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db.models import MemoryUsageRecord
from kinbot_core.platform import Platform
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.tools.memory_tools import TOOLS
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import add_local_memory_providers
from tests.support.server import RunningServer, running_server

TOOL = {tool.name: tool for tool in TOOLS}
FACTS = [
    ("Nicolas is vegetarian", "fact", "Nicolas"),
    ("The grocery budget is 600 euros a month", "decision", "family"),
    ("Marie is allergic to peanuts", "fact", "Marie"),
    ("The family goes on holiday in August", "preference", "family"),
]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Any, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        await set_up_admin(server.client)
        await add_local_memory_providers(server.client, fake_llm)
        yield server


async def kin_with_memories(server: RunningServer) -> tuple[str, dict[str, int]]:
    created = await server.client.post("/api/kins", json={"name": "Chef", "model": "Chat/gpt-4o"})
    assert created.status_code == 201, created.text
    kin_id: str = created.json()["kin"]["id"]
    ids = {}
    for content, category, subject in FACTS:
        stored = await server.platform.memory.memorize(kin_id, content, category, subject)
        ids[content] = stored.id
    return kin_id, ids


async def injected(server: RunningServer, kin_id: str, query: str) -> list[str]:
    platform = server.platform
    context = await platform.memory.backend().prompt_context(platform, kin_id, query)
    return context.memories


async def listed(server: RunningServer, kin_id: str) -> dict[int, dict[str, Any]]:
    response = await server.client.get(f"/api/kins/{kin_id}/memories")
    assert response.status_code == 200, response.text
    return {memory["id"]: memory for memory in response.json()["memories"]}


async def mark(server: RunningServer, kin_id: str, memory_id: int | str, **marks: Any) -> Any:
    return await server.client.patch(f"/api/kins/{kin_id}/memories/{memory_id}", json=marks)


async def test_pinned_memories_come_first_and_archived_ones_never(server: RunningServer) -> None:
    kin_id, ids = await kin_with_memories(server)
    peanuts, budget = (
        ids["Marie is allergic to peanuts"],
        ids["The grocery budget is 600 euros a month"],
    )
    query = "Can Marie eat peanuts?"
    assert (await injected(server, kin_id, query))[0].startswith("Marie is allergic to peanuts")

    pinned = await mark(server, kin_id, budget, pinned=True)
    assert pinned.status_code == 200, pinned.text
    assert pinned.json()["memory"]["pinned"] is True
    archived = await mark(server, kin_id, peanuts, archived=True)
    assert archived.json()["memory"]["archived_at"] is not None

    lines = await injected(server, kin_id, query)
    assert lines[0] == "The grocery budget is 600 euros a month (decision, about family)"
    assert not any("peanuts" in line for line in lines)
    recalled = await TOOL["recall"].run(
        ToolContext(server.platform, kin_id, "Chef", Speaker("user", None, "Nico")),
        {"query": "peanuts allergy"},
    )
    assert peanuts not in [m["id"] for m in recalled["memories"]]
    # Still listed, and restorable.
    assert (await listed(server, kin_id))[peanuts]["archived_at"] is not None
    restored = await mark(server, kin_id, peanuts, archived=False)
    assert restored.json()["memory"]["archived_at"] is None
    assert any("peanuts" in line for line in await injected(server, kin_id, query))

    # Archiving a pinned memory unpins it: it is no longer injected at all.
    await mark(server, kin_id, budget, archived=True)
    memory = (await listed(server, kin_id))[budget]
    assert (memory["pinned"], memory["archived_at"] is not None) == (False, True)
    assert not any("grocery" in line for line in await injected(server, kin_id, "groceries"))


async def test_marks_are_checked(server: RunningServer) -> None:
    kin_id, ids = await kin_with_memories(server)
    other = await server.client.post("/api/kins", json={"name": "Other", "model": "Chat/gpt-4o"})
    other_id = other.json()["kin"]["id"]
    memory_id = ids["Nicolas is vegetarian"]
    assert (await mark(server, other_id, memory_id, pinned=True)).status_code == 404
    assert (await mark(server, kin_id, 999_999, pinned=True)).status_code == 404
    assert (await mark(server, kin_id, "x", pinned=True)).status_code == 404
    assert (await mark(server, kin_id, memory_id, pinned="maybe")).status_code == 400


async def test_usage_is_counted_and_shown(server: RunningServer) -> None:
    kin_id, ids = await kin_with_memories(server)
    peanuts = ids["Marie is allergic to peanuts"]
    before = await listed(server, kin_id)
    assert before[peanuts]["usage"] == {
        "injected_count": 0,
        "recalled_count": 0,
        "last_injected_at": None,
        "last_recalled_at": None,
    }
    for _ in range(3):
        assert any("peanuts" in line for line in await injected(server, kin_id, "Marie peanuts"))
    context = ToolContext(server.platform, kin_id, "Chef", Speaker("user", None, "Nico"))
    found = await TOOL["recall"].run(context, {"query": "peanuts"})
    assert found["memories"][0]["id"] == peanuts

    usage = (await listed(server, kin_id))[peanuts]["usage"]
    assert (usage["injected_count"], usage["recalled_count"]) == (3, 1)
    assert usage["last_injected_at"] and usage["last_recalled_at"]
    # Three turns' counters went to the database as one row, not a write per turn.
    rows = await server.platform.db.read(
        lambda: list(MemoryUsageRecord.select().where(MemoryUsageRecord.memory == peanuts))
    )
    assert len(rows) == 1
    await server.client.delete(f"/api/kins/{kin_id}/memories/{peanuts}")
    assert peanuts not in await listed(server, kin_id)


async def test_what_the_session_already_says_is_not_injected_again(
    server: RunningServer,
) -> None:
    kin_id, _ids = await kin_with_memories(server)
    query = "Can Marie eat peanuts?"
    assert any("peanuts" in line for line in await injected(server, kin_id, query))
    await server.platform.kins.add_message(
        kin_id, role="user", source="user", sender_name="Nico",
        content="As you know, MARIE is allergic  to peanuts. What should we cook?",
    )  # fmt: skip
    assert not any("peanuts" in line for line in await injected(server, kin_id, query))


async def test_pinned_memories_are_within_the_budget_first(data_dir: Any, fake_llm: Any) -> None:
    # "- Nicolas is vegetarian (fact, about Nicolas)\n" is 12 tokens by the estimate.
    platform = Platform(load_settings(data_dir=data_dir, memory_injected_max_tokens=14))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_local_memory_providers(server.client, fake_llm)
        kin_id, ids = await kin_with_memories(server)
        await mark(server, kin_id, ids["Nicolas is vegetarian"], pinned=True)
        assert await injected(server, kin_id, "Can Marie eat peanuts?") == [
            "Nicolas is vegetarian (fact, about Nicolas)"
        ]


async def test_only_memories_relevant_enough_are_injected(server: RunningServer) -> None:
    kin_id, ids = await kin_with_memories(server)
    query = "Can Marie eat peanuts?"
    assert await injected(server, kin_id, query) == [
        "Marie is allergic to peanuts (fact, about Marie)"
    ]
    # Below the floors, but pinned: a person asked for it always.
    await mark(server, kin_id, ids["The family goes on holiday in August"], pinned=True)
    assert await injected(server, kin_id, query) == [
        "The family goes on holiday in August (preference, about family)",
        "Marie is allergic to peanuts (fact, about Marie)",
    ]

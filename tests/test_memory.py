"""Long-term memory through the built-in backend: hybrid recall with the local embedding
model, keyword recall, forgetting from both indexes, history search, prompt injection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import Speaker, ToolContext, ToolError
from kinbot_plugins.tools.memory_tools import TOOLS
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_local_memory_providers
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent, sse_stream

TOOL = {tool.name: tool for tool in TOOLS}


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


async def new_kin(server: RunningServer) -> str:
    response = await server.client.post("/api/kins", json={"name": "Chef", "model": "Chat/gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


def context(server: RunningServer, kin_id: str) -> ToolContext:
    return ToolContext(server.platform, kin_id, "Chef", Speaker("user", None, "Nico"))


FACTS = [
    ("Nicolas is vegetarian", "fact", "Nicolas"),
    ("The grocery budget is 600 euros a month", "decision", "family"),
    ("We chose Next.js for the school project website", "decision", "school project"),
    ("Marie is allergic to peanuts", "fact", "Marie"),
    ("The family goes on holiday in August", "preference", "family"),
]


async def memorize_all(server: RunningServer, kin_id: str) -> dict[str, int]:
    ids = {}
    for content, category, subject in FACTS:
        result = await TOOL["memorize"].run(
            context(server, kin_id), {"content": content, "category": category, "subject": subject}
        )
        ids[content] = result["memory"]["id"]
    return ids


async def recall(server: RunningServer, kin_id: str, query: str) -> list[str]:
    result = await TOOL["recall"].run(context(server, kin_id), {"query": query})
    return [m["content"] for m in result["memories"]]


async def test_recall_finds_by_meaning_and_by_exact_keyword(server: RunningServer) -> None:
    kin_id = await new_kin(server)
    await memorize_all(server, kin_id)
    by_meaning = await recall(server, kin_id, "what kind of diet does he follow, meat or not?")
    assert by_meaning[0] == "Nicolas is vegetarian"
    by_keyword = await recall(server, kin_id, "Next.js")
    assert by_keyword[0] == "We chose Next.js for the school project website"


async def test_forget_removes_a_memory_from_both_indexes(server: RunningServer) -> None:
    kin_id = await new_kin(server)
    ids = await memorize_all(server, kin_id)
    target = "We chose Next.js for the school project website"
    await TOOL["forget"].run(context(server, kin_id), {"memory_id": ids[target]})
    assert target not in await recall(server, kin_id, "Next.js")
    assert target not in await recall(server, kin_id, "which web framework for the school site")
    db = server.platform.db
    fts = await db.read(
        lambda: db.sql("select count(*) from memory_fts where rowid = ?", (ids[target],)).fetchone()
    )
    vec = await db.read(
        lambda: db.sql(
            "select count(*) from memory_vec_384 where rowid = ?", (ids[target],)
        ).fetchone()
    )
    assert fts == (0,) and vec == (0,)
    with pytest.raises(ToolError, match="no memory"):
        await TOOL["forget"].run(context(server, kin_id), {"memory_id": ids[target]})


async def test_update_and_list_memories(server: RunningServer) -> None:
    kin_id = await new_kin(server)
    ids = await memorize_all(server, kin_id)
    budget = ids["The grocery budget is 600 euros a month"]
    updated = await TOOL["update_memory"].run(
        context(server, kin_id),
        {"memory_id": budget, "new_content": "The grocery budget is 650 euros a month"},
    )
    assert updated["memory"]["content"].endswith("650 euros a month")
    assert (await recall(server, kin_id, "650"))[0] == "The grocery budget is 650 euros a month"
    listed = await TOOL["list_memories"].run(context(server, kin_id), {"subject": "family"})
    assert len(listed["memories"]) == 2
    facts = await TOOL["list_memories"].run(context(server, kin_id), {"category": "fact"})
    assert {m["subject"] for m in facts["memories"]} == {"Nicolas", "Marie"}
    with pytest.raises(ToolError, match="category"):
        await TOOL["memorize"].run(context(server, kin_id), {"content": "x", "category": "gossip"})


async def test_memories_belong_to_their_kin(server: RunningServer) -> None:
    chef, scout = await new_kin(server), await new_kin(server)
    ids = await memorize_all(server, chef)
    assert await recall(server, scout, "Nicolas vegetarian") == []
    with pytest.raises(ToolError):
        await TOOL["forget"].run(
            context(server, scout), {"memory_id": ids["Nicolas is vegetarian"]}
        )
    response = await server.client.get(f"/api/kins/{scout}/memories")
    assert response.json() == {"memories": []}


async def test_the_memories_api_lists_searches_and_deletes(server: RunningServer) -> None:
    kin_id = await new_kin(server)
    ids = await memorize_all(server, kin_id)
    listed = (await server.client.get(f"/api/kins/{kin_id}/memories")).json()["memories"]
    assert len(listed) == 5
    searched = (await server.client.get(f"/api/kins/{kin_id}/memories?q=peanuts")).json()[
        "memories"
    ]
    assert searched[0]["content"] == "Marie is allergic to peanuts"
    # A search nothing is like finds nothing, rather than every memory in some order.
    nonsense = await server.client.get(f"/api/kins/{kin_id}/memories?q=zzqqxx")
    assert nonsense.json() == {"memories": []}
    target = ids["Marie is allergic to peanuts"]
    assert (await server.client.delete(f"/api/kins/{kin_id}/memories/{target}")).status_code == 204
    assert (await server.client.delete(f"/api/kins/{kin_id}/memories/{target}")).status_code == 404


async def test_relevant_memories_are_injected_before_each_call(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    await memorize_all(server, kin_id)
    fake_llm.enqueue(Reply(text="Carrot sticks, no peanuts for Marie."))
    async with sse_stream(server.client) as stream:
        sent = (await server.client.post(
            f"/api/kins/{kin_id}/messages", json={"content": "What snacks can I give Marie?"}
        )).json()["message"]  # fmt: skip
        await stream.wait_for(lambda e: e.type == "message.status" and e.data["id"] == sent["id"]
                              and e.data["status"] == "done")  # fmt: skip
    system = fake_llm.requests_to("chat")[-1].body["messages"][0]["content"]
    section = system.split("## Relevant memories\n", 1)[1].split("\n## ", 1)[0]
    assert section.splitlines()[0] == "- Marie is allergic to peanuts (fact, about Marie)"


async def test_search_history_finds_earlier_messages(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    platform = server.platform
    for text in ("We booked the Rome flights for the 12th of August", "Dinner is at eight"):
        await platform.kins.add_message(
            kin_id, role="user", source="user", sender_name="Nico", content=text
        )
    hits = await TOOL["search_history"].run(
        context(server, kin_id), {"query": "when are the flights to Rome?"}
    )
    assert hits["messages"][0]["content"].startswith("We booked the Rome flights")
    assert all("Dinner" not in h["content"] for h in hits["messages"][:1])


async def test_the_memory_backend_cannot_be_disabled(server: RunningServer) -> None:
    refused = await server.client.patch("/api/plugins/sqlite_memory", json={"enabled": False})
    assert refused.status_code == 409
    assert refused.json()["error"]["details"]["reason"] == "it provides the only memory backend"


def turn_done(message_id: int) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "message.status" and e.data["id"] == message_id and e.data["status"] == "done"
    )


async def test_the_memory_query_carries_the_recent_context(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    """A follow-up that names nothing gets the memories of what it follows."""
    kin_id = await new_kin(server)
    await memorize_all(server, kin_id)
    fake_llm.enqueue(Reply(text="A birthday picnic for Marie, lovely: peanut butter sandwiches?"))
    fake_llm.enqueue(Reply(text="Yes, mind what she cannot eat."))
    async with sse_stream(server.client) as stream:
        for text in ("We are planning a picnic.", "Is there anything to watch out for?"):
            sent = (await server.client.post(
                f"/api/kins/{kin_id}/messages", json={"content": text}
            )).json()["message"]  # fmt: skip
            await stream.wait_for(turn_done(sent["id"]))
    system = fake_llm.requests_to("chat")[-1].body["messages"][0]["content"]
    section = system.split("## Relevant memories\n", 1)[1].split("\n## ", 1)[0]
    assert section.splitlines()[0] == "- Marie is allergic to peanuts (fact, about Marie)"


async def test_injected_memories_stay_within_their_token_budget(
    data_dir: Any, fake_llm: FakeOpenAI
) -> None:
    # "- Marie is allergic to peanuts (fact, about Marie)\n" is 13 tokens by the estimate.
    platform = Platform(load_settings(data_dir=data_dir, memory_injected_max_tokens=14))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_local_memory_providers(server.client, fake_llm)
        kin_id = await new_kin(server)
        await memorize_all(server, kin_id)
        memory = await platform.memory.backend().prompt_context(
            platform, kin_id, "Can Marie eat peanuts?"
        )
    assert memory.memories == ["Marie is allergic to peanuts (fact, about Marie)"]


async def test_a_sub_kin_uses_the_memories_of_the_kin_it_copies(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    await memorize_all(server, kin_id)
    sub_systems: list[str] = []

    def respond(request: Any) -> Reply | None:
        if request.endpoint != "chat":
            return None
        messages = request.body["messages"]
        last = messages[-1]
        if "ephemeral sub-Kin" not in messages[0]["content"]:  # Chef's main session
            if last["content"].startswith("[Nico"):
                return Reply(tool_calls=[("spawn_self", {"task_description": "Snacks for Marie?"})])
            return Reply(text="Ok.")
        sub_systems.append(messages[0]["content"])
        if last["role"] == "tool":
            return Reply(text="No peanuts for Marie.")
        return Reply(tool_calls=[("recall", {"query": "Marie allergy"})])

    fake_llm.responder = respond
    async with sse_stream(server.client) as stream:
        await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "Delegate."})
        ended = await stream.wait_for(
            lambda e: e.type == "task.updated" and e.data["task"]["status"] == "completed"
        )
    task = (await server.client.get(f"/api/tasks/{ended.data['task']['id']}")).json()
    recalled = next(m for m in task["messages"] if m["role"] == "tool")
    assert "Marie is allergic to peanuts" in recalled["content"]
    assert "- Marie is allergic to peanuts (fact, about Marie)" in sub_systems[0]
    assert task["task"]["result"] == "No peanuts for Marie."

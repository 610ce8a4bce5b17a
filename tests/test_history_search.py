"""Searching a Kin's history from the chat (``GET /api/kins/<id>/history/search``) and
reading a result in context (``GET /api/kins/<id>/messages?around=`` and ``?after=``), over
HTTP against a real server, its SQLite file and a fake OpenAI server."""

from __future__ import annotations

from typing import Any

import httpx

from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_web.blueprints.history_search import snippet
from tests.support import server_fixtures
from tests.support.accounts import MARIE, register
from tests.support.server import RunningServer

PLUMBER = "The plumber comes on Tuesday morning to fix the kitchen sink."


# The server and fake OpenAI fixtures, under the names pytest looks for.
fake_llm, server = server_fixtures.fake_llm, server_fixtures.server


async def make_kin(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await client.post("/api/kins", json={"name": name, "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin: dict[str, Any] = response.json()["kin"]
    return kin


async def fill_history(platform: Platform, kin_id: str, plumber_at: int, total: int) -> int:
    """``total`` stored messages, the plumber's at index ``plumber_at``; returns its id."""
    found = 0
    for index in range(total):
        content = PLUMBER if index == plumber_at else f"Chat number {index} about the weather."
        message = await platform.kins.add_message(
            kin_id,
            role="user" if index % 2 == 0 else "assistant",
            source="user" if index % 2 == 0 else "kin",
            sender_name="Nico" if index % 2 == 0 else None,
            content=content,
        )
        found = message.id if index == plumber_at else found
    return found


async def test_a_search_finds_an_old_message_which_then_opens_in_its_context(
    server: RunningServer,
) -> None:
    chef = await make_kin(server.client, "Chef")
    other = await make_kin(server.client, "Penny")
    plumber = await fill_history(server.platform, chef["id"], plumber_at=30, total=120)
    await server.platform.kins.add_message(
        other["id"], role="user", source="user", sender_name="Nico", content="The plumber again?"
    )

    # Searched once the history is embedded: a search while the indexer is half-way has
    # the meaning of only some messages to rank.
    await backend.indexer(server.platform).catch_up()
    found = await server.client.get(
        f"/api/kins/{chef['id']}/history/search", params={"q": "plumber"}
    )
    assert found.status_code == 200, found.text
    results = found.json()["results"]
    assert results[0]["message_id"] == plumber
    assert results[0]["snippet"] == PLUMBER
    assert results[0]["role"] == "user" and results[0]["sender_name"] == "Nico"
    assert isinstance(results[0]["created_at"], float)
    # Only this Kin's session: Penny's message with the same word is not among them.
    mine = {
        m["id"]
        for m in (await server.client.get(f"/api/kins/{chef['id']}/messages?limit=200")).json()[
            "messages"
        ]
    }
    assert {result["message_id"] for result in results} <= mine

    # The page around it has it in the middle, and says where older and newer pages start.
    around = await server.client.get(
        f"/api/kins/{chef['id']}/messages", params={"around": plumber, "limit": 20}
    )
    assert around.status_code == 200, around.text
    page = around.json()
    ids = [m["id"] for m in page["messages"]]
    assert len(ids) == 20 and plumber in ids and ids == sorted(ids)
    assert ids.index(plumber) == 10
    assert page["next_before"] == ids[0] and page["next_after"] == ids[-1]
    # Going on forward reaches the latest message, then says there is nothing after it.
    after = ids[-1]
    seen = list(ids)
    while after is not None:
        newer = (
            await server.client.get(
                f"/api/kins/{chef['id']}/messages", params={"after": after, "limit": 50}
            )
        ).json()
        seen += [m["id"] for m in newer["messages"]]
        after = newer["next_after"]
    assert seen == sorted(mine)[sorted(mine).index(ids[0]) :]
    # Near the beginning: fewer older messages, more newer ones, and no older page.
    first = await server.client.get(
        f"/api/kins/{chef['id']}/messages", params={"around": sorted(mine)[1], "limit": 10}
    )
    assert [m["id"] for m in first.json()["messages"]] == sorted(mine)[:10]
    assert first.json()["next_before"] is None


async def test_a_search_nothing_matches_finds_nothing_and_words_are_always_found(
    server: RunningServer,
) -> None:
    chef = await make_kin(server.client, "Chef")
    plumber = await fill_history(server.platform, chef["id"], plumber_at=3, total=12)
    await backend.indexer(server.platform).catch_up()  # every message has its meaning
    search = f"/api/kins/{chef['id']}/history/search"

    nonsense = await server.client.get(search, params={"q": "zzzqqq"})
    assert nonsense.status_code == 200, nonsense.text
    assert nonsense.json()["results"] == []  # not the nearest messages, however far
    # A message with the query's words is found whatever its meaning's score.
    found = (await server.client.get(search, params={"q": "plumber zzzqqq"})).json()["results"]
    assert [result["message_id"] for result in found] == [plumber]
    weather = (await server.client.get(search, params={"q": "weather"})).json()["results"]
    assert len(weather) == 11


async def test_searching_and_opening_history_is_for_signed_in_members_and_this_kins_messages(
    server: RunningServer,
) -> None:
    chef = await make_kin(server.client, "Chef")
    other = await make_kin(server.client, "Penny")
    plumber = await fill_history(server.platform, chef["id"], plumber_at=1, total=4)
    search = f"/api/kins/{chef['id']}/history/search"

    async with server.new_client() as stranger:
        assert (await stranger.get(search, params={"q": "plumber"})).status_code == 401
        assert (
            await stranger.get(f"/api/kins/{chef['id']}/messages", params={"around": plumber})
        ).status_code == 401

    async with server.new_client() as member:
        marie = await register(server.client, member, MARIE)
        # Kins are shared by the household: a member may read and search every Kin's chat.
        assert (await member.get(search, params={"q": "plumber"})).status_code == 200
        # A member whose account was disabled may not any more.
        disabled = await server.client.patch(f"/api/users/{marie['id']}", json={"is_active": False})
        assert disabled.status_code == 200
        assert (await member.get(search, params={"q": "plumber"})).status_code == 401

    # A message of another Kin's session is not opened through this Kin, nor the reverse.
    assert (
        await server.client.get(f"/api/kins/{other['id']}/messages", params={"around": plumber})
    ).status_code == 404
    assert (
        await server.client.get("/api/kins/nope/history/search", params={"q": "plumber"})
    ).status_code == 404
    assert (
        await server.client.get(f"/api/kins/{chef['id']}/messages", params={"around": 10**12})
    ).status_code == 404

    # Bad input is a clear 400.
    bad: list[dict[str, str | int]] = [
        {"q": "  "},
        {"q": "x", "limit": 0},
        {"q": "x", "limit": "many"},
        {"q": "x" * 501},
    ]
    for params in bad:
        assert (await server.client.get(search, params=params)).status_code == 400, params
    both = await server.client.get(
        f"/api/kins/{chef['id']}/messages", params={"around": plumber, "before": plumber}
    )
    assert both.status_code == 400 and both.json()["error"]["code"] == "invalid_request"
    # A query FTS5 would read as syntax is searched as words.
    assert (await server.client.get(search, params={"q": 'plumber" OR (NEAR'})).status_code == 200


async def test_a_found_task_end_reads_as_its_result_without_the_task_id(
    server: RunningServer,
) -> None:
    chef = await make_kin(server.client, "Chef")
    # Stored as a task's delivery stores it (kinbot_core/tasks/service.py): the text for the
    # model names the task by its id, the meta holds what a person reads.
    await server.platform.kins.add_message(
        chef["id"],
        role="user",
        source="task",
        sender_id="task_5f0c2a9e41b7",
        sender_name="Find a soup",
        content="Task task_5f0c2a9e41b7 completed. Result:\nLeek and potato soup, 30 minutes.",
        kin_message_type="task_result",
        task_id="task_5f0c2a9e41b7",
        status="done",
        meta={"task_title": "Find a soup", "worker_name": "Chef", "spawned_self": True,
              "result": "Leek and potato soup, 30 minutes.", "error": None, "cron_name": None},
    )  # fmt: skip

    found = await server.client.get(f"/api/kins/{chef['id']}/history/search", params={"q": "leek"})

    assert found.status_code == 200, found.text
    (result,) = found.json()["results"]
    assert result["snippet"] == "Leek and potato soup, 30 minutes."
    assert result["sender_name"] == "Find a soup"


def test_a_snippet_shows_the_words_found_in_a_long_message() -> None:
    long = "Intro words. " * 40 + "The plumber finally came. " + "Closing words. " * 40
    cut = snippet(long, "plumber")
    assert "plumber" in cut and cut.startswith("…") and cut.endswith("…")
    assert len(cut) <= 222
    assert snippet("Short one", "x") == "Short one"
    assert snippet(long, "unrelated").startswith("Intro words.")

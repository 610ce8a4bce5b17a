"""A Kin with more contacts than its prompt lists, over real HTTP and SSE, a real SQLite file
and the fake OpenAI server: the prompt names the contacts linked to people of the platform
and the most recent ones, says how many more there are, and the Kin finds one of the others
with ``search_contacts``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import (
    make_kin,
    serve_with_openai,
    session,
    tell,
    tool_results,
    turn_ended,
)
from tests.support.server_fixtures import fake_llm as fake_llm
from tests.support.sse import sse_stream


async def test_the_prompt_lists_some_contacts_and_the_kin_finds_the_others(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm, contacts_listed_max=2) as server:
        kin_id = await make_kin(server.client)
        me = (await server.client.get("/api/me")).json()["user"]
        contacts = server.platform.contacts
        marie = await contacts.create(kin_id, "Marie", "human", linked_id=me["id"])
        plumber = await contacts.create(kin_id, "Plumber Jo", "human", relation="The boiler")
        await contacts.create(kin_id, "Baker", "human")
        fake_llm.enqueue(
            Reply(tool_calls=[("search_contacts", {"query": "boiler"})]),
            Reply(text="Jo, the plumber."),
        )
        async with sse_stream(server.client) as stream:
            message_id = await tell(server.client, kin_id, "Who fixes our boiler?")
            await stream.wait_for(turn_ended(message_id))
        chats = [r.body for r in fake_llm.requests if r.endpoint == "chat"]
        system = chats[0]["messages"][0]["content"]
        assert f"- Marie (human, id {marie.id})" in system and "- Baker (human, id" in system
        assert "Plumber Jo" not in system
        assert "And 1 more, not listed here: look them up with search_contacts" in system
        (found,) = tool_results(await session(server.client, kin_id), "search_contacts")
        assert plumber.id in found["content"] and "The boiler" in found["content"]
        assert plumber.id in json.dumps(chats[1]["messages"])

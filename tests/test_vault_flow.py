"""The Vault in Kins' turns, over real HTTP and SSE with the fake OpenAI server as the model
(chat and embeddings): ``get_secret`` gives the value to the model of that turn only; replies
are masked (streamed deltas and stored text, even with the value split across deltas); a
secret pasted in the chat and redacted with ``redact_message`` leaves no trace in the
database file, its write-ahead log, the full-text index or the embedding requests; prompts,
summaries, memories and logs never carry a value."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.memory_extraction import extraction_of
from kinbot_plugins.tools.vault_tools import TOOLS
from tests.support.accounts import set_up_admin
from tests.support.database_bytes import database_bytes, traces
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import reply_to
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseReader, sse_stream

TOKEN = "ghp_Zq7xK9mP2vL4nR8tW1yBc3"
PASTED = "ghp_Hs6dF1gJ8kL3zX5cV9bN0m"
REDACT = next(tool for tool in TOOLS if tool.name == "redact_message")


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    settings = load_settings(
        data_dir=data_dir,
        llm_max_retries=0,
        memory_extraction_delay_seconds=3600,  # extraction runs when the test asks
        compacting_keep_recent_messages=2,
    )
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def new_kin(server: RunningServer) -> str:
    response = await server.client.post("/api/kins", json={"name": "Dev", "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def say(server: RunningServer, stream: SseReader, kin_id: str, text: str) -> dict[str, Any]:
    """Send ``text`` and wait until the turn it starts is over."""
    response = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message: dict[str, Any] = response.json()["message"]
    await stream.wait_for(reply_to(message["id"]))
    await stream.wait_for(lambda e: e.type == "message.status" and e.data["id"] == message["id"])
    return message


async def history(server: RunningServer, kin_id: str) -> list[dict[str, Any]]:
    response = await server.client.get(f"/api/kins/{kin_id}/messages")
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


async def test_get_secret_gives_the_value_to_this_turn_only_and_replies_are_masked(
    server: RunningServer, fake_llm: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    created = await server.client.post(
        "/api/vault", json={"key": "GITHUB_TOKEN", "value": TOKEN, "description": "repo"}
    )
    assert created.status_code == 201
    kin_id = await new_kin(server)
    # The model reads the secret, then (wrongly) writes it in its reply, in 5-character
    # deltas: the value is split across several of them.
    # It also (wrongly) memorizes it: a tool that stores its arguments gets the placeholder.
    note = {"content": f"The repo token is {TOKEN}", "category": "fact", "subject": "repo"}
    fake_llm.enqueue(
        Reply(text="Let me look.", tool_calls=[("get_secret", {"key": "GITHUB_TOKEN"})]),
        Reply(tool_calls=[("memorize", note)]),
        Reply(text=f"Your token is {TOKEN}, keep it safe.", chunk_size=5),
    )
    async with sse_stream(server.client) as stream:
        first = await say(server, stream, kin_id, "Which token do we use for the repo?")
        deltas = [
            e.data["text"] for e in stream.of_type("kin.delta") if e.data["turn"] == first["id"]
        ]
        fake_llm.enqueue(Reply(text="Nothing else to do."))
        await say(server, stream, kin_id, "Anything else?")
    assert TOKEN not in json.dumps([event.data for event in stream.events])  # no SSE item
    chats = fake_llm.requests_to("chat")
    assert len(chats) == 4
    # The model of the first turn got the value as the tool result, and only there.
    tool_result = chats[1].body["messages"][-1]
    assert tool_result["role"] == "tool" and tool_result["content"] == TOKEN
    assert chats[2].body["messages"][-3] == tool_result
    assert TOKEN not in chats[0].raw_body.decode()
    # The next turn's prompt holds the placeholder: the value is not kept in the session.
    later = chats[3].raw_body.decode()
    assert TOKEN not in later and "[SECRET: GITHUB_TOKEN]" in later

    masked = "Your token is [SECRET: GITHUB_TOKEN], keep it safe."
    assert "".join(deltas) == "Let me look." + masked
    stored = await history(server, kin_id)
    assert [m["role"] for m in stored] == [
        *("user", "assistant", "tool", "assistant", "tool", "assistant"),
        *("user", "assistant"),
    ]
    assert stored[1]["tool_calls"][0]["arguments"] == {"key": "GITHUB_TOKEN"}
    assert stored[2]["content"] == "[SECRET: GITHUB_TOKEN]"
    noted = "The repo token is [SECRET: GITHUB_TOKEN]"
    assert stored[3]["tool_calls"][0]["arguments"]["content"] == noted
    assert stored[5]["content"] == masked and stored[5]["turn_of"] == first["id"]
    assert TOKEN not in json.dumps(stored)
    secret = (await server.client.get("/api/vault/GITHUB_TOKEN")).json()["secret"]
    assert secret["last_used_at"] is not None and secret["value"] == "********"

    # A summary and extracted memories are made from the stored (masked) session: the
    # compacting first extracts the memories of what it folds, then summarises.
    memory = {
        "content": "The repo token is kept in the Vault as GITHUB_TOKEN",
        "category": "fact",
        "subject": "Nico",
        "source_message_id": first["id"],
    }
    summary = "Nico asked which token the repo uses; Dev looked it up."
    fake_llm.enqueue(Reply(text=json.dumps({"memories": [memory]})), Reply(text=summary))
    compacted = await server.client.post(f"/api/kins/{kin_id}/compacting")
    assert compacted.status_code == 201, compacted.text
    assert compacted.json()["snapshot"]["summary"] == summary
    await extraction_of(server.platform).extractor.extract(kin_id)
    await backend.indexer(server.platform).catch_up()
    platform = server.platform
    summaries = await platform.db.read(
        lambda: [row[0] for row in platform.db.sql("select summary from compacting_snapshot")]
    )
    memories = await platform.db.read(
        lambda: [row[0] for row in platform.db.sql("select content from memory")]
    )
    assert summaries == [summary] and set(memories) == {noted, memory["content"]}
    assert not any(TOKEN in text for text in summaries + memories)

    # Of every request the fake received (chat, summary, extraction, embeddings), only the
    # sanctioned one carried the value.
    carrying = [r for r in fake_llm.requests if TOKEN in r.raw_body.decode()]
    assert carrying == chats[1:3]
    assert {r.endpoint for r in fake_llm.requests} >= {"chat", "embeddings"}
    assert TOKEN not in caplog.text
    assert "vault.secret.read" in caplog.text  # the event log saw the read, not the value
    raw = database_bytes(platform.settings.database_path)
    assert not [trace for trace in traces(TOKEN) if trace in raw]

    # Redacting a message already summarised and mined says what was made from it.
    context = ToolContext(platform, kin_id, "Dev", Speaker("user", None, "Nico"), None)
    arguments = {"message_id": first["id"], "redacted_text": "Which [SECRET: GITHUB_TOKEN]?"}
    done = await REDACT.run(context, arguments)
    mined = await platform.db.read(
        lambda: [
            row[0]
            for row in platform.db.sql(
                "select id from memory where source_message_id = ?", (first["id"],)
            )
        ]
    )
    assert mined and done["memories_from_it"] == mined and "summary_note" in done


async def test_a_pasted_secret_redacted_leaves_no_trace_in_the_database_file(
    server: RunningServer, fake_llm: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    # A pasted secret is not in the Vault, so nothing can scrub it from logs: at DEBUG,
    # peewee logs every query with its parameters. Up to INFO, no log line quotes messages.
    caplog.set_level(logging.INFO)
    kin_id = await new_kin(server)
    platform = server.platform
    pasted = f"Here is my GitHub token: {PASTED} for the family repo"
    redacted = "Here is my GitHub token: [SECRET: GITHUB_TOKEN] for the family repo"
    fake_llm.enqueue(
        Reply(tool_calls=[("redact_message", {"redacted_text": redacted})]),
        Reply(text="I took the token out of our history; ask an admin to put it in the Vault."),
    )
    async with sse_stream(server.client) as stream:
        message = await say(server, stream, kin_id, pasted)
        event = await stream.wait_for(lambda e: e.type == "message.redacted")
        # A control: a secret-looking text nobody redacts stays, and the search finds it.
        other = "ghp_Kept4Control7Value2x"
        fake_llm.enqueue(Reply(text="Noted."))
        await say(server, stream, kin_id, f"And {other} is just a label, not a secret.")
    assert event.data == {
        "kin_id": kin_id,
        "id": message["id"],
        "content": redacted,
        "redaction_pending": False,
    }
    stored = await history(server, kin_id)
    assert stored[0]["content"] == redacted
    assert [m["role"] for m in stored[:4]] == ["user", "assistant", "tool", "assistant"]
    assert json.loads(stored[2]["content"]) == {"status": "redacted", "message_id": message["id"]}

    await backend.indexer(platform).catch_up()
    embedded = [r.raw_body.decode() for r in fake_llm.requests if r.endpoint == "embeddings"]
    assert embedded and any("[SECRET: GITHUB_TOKEN]" in body for body in embedded)
    assert not any(PASTED in body for body in embedded)
    fulltext = await platform.memory.search_history(kin_id, PASTED.split("_")[1], limit=5)
    assert fulltext == [] or all(PASTED not in hit.content for hit in fulltext)
    flagged = await platform.db.read(
        lambda: platform.db.sql("select count(*) from message where redaction_pending").fetchone()
    )
    assert flagged[0] == 0

    path = platform.settings.database_path
    # The redaction emptied the write-ahead log itself (what came after holds no old page).
    wal = path.with_name(path.name + "-wal").read_bytes()
    assert not [trace for trace in traces(PASTED) if trace in wal]
    raw = database_bytes(path)
    assert not [trace for trace in traces(PASTED) if trace in raw]
    assert all(trace in raw for trace in traces(other))  # the search finds text and terms
    assert PASTED not in caplog.text
    # A browser resuming its stream is not replayed the pasted text either.
    resumed, _complete = platform.live.subscribe(stored[0]["sender_id"], after=0)
    replayed, _closed = resumed.waiting()
    assert any(item.data.get("message", {}).get("id") == message["id"] for item in replayed)
    assert not [item for item in replayed if PASTED.encode() in item.to_sse()]
    resumed.close()


async def test_redact_message_refuses_what_is_not_a_redaction_of_its_own_session(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    platform = server.platform
    kin_id = await new_kin(server)
    other_id = await new_kin(server)
    async with sse_stream(server.client) as stream:
        fake_llm.enqueue(Reply(text="Fine."))
        mine = await say(server, stream, kin_id, f"token {PASTED}")
        fake_llm.enqueue(Reply(text="Fine."))
        theirs = await say(server, stream, other_id, f"token {PASTED}")
    context = ToolContext(platform, kin_id, "Dev", Speaker("user", None, "Nico"), mine["id"])
    from kinbot_core.tools import ToolError

    refusals = [
        ({"message_id": theirs["id"], "redacted_text": "token [SECRET: X]"}, "no message"),
        ({"message_id": 999999, "redacted_text": "token [SECRET: X]"}, "no message"),
        ({"redacted_text": "token removed"}, "placeholder"),
        ({"redacted_text": ""}, "cannot be empty"),
        ({"message_id": "abc", "redacted_text": "token [SECRET: X]"}, "message id"),
        ({"redacted_text": "token [SECRET: X]", "extra": 1}, "no argument"),
    ]
    for arguments, reason in refusals:
        with pytest.raises(ToolError, match=reason):
            await REDACT.run(context, arguments)
    after = await history(server, other_id)
    assert after[0]["content"] == f"token {PASTED}"
    done = await REDACT.run(context, {"redacted_text": "token [SECRET: X]"})
    assert done == {"status": "redacted", "message_id": mine["id"]}
    with pytest.raises(ToolError, match="nothing to redact"):
        await REDACT.run(context, {"redacted_text": "token [SECRET: X]"})


async def test_a_plain_update_would_leave_the_old_terms_in_the_file(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    """The control of the test above: what ``redact_message`` does beyond an UPDATE (merging
    the full-text index) is what takes the old terms out of the file."""
    platform = server.platform
    kin_id = await new_kin(server)
    async with sse_stream(server.client) as stream:
        fake_llm.enqueue(Reply(text="Fine."), Reply(text="Fine."))
        plain = await say(server, stream, kin_id, f"first {PASTED}")
        redacted = await say(server, stream, kin_id, f"second {TOKEN}")
    await platform.fulltext_queue.catch_up()  # both messages' terms are in the index
    db = platform.db
    await db.write(
        lambda: db.sql("update message set content = 'first [X]' where id = ?", (plain["id"],))
    )
    raw = database_bytes(platform.settings.database_path)
    assert PASTED.encode() not in raw  # the row itself was overwritten in place...
    assert traces(PASTED)[1] in raw  # ...but its terms stayed in the full-text index
    assert traces(TOKEN)[1] in raw
    await platform.vault.redact(kin_id, redacted["id"], "second [SECRET: GITHUB_TOKEN]")
    raw = database_bytes(platform.settings.database_path)
    # The redaction merged the index: the terms of both old texts are gone.
    assert not [trace for trace in traces(PASTED) + traces(TOKEN) if trace in raw]


async def test_a_pasted_value_the_vault_keeps_is_masked_before_the_turn_reads_it(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    created = await server.client.post("/api/vault", json={"key": "GITHUB_TOKEN", "value": TOKEN})
    assert created.status_code == 201
    kin_id = await new_kin(server)
    fake_llm.enqueue(Reply(text="That one is in the Vault already."))
    async with sse_stream(server.client) as stream:
        message = await say(server, stream, kin_id, f"Is {TOKEN} still valid?")
    masked = "Is [SECRET: GITHUB_TOKEN] still valid?"
    # Masked on arrival: the answer to the POST, the broadcast message and the stored one.
    assert message["content"] == masked and not message["redaction_pending"]
    assert TOKEN not in json.dumps([event.data for event in stream.events])
    assert (await history(server, kin_id))[0]["content"] == masked
    (chat,) = fake_llm.requests_to("chat")
    assert chat.body["messages"][-1]["content"] == f"[Nico] {masked}"
    # Nothing the fake received carried the value.
    assert not [r for r in fake_llm.requests if TOKEN in r.raw_body.decode()]
    raw = database_bytes(server.platform.settings.database_path)
    assert not [trace for trace in traces(TOKEN) if trace in raw]

"""Secrets caught on arrival, over real HTTP and SSE, a real SQLite file and the fake OpenAI
server as the model and the embedding provider: a pasted Vault value and a pasted unknown key
never reach another member's browser, the embeddings, the prompt or the database file (read
right after the POST, while the Kin is still busy with an earlier turn); ``store_secret``
moves a pasted key into the Vault without the model seeing it; a member dismisses a false
positive, and only the sender or an administrator may."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from tests.support.accounts import person, register, set_up_admin
from tests.support.database_bytes import leaked
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.gate_tool import Gate, GatePlugin
from tests.support.kin_chat import turn_ended
from tests.support.provider_setups import add_openai_provider
from tests.support.secret_samples import KEYS
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseReader, sse_stream

NAS_PASSWORD = "tRuffe-42-Chaton"
OPENAI_KEY = next(k.value for k in KEYS if k.name == "openai project")
GITHUB_TOKEN = next(k.value for k in KEYS if k.name == "github classic")
BUILD_ID = next(k.value for k in KEYS if k.name == "random 40")


@dataclass
class Family:
    server: RunningServer
    gate: Gate
    #: Nico, the administrator (``server.client``); Marie and Paul, members.
    marie: httpx.AsyncClient
    paul: httpx.AsyncClient

    @property
    def nico(self) -> httpx.AsyncClient:
        return self.server.client

    @property
    def platform(self) -> Platform:
        return self.server.platform


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def family(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[Family]:
    settings = load_settings(
        data_dir=data_dir, llm_max_retries=0, memory_extraction_delay_seconds=3600
    )
    plugin = GatePlugin()
    platform = Platform(settings)
    platform.plugins.register(plugin, "gate")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        async with server.new_client() as marie, server.new_client() as paul:
            await register(server.client, marie)
            await register(server.client, paul, person("Paul"))
            yield Family(server, plugin.gate, marie, paul)


async def new_kin(client: httpx.AsyncClient) -> str:
    response = await client.post("/api/kins", json={"name": "Dev", "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def post(client: httpx.AsyncClient, kin_id: str, text: str) -> dict[str, Any]:
    response = await client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message: dict[str, Any] = response.json()["message"]
    return message


async def stored(client: httpx.AsyncClient, kin_id: str, message_id: int) -> dict[str, Any]:
    response = await client.get(f"/api/kins/{kin_id}/messages")
    (message,) = [m for m in response.json()["messages"] if m["id"] == message_id]
    return dict(message)


def sent_to_the_fake(fake: FakeOpenAI, endpoint: str) -> list[str]:
    return [r.raw_body.decode() for r in fake.requests if r.endpoint == endpoint]


def everything(stream: SseReader) -> str:
    return json.dumps([event.data for event in stream.events])


async def test_pasted_secrets_reach_no_browser_embedding_prompt_or_file_before_the_turn(
    family: Family, fake_llm: FakeOpenAI
) -> None:
    nico, platform = family.nico, family.platform
    created = await nico.post("/api/vault", json={"key": "NAS_PASSWORD", "value": NAS_PASSWORD})
    assert created.status_code == 201
    kin_id = await new_kin(nico)
    # A memory to recall: each turn's memory query is then embedded.
    await platform.memory.memorize(kin_id, "The NAS sits in the attic", "fact", "home")
    database = platform.settings.database_path
    # The Kin is busy with a first turn (a tool that waits), so the pasted message waits in
    # its queue: what follows is what exists before the Kin's turn.
    fake_llm.enqueue(
        Reply(tool_calls=[("wait_for_oven", {})]),
        Reply(text="The oven is hot."),
        Reply(text="I see a hidden secret; shall I keep it in the Vault?"),
    )
    async with sse_stream(family.marie) as marie_stream, sse_stream(nico) as nico_stream:
        first = await post(nico, kin_id, "Is the oven hot?")
        await family.gate.entered.wait()
        text = f"The NAS password is {NAS_PASSWORD} and the OpenAI key is {OPENAI_KEY}, ok?"
        pasted = await post(nico, kin_id, text)

        # Right after the POST: the answer, the file (its log included) hold placeholders.
        masked = (
            "The NAS password is [SECRET: NAS_PASSWORD] and the OpenAI key is "
            "[PENDING SECRET 1], ok?"
        )
        assert pasted["content"] == masked and pasted["redaction_pending"] is True
        assert pasted["status"] == "queued"
        assert not leaked(NAS_PASSWORD, database, checkpoint=False)
        assert not leaked(OPENAI_KEY, database, checkpoint=False)
        # Another member's browser (and the sender's) got the masked message.
        for stream in (marie_stream, nico_stream):
            event = await stream.wait_for(
                lambda e: e.type == "message" and e.data["message"]["id"] == pasted["id"]
            )
            assert event.data["message"]["content"] == masked
            assert event.data["message"]["redaction_pending"] is True

        family.gate.opened.set()
        await nico_stream.wait_for(turn_ended(first["id"]))
        await nico_stream.wait_for(turn_ended(pasted["id"]))
        await backend.indexer(platform).catch_up()
        for stream in (marie_stream, nico_stream):
            assert NAS_PASSWORD not in everything(stream)
            assert OPENAI_KEY not in everything(stream)

    # The model saw the placeholders and a note telling what to do, never a value.
    chats = sent_to_the_fake(fake_llm, "chat")
    assert len(chats) == 3
    last = json.loads(chats[2])["messages"][-1]["content"]
    assert last.startswith(f"[Nico] {masked}")
    assert f"store_secret(key, message_id={pasted['id']}, secret_number=N)" in last
    # Embeddings: the flagged message is neither indexed nor part of a memory query (the
    # first turn's query was embedded, and its messages indexed).
    embedded = sent_to_the_fake(fake_llm, "embeddings")
    assert any("Is the oven hot?" in body and "Nico:" not in body for body in embedded)
    assert any("oven is hot" in body for body in embedded)
    assert not any("PENDING SECRET" in body or "NAS_PASSWORD" in body for body in embedded)
    for value in (NAS_PASSWORD, OPENAI_KEY):
        assert not [body for body in chats + embedded if value in body]
        assert not leaked(value, database)
    assert (await stored(nico, kin_id, pasted["id"]))["content"] == masked


async def test_store_secret_moves_a_pasted_token_into_the_vault_without_showing_it(
    family: Family, fake_llm: FakeOpenAI
) -> None:
    nico, platform = family.nico, family.platform
    kin_id = await new_kin(nico)
    store = {"key": "GITHUB_TOKEN", "description": "Nico's token for the family repo"}
    fake_llm.enqueue(
        Reply(tool_calls=[("store_secret", store)]),
        Reply(text="Kept in the Vault as GITHUB_TOKEN."),
        Reply(tool_calls=[("get_secret", {"key": "GITHUB_TOKEN"})]),
        Reply(text="The token works."),
    )
    async with sse_stream(family.marie) as marie_stream:
        pasted = await post(nico, kin_id, f"Here is my GitHub token {GITHUB_TOKEN} keep it")
        await marie_stream.wait_for(turn_ended(pasted["id"]))
        redacted = await marie_stream.wait_for(lambda e: e.type == "message.redacted")
        later = await post(nico, kin_id, "Does the token work?")
        await marie_stream.wait_for(turn_ended(later["id"]))
    content = "Here is my GitHub token [SECRET: GITHUB_TOKEN] keep it"
    assert redacted.data == {
        "kin_id": kin_id,
        "id": pasted["id"],
        "content": content,
        "redaction_pending": False,
    }
    message = await stored(nico, kin_id, pasted["id"])
    assert message["content"] == content and message["redaction_pending"] is False
    session = (await nico.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    (result,) = [m for m in session if m["role"] == "tool" and m["sender_name"] == "store_secret"]
    assert json.loads(result["content"]) == {
        "status": "stored",
        "key": "GITHUB_TOKEN",
        "placeholder": "[SECRET: GITHUB_TOKEN]",
        "message_id": pasted["id"],
    }
    secret = (await nico.get("/api/vault/GITHUB_TOKEN")).json()["secret"]
    assert secret["description"] == store["description"] and secret["created_by"] is None

    # The Vault holds the value: the get_secret of the next turn gives it to that turn's
    # model, the only request that ever carried it.
    chats = fake_llm.requests_to("chat")
    assert len(chats) == 4
    assert chats[3].body["messages"][-1] == {
        "role": "tool",
        "content": GITHUB_TOKEN,
        "tool_call_id": chats[3].body["messages"][-2]["tool_calls"][0]["id"],
    }
    assert [r for r in fake_llm.requests if GITHUB_TOKEN in r.text] == [chats[3]]
    # Once stored, the message is indexed like any other, with its placeholder.
    await backend.indexer(platform).catch_up()
    embedded = sent_to_the_fake(fake_llm, "embeddings")
    assert any("[SECRET: GITHUB_TOKEN]" in body for body in embedded)
    assert not leaked(GITHUB_TOKEN, platform.settings.database_path)
    assert GITHUB_TOKEN not in everything(marie_stream)


async def test_only_the_sender_or_an_admin_dismisses_or_stores_a_hidden_secret(
    family: Family, fake_llm: FakeOpenAI
) -> None:
    nico, marie, paul = family.nico, family.marie, family.paul
    kin_id = await new_kin(nico)
    fake_llm.enqueue(Reply(text="Noted."), Reply(text="Noted."))
    text = f"The build id is {BUILD_ID}; my token is {GITHUB_TOKEN}"
    async with sse_stream(nico) as nico_stream:
        pasted = await post(marie, kin_id, text)
        await nico_stream.wait_for(turn_ended(pasted["id"]))
        hidden = "The build id is [PENDING SECRET 1]; my token is [PENDING SECRET 2]"
        assert pasted["content"] == hidden
        url = f"/api/kins/{kin_id}/messages/{pasted['id']}/secrets"

        # Paul neither sent it nor administers: refused.
        assert (await paul.post(f"{url}/1/dismiss")).status_code == 403
        refused = await paul.post(f"{url}/2/store", json={"key": "MARIE_TOKEN"})
        assert refused.status_code == 403
        # Marie, who sent it, says the build id is not a secret: it comes back.
        dismissed = await marie.post(f"{url}/1/dismiss")
        assert dismissed.status_code == 200, dismissed.text
        restored = f"The build id is {BUILD_ID}; my token is [PENDING SECRET 2]"
        assert dismissed.json()["message"]["content"] == restored
        assert dismissed.json()["message"]["redaction_pending"] is True
        event = await nico_stream.wait_for(lambda e: e.type == "message.restored")
        assert event.data["content"] == restored and event.data["redaction_pending"] is True
        assert (await marie.post(f"{url}/1/dismiss")).status_code == 404  # done already

        # Nico, an admin, stores the token from the chat; a taken key or a bad one is refused.
        await nico.post("/api/vault", json={"key": "TAKEN", "value": "something-else"})
        assert (await nico.post(f"{url}/2/store", json={"key": "TAKEN"})).status_code == 409
        assert (await nico.post(f"{url}/2/store", json={"key": "bad key"})).status_code == 400
        assert (await nico.post(f"{url}/9/store", json={"key": "MARIE_TOKEN"})).status_code == 404
        done = await nico.post(f"{url}/2/store", json={"key": "MARIE_TOKEN"})
        assert done.status_code == 201, done.text
        final = f"The build id is {BUILD_ID}; my token is [SECRET: MARIE_TOKEN]"
        assert done.json()["message"]["content"] == final
        assert done.json()["message"]["redaction_pending"] is False
        assert done.json()["secret"]["key"] == "MARIE_TOKEN"
        assert done.json()["secret"]["value"] == "********"

    # With nothing hidden left, the message is embedded, the build id with it.
    await backend.indexer(family.platform).catch_up()
    embedded = sent_to_the_fake(fake_llm, "embeddings")
    assert any(BUILD_ID in body and "[SECRET: MARIE_TOKEN]" in body for body in embedded)
    assert not [body for body in embedded if GITHUB_TOKEN in body]
    assert GITHUB_TOKEN not in everything(nico_stream)
    for bad in ("x/1/dismiss", f"{pasted['id']}/x/dismiss", f"{2**70}/1/dismiss"):
        response = await nico.post(f"/api/kins/{kin_id}/messages/{bad}")
        assert response.status_code == 404, (bad, response.text)


async def test_text_from_another_kin_is_masked_and_ordinary_text_is_not_flagged(
    family: Family, fake_llm: FakeOpenAI
) -> None:
    nico, platform = family.nico, family.platform
    await nico.post("/api/vault", json={"key": "NAS_PASSWORD", "value": NAS_PASSWORD})
    kin_id = await new_kin(nico)
    other = await new_kin(nico)
    fake_llm.enqueue(Reply(text="Got it."), Reply(text="Got it."))
    async with sse_stream(nico) as stream:
        # What a Kin, a task or a cron sends has vault values masked; the detector is for
        # what people write (a task's id is no secret, nor a Kin's).
        relayed = await platform.kins.enqueue(
            kin_id,
            f"Nico's NAS password is {NAS_PASSWORD}; see task_{'ab12' * 8} and Kin {other}",
            source="kin",
            sender_id=other,
            sender_name="Dev",
            kin_message_type="inform",
        )
        assert relayed.content == (
            f"Nico's NAS password is [SECRET: NAS_PASSWORD]; see task_{'ab12' * 8} and Kin {other}"
        )
        assert not relayed.redaction_pending
        # A task's result added without a turn (a background task) is masked the same way.
        result = await platform.kins.add_message(
            kin_id,
            role="user",
            source="task",
            sender_name="Check the NAS",
            content=f"Logged in with {NAS_PASSWORD}.",
            status="done",
        )
        assert result.content == "Logged in with [SECRET: NAS_PASSWORD]."
        ordinary = await post(
            nico,
            kin_id,
            f"On mange quoi ce soir ? The wifi password is on the fridge. Kin id: {other}, "
            f"task_{'cd34' * 8}",
        )
        assert ordinary["redaction_pending"] is False
        assert "wifi password is on the fridge" in ordinary["content"]
        await stream.wait_for(turn_ended(ordinary["id"]))
    assert NAS_PASSWORD not in everything(stream)
    assert not leaked(NAS_PASSWORD, platform.settings.database_path)

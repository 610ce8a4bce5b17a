"""The Kin runtime over real HTTP and SSE, with a fake OpenAI server as the model."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest

from kinbot_core import hookimpl
from kinbot_core.config import Settings, load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext
from kinbot_core.usage import recorder
from tests.support.accounts import MARIE, person, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.gate_tool import gated_server
from tests.support.kin_chat import counted_writes, reply_to
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent, sse_stream


class Clock:
    """A tool the test Kin can call: it tells the time in a city, and counts its calls."""

    name = "get_time"
    description = "The current time in a city."
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    prompt_hint = ""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        self.calls.append(arguments)
        return {"city": arguments["city"], "time": "09:30"}


class ClockPlugin:
    def __init__(self) -> None:
        self.clock = Clock()

    @hookimpl
    def register_tools(self, register: Callable[[Any], None]) -> None:
        register(self.clock)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def clock_plugin() -> ClockPlugin:
    return ClockPlugin()


@pytest.fixture
def llm_timeout_seconds() -> float:
    """The time limit of each LLM call: the default, but where a test lets the fake stall."""
    return 120.0


@pytest.fixture
async def server(
    data_dir: Any, fake_llm: FakeOpenAI, clock_plugin: ClockPlugin, llm_timeout_seconds: float
) -> AsyncIterator[RunningServer]:
    settings = load_settings(
        data_dir=data_dir, llm_max_retries=2, llm_timeout_seconds=llm_timeout_seconds
    )
    platform = Platform(settings)
    platform.plugins.register(clock_plugin, "clock")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def make_kin(client: httpx.AsyncClient, **fields: Any) -> dict[str, Any]:
    body = {"name": "Chef", "role": "Family cook", "character": "Warm and brief.",
            "expertise": "Vegetarian cooking.", "model": "gpt-4o", **fields}  # fmt: skip
    response = await client.post("/api/kins", json=body)
    assert response.status_code == 201, response.text
    kin: dict[str, Any] = response.json()["kin"]
    return kin


async def send(client: httpx.AsyncClient, kin_id: str, text: str) -> dict[str, Any]:
    response = await client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message: dict[str, Any] = response.json()["message"]
    return message


def status_of(message_id: int, status: str) -> Callable[[SseEvent], bool]:
    return lambda e: e.type == "message.status" and e.data == {
        "kin_id": e.data.get("kin_id"), "id": message_id, "status": status,
    }  # fmt: skip


async def test_a_message_and_its_streamed_reply(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client)
    fake_llm.enqueue(Reply(text="Bonjour Nico! Tonight: a mushroom risotto.", chunk_size=6))
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "What do we cook tonight?")
        assert message["status"] == "queued" and message["sender_name"] == "Nico"
        reply = await stream.wait_for(reply_to(message["id"]))
        await stream.wait_for(status_of(message["id"], "done"))
        await stream.wait_for(lambda e: e.type == "kin.state" and e.data["state"] == "idle")
    assert reply.data["message"]["content"] == "Bonjour Nico! Tonight: a mushroom risotto."
    deltas = [e for e in stream.of_type("kin.delta") if e.data["turn"] == message["id"]]
    # Streamed before it was stored (the deltas read from the network together, as one).
    order = stream.events.index
    assert deltas and all(order(delta) < order(reply) for delta in deltas)
    assert "".join(e.data["text"] for e in deltas) == reply.data["message"]["content"]
    states = [e.data["state"] for e in stream.of_type("kin.state")]
    assert states[:1] == ["thinking"] and states[-1] == "idle"
    ids = [e.id for e in stream.events if e.id is not None]
    assert ids == sorted(ids)
    history = (await server.client.get(f"/api/kins/{kin['id']}/messages")).json()["messages"]
    assert [(m["role"], m["status"]) for m in history] == [("user", "done"), ("assistant", "done")]
    prompt = fake_llm.requests_to("chat")[-1].body["messages"]
    assert prompt[0]["role"] == "system" and "You are Chef, Family cook" in prompt[0]["content"]
    assert prompt[-1] == {"role": "user", "content": "[Nico] What do we cook tonight?"}
    sent = fake_llm.requests_to("chat")[-1]
    assert sent.api_key == API_KEY  # the key goes in the authentication header...
    assert API_KEY not in sent.raw_body.decode()  # ...and never into what the model reads


async def test_a_turn_writes_its_message_its_claim_and_its_reply_with_its_end(
    server: RunningServer, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three write transactions for a new Kin's first turn (its worker starts with it): the
    message stored, then taken, then the reply with its trigger marked done and the Kin idle;
    usage is written later, in a batch. Later turns store and take their message in one
    (``test_queue_claims``)."""
    monkeypatch.setattr(recorder, "WRITE_DELAY_SECONDS", 3600.0)
    kin = await make_kin(server.client)
    written = await counted_writes(server.platform, monkeypatch)
    fake_llm.enqueue(Reply(text="A leek soup."))
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "Soup?")
        await stream.wait_for(status_of(message["id"], "done"))
    assert len(written) == 3, written
    ending = [e for e in stream.events if e.id is not None][-3:]
    assert [e.type for e in ending] == ["message", "message.status", "kin.state"]
    first = ending[0].id
    assert first is not None and [e.id for e in ending] == [first, first + 1, first + 2]


async def test_two_tool_calls_in_a_row_then_the_answer(
    server: RunningServer, fake_llm: FakeOpenAI, clock_plugin: ClockPlugin
) -> None:
    kin = await make_kin(server.client)
    fake_llm.enqueue(
        Reply(text="Checking Rome.", tool_calls=[("get_time", {"city": "Rome"})]),
        Reply(tool_calls=[("get_time", {"city": "Paris"})]),
        Reply(text="It is 09:30 in Rome and in Paris."),
    )
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "What time is it in Rome and Paris?")
        await stream.wait_for(reply_to(message["id"]))
    assert clock_plugin.clock.calls == [{"city": "Rome"}, {"city": "Paris"}]
    history = (await server.client.get(f"/api/kins/{kin['id']}/messages")).json()["messages"]
    assert [m["role"] for m in history] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert '"time": "09:30"' in history[2]["content"]
    requests = fake_llm.requests_to("chat")
    assert len(requests) == 3
    last = requests[-1].body["messages"]
    assert [m["role"] for m in last[1:]] == ["user", "assistant", "tool", "assistant", "tool"]
    assert last[2]["tool_calls"][0]["function"]["name"] == "get_time"
    assert {t["function"]["name"] for t in requests[0].body["tools"]} >= {"get_time", "list_kins"}
    tools = [e.data for e in stream.of_type("kin.tool")]
    assert [(t["name"], t["status"]) for t in tools] == [
        ("get_time", "running"),
        ("get_time", "done"),
        ("get_time", "running"),
        ("get_time", "done"),
    ]


async def test_two_users_in_one_session_are_told_apart(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client)
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        async with sse_stream(server.client) as stream:
            first = await send(server.client, kin["id"], "I am vegetarian.")
            await stream.wait_for(reply_to(first["id"]))
            second = await send(marie, kin["id"], "And I am allergic to peanuts.")
            await stream.wait_for(reply_to(second["id"]))
    prompt = fake_llm.requests_to("chat")[-1].body["messages"]
    system = prompt[0]["content"]
    assert "You are answering Marie (a person using KinBot" in system
    assert "Answer in English" in system
    first_system = fake_llm.requests_to("chat")[0].body["messages"][0]["content"]
    assert "You are answering Nico" in first_system and "Answer in French" in first_system
    user_turns = [m["content"] for m in prompt if m["role"] == "user"]
    assert user_turns == ["[Nico] I am vegetarian.", "[Marie] And I am allergic to peanuts."]


async def test_a_user_message_overtakes_queued_automatic_messages(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client)
    platform = server.platform
    first_answered = threading.Event()  # the first turn runs until the others are queued
    fake_llm.enqueue(Reply(text="Working on the first one...", held=first_answered))
    async with sse_stream(server.client) as stream:
        first = await send(server.client, kin["id"], "First question")
        await stream.wait_for(status_of(first["id"], "processing"))
        automatic = [
            await platform.kins.enqueue(
                kin["id"], f"Report {n}", source="kin", sender_id="k2", sender_name="Scout"
            )
            for n in (1, 2)
        ]
        waiting = (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]
        assert waiting["queue_length"] == 2
        urgent = await send(server.client, kin["id"], "Urgent: is the oven on?")
        await stream.wait_for(
            lambda e: e.type == "kin.queue" and e.data == {"kin_id": kin["id"], "queue_length": 3}
        )
        first_answered.set()
        await stream.wait_for(reply_to(automatic[-1].id))
    order = [r.body["messages"][-1]["content"] for r in fake_llm.requests_to("chat")]
    assert order == [
        "[Nico] First question",
        "[Nico] Urgent: is the oven on?",
        "[Kin Scout] Report 1",
        "[Kin Scout] Report 2",
    ]
    assert urgent["status"] == "queued"


async def test_a_rate_limit_then_success_gives_the_reply(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client)
    fake_llm.enqueue(
        Reply(status=429, headers={"retry-after": "0"}), Reply(text="Sorry for the wait!")
    )
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "Hello?")
        reply = await stream.wait_for(reply_to(message["id"]))
        await stream.wait_for(lambda e: e.type == "kin.state" and e.data["state"] == "idle")
    assert reply.data["message"]["content"] == "Sorry for the wait!"
    assert len(fake_llm.requests_to("chat")) == 2
    assert (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]["state"] == "idle"


@pytest.mark.parametrize(
    ("failure", "words", "llm_timeout_seconds"),
    [
        (Reply(status=503), "unavailable", 120.0),
        (Reply(status=429, headers={"retry-after": "0"}), "rate limiting", 120.0),
        (Reply(delay=8.0), "did not answer in time", 5.0),
        (Reply(malformed=True), "could not read", 120.0),
    ],
    ids=["down", "rate-limited", "timeout", "malformed"],
)
async def test_an_llm_error_shows_an_error_and_a_warning_until_the_next_success(
    server: RunningServer, fake_llm: FakeOpenAI, failure: Reply, words: str
) -> None:
    kin = await make_kin(server.client)
    server.platform.providers.retry_policy = type(server.platform.providers.retry_policy)(
        max_retries=1, base_delay=0.01
    )
    fake_llm.enqueue(failure, failure)
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "Are you there?")
        error = await stream.wait_for(
            lambda e: e.type == "message" and e.data["message"]["is_error"]
        )
        await stream.wait_for(lambda e: e.type == "kin.state" and e.data["state"] == "error")
        await stream.wait_for(status_of(message["id"], "failed"))
    assert "Chef could not answer" in error.data["message"]["content"]
    assert words in error.data["message"]["content"]
    warned = (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]
    assert warned["state"] == "error" and words in warned["last_error"]
    fake_llm.reset()  # a failure that is not retried leaves its twin queued
    async with sse_stream(server.client) as stream:
        again = await send(server.client, kin["id"], "And now?")
        await stream.wait_for(reply_to(again["id"]))
        await stream.wait_for(lambda e: e.type == "kin.state" and e.data["state"] == "idle")
    healed = (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]
    assert healed["state"] == "idle" and healed["last_error"] is None


async def test_a_kins_tools_list_is_the_only_tools_it_is_offered(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client, tools=["get_time", "memorize"])
    fake_llm.enqueue(Reply(text="Noted."), Reply(text="All of them."))
    async with sse_stream(server.client) as stream:
        first = await send(server.client, kin["id"], "Which tools do you have?")
        await stream.wait_for(reply_to(first["id"]))
        offered = {t["function"]["name"] for t in fake_llm.requests_to("chat")[-1].body["tools"]}
        assert offered == {"get_time", "memorize"}
        # Emptied, the list no longer restricts anything.
        changed = await server.client.patch(f"/api/kins/{kin['id']}", json={"tools": []})
        assert changed.json()["kin"]["tools"] == []
        second = await send(server.client, kin["id"], "And now?")
        await stream.wait_for(reply_to(second["id"]))
    offered = {t["function"]["name"] for t in fake_llm.requests_to("chat")[-1].body["tools"]}
    assert {"get_time", "memorize", "list_kins"} <= offered
    refused = await server.client.patch(f"/api/kins/{kin['id']}", json={"tools": ["no spaces"]})
    assert refused.status_code == 400


class BrokenChat:
    """A third-party provider type with a bug: its chat raises something that is not a
    ``ProviderError`` (it wraps the OpenAI type, so everything else works)."""

    name = "broken-openai"
    label = "Broken OpenAI"
    capabilities = ("llm",)

    def __init__(self) -> None:
        from kinbot_plugins.providers.openai_provider import openai_type

        self._openai = openai_type
        self.config_fields = openai_type.config_fields

    def validate_config(self, config: Any) -> dict[str, Any]:
        validated: dict[str, Any] = self._openai.validate_config(config)
        return validated

    def create(self, config: Any, *, timeout: float) -> Any:
        provider: Any = self._openai.create(config, timeout=timeout)
        provider.llm = BrokenLlm(provider.llm)
        return provider


class BrokenLlm:
    """The OpenAI chat capability, but ``chat`` fails with a ``KeyError``."""

    def __init__(self, working: Any) -> None:
        self.supports_tools = working.supports_tools
        self.supports_vision = working.supports_vision
        self.list_models = working.list_models

    async def chat(self, request: Any) -> AsyncIterator[Any]:
        if request is not None:
            raise KeyError("choices")
        yield request  # an async generator, as providers' chat is


class BrokenChatPlugin:
    @hookimpl
    def register_providers(self, register: Callable[[Any], None]) -> None:
        register(BrokenChat())


async def test_a_turn_failing_for_another_reason_says_so_in_the_chat(
    data_dir: Any, fake_llm: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    platform.plugins.register(BrokenChatPlugin(), "broken_chat")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        added = await server.client.post(
            "/api/providers",
            json={"type": "broken-openai", "name": "Broken",
                  "config": {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}},
        )  # fmt: skip
        assert added.status_code == 201, added.text
        kin = await make_kin(server.client, model="Broken/gpt-4o")
        async with sse_stream(server.client) as stream:
            message = await send(server.client, kin["id"], "Are you there?")
            error = await stream.wait_for(
                lambda e: e.type == "message" and e.data["message"]["is_error"]
            )
            await stream.wait_for(status_of(message["id"], "failed"))
        assert error.data["message"]["content"].startswith("Chef could not answer: an internal")
        assert "KeyError" not in error.data["message"]["content"]
        warned = (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]
        assert warned["state"] == "error"
    assert any("KeyError" in (r.exc_text or "") for r in caplog.records)


async def test_a_running_turn_can_be_stopped(server: RunningServer, fake_llm: FakeOpenAI) -> None:
    kin = await make_kin(server.client)
    # Begun, then held: the turn still runs when it is stopped.
    fake_llm.enqueue(Reply(text="a very long answer " * 5, held=threading.Event(), held_after=3))
    async with sse_stream(server.client) as stream:
        message = await send(server.client, kin["id"], "Tell me everything.")
        await stream.wait_for(lambda e: e.type == "kin.delta")
        stopped = await server.client.post(f"/api/kins/{kin['id']}/stop")
        assert stopped.json() == {"stopped": True}
        await stream.wait_for(status_of(message["id"], "cancelled"))
    assert (await server.client.post(f"/api/kins/{kin['id']}/stop")).json() == {"stopped": False}


async def test_the_event_stream_resumes_from_the_last_event_id(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        first = await send(server.client, kin["id"], "one")
        await stream.wait_for(reply_to(first["id"]))
        last_seen = max(e.id for e in stream.events if e.id is not None)
    second = await send(server.client, kin["id"], "two")  # sent while disconnected
    for _ in range(200):
        if (await server.client.get(f"/api/kins/{kin['id']}")).json()["kin"]["state"] == "idle":
            history = (await server.client.get(f"/api/kins/{kin['id']}/messages")).json()
            if history["messages"][-1]["role"] == "assistant":
                break
        await asyncio.sleep(0.05)
    async with sse_stream(server.client, last_event_id=last_seen) as resumed:
        missed = await resumed.wait_for(reply_to(second["id"]))
    assert missed.id is not None and missed.id > last_seen
    assert all(e.id is None or e.id > last_seen for e in resumed.events)


async def test_streams_need_a_session_and_end_when_access_is_cut(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    async with server.new_client() as stranger:
        assert (await stranger.get("/api/events")).status_code == 401
    async with server.new_client() as marie:
        user = await register(server.client, marie, MARIE)
        async with sse_stream(marie) as stream:
            await server.client.patch(f"/api/users/{user['id']}", json={"is_active": False})
            await stream.wait_closed()


async def test_a_kin_avatar_is_uploaded_and_served(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    import io

    from PIL import Image

    kin = await make_kin(server.client)
    image = io.BytesIO()
    Image.new("RGB", (800, 600), (120, 180, 90)).save(image, format="JPEG")
    uploaded = await server.client.put(
        f"/api/kins/{kin['id']}/avatar",
        files={"avatar": ("chef.jpg", image.getvalue(), "image/jpeg")},
    )
    assert uploaded.status_code == 200, uploaded.text
    url = uploaded.json()["kin"]["avatar_url"]
    served = await server.client.get(url)
    assert served.headers["content-type"] == "image/webp"
    assert Image.open(io.BytesIO(served.content)).size == (512, 384)
    async with server.new_client() as stranger:
        assert (await stranger.get(url)).status_code == 401
    bad = await server.client.put(
        f"/api/kins/{kin['id']}/avatar", files={"avatar": ("x.png", b"not an image", "image/png")}
    )
    assert bad.status_code == 400


async def test_kins_are_validated_and_shared(server: RunningServer, fake_llm: FakeOpenAI) -> None:
    unknown_model = await server.client.post("/api/kins", json={"name": "X", "model": "gpt-17"})
    assert unknown_model.status_code == 400
    assert unknown_model.json()["error"]["code"] == "model_not_listed"
    assert unknown_model.json()["error"]["details"] == {"model": "gpt-17"}
    # Each cause has its own code: a blank name or model passes the schema, not the service.
    blank = await server.client.post("/api/kins", json={"name": "  ", "model": "gpt-4o"})
    assert (blank.status_code, blank.json()["error"]["code"]) == (400, "kin_name_missing")
    no_model = await server.client.post("/api/kins", json={"name": "X", "model": "  "})
    assert (no_model.status_code, no_model.json()["error"]["code"]) == (400, "kin_model_missing")
    kin = await make_kin(server.client)
    unnamed = await server.client.patch(f"/api/kins/{kin['id']}", json={"name": " "})
    assert (unnamed.status_code, unnamed.json()["error"]["code"]) == (400, "kin_name_missing")
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        listed = (await marie.get("/api/kins")).json()["kins"]
        assert [k["name"] for k in listed] == ["Chef"]
        renamed = await marie.patch(f"/api/kins/{kin['id']}", json={"role": "Head cook"})
        assert renamed.json()["kin"]["role"] == "Head cook"
    empty = await server.client.post(f"/api/kins/{kin['id']}/messages", json={"content": ""})
    assert empty.status_code == 400
    assert empty.json()["error"]["code"] == "message_empty"
    assert (await server.client.delete(f"/api/kins/{kin['id']}")).status_code == 204
    assert (await server.client.get(f"/api/kins/{kin['id']}")).status_code == 404


async def test_only_an_administrator_or_its_creator_deletes_a_kin(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    """A shared Kin and its whole history are not any member's to delete."""
    chef = await make_kin(server.client)  # the administrator's
    async with server.new_client() as marie, server.new_client() as paul:
        await register(server.client, marie, MARIE)
        await register(server.client, paul, person("Paul"))
        refused = await marie.delete(f"/api/kins/{chef['id']}")
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "kin_delete_forbidden"
        assert (await server.client.get(f"/api/kins/{chef['id']}")).status_code == 200

        diary = await make_kin(marie, name="Diary")
        assert diary["created_by"] == (await marie.get("/api/me")).json()["user"]["id"]
        by_paul = await paul.delete(f"/api/kins/{diary['id']}")
        assert (by_paul.status_code, by_paul.json()["error"]["code"]) == (
            403,
            "kin_delete_forbidden",
        )
        assert (await marie.delete(f"/api/kins/{diary['id']}")).status_code == 204
        assert (await marie.get(f"/api/kins/{diary['id']}")).status_code == 404
        assert (await marie.delete("/api/kins/nope")).status_code == 404

        notes = await make_kin(marie, name="Notes")
    # An administrator deletes any Kin, a member's too.
    assert (await server.client.delete(f"/api/kins/{notes['id']}")).status_code == 204
    assert (await server.client.delete(f"/api/kins/{chef['id']}")).status_code == 204


async def test_history_pages_backwards(server: RunningServer, fake_llm: FakeOpenAI) -> None:
    kin = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for n in range(3):
            message = await send(server.client, kin["id"], f"message {n}")
            await stream.wait_for(reply_to(message["id"]))
    page = (await server.client.get(f"/api/kins/{kin['id']}/messages?limit=4")).json()
    assert page["messages"][0]["content"] == "message 1"
    older = (
        await server.client.get(
            f"/api/kins/{kin['id']}/messages?limit=4&before={page['next_before']}"
        )
    ).json()
    assert older["messages"][0]["content"] == "message 0"
    assert older["next_before"] is None


_ = Settings


async def test_signing_out_ends_that_browsers_stream_only(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    async with server.new_client() as laptop:
        await laptop.post(
            "/api/auth/login",
            json={"email": "nicolas@example.org", "password": "correct horse battery staple"},
        )
        async with sse_stream(server.client) as first, sse_stream(laptop) as second:
            assert (await laptop.post("/api/auth/logout")).status_code == 204
            await second.wait_closed()
            assert not first.closed


def test_an_event_id_from_an_earlier_run_asks_for_a_resync() -> None:
    from kinbot_core.live import LiveFeed

    before = LiveFeed()
    old = before.publish("kin.state", {"state": "idle"}).id
    time.sleep(0.002)
    after = LiveFeed()
    after.publish("kin.state", {"state": "thinking"})
    _, complete = after.subscribe("u1", after=old)
    assert not complete
    latest = after.publish("kin.state", {"state": "idle"}).id
    _, complete = after.subscribe("u1", after=latest - 1)
    assert complete


async def test_a_chat_opened_mid_reply_gets_what_the_turn_streamed_and_runs(
    data_dir: Any, fake_llm: FakeOpenAI
) -> None:
    async with gated_server(data_dir, fake_llm) as (server, gate):
        kin = await make_kin(server.client)
        messages_url = f"/api/kins/{kin['id']}/messages"
        fake_llm.enqueue(Reply(text="Let me check the oven.", tool_calls=[("wait_for_oven", {})]))
        # The second call streams 30 characters, then waits for ``rest`` (the draft read).
        rest = threading.Event()
        fake_llm.enqueue(
            Reply(text="The oven is hot, " * 40, chunk_size=5, held=rest, held_after=1 + 6)
        )
        async with sse_stream(server.client) as stream:
            message = await send(server.client, kin["id"], "Can we bake?")
            await asyncio.wait_for(gate.entered.wait(), 10)
            # A tool call is running: the draft names it; the first reply is stored.
            page = (await server.client.get(messages_url)).json()
            first = [m for m in page["messages"] if m["role"] == "assistant"]
            assert [m["content"] for m in first] == ["Let me check the oven."]
            assert page["draft"] == {
                "turn": message["id"],
                "step": first[0]["id"],
                "text": "",
                "tools": [{"id": page["draft"]["tools"][0]["id"], "name": "wait_for_oven",
                           "status": "running"}],
            }  # fmt: skip
            gate.opened.set()
            # The second model call streams: the draft holds its text so far, and every delta
            # says where its text starts, so the draft and the deltas line up.
            await stream.wait_for(
                lambda e: (
                    e.type == "kin.delta"
                    and e.data["step"] != message["id"]  # the second call's, not the first's
                    and e.data["at"] + len(e.data["text"]) >= 20
                )
            )
            draft = (await server.client.get(messages_url)).json()["draft"]
            rest.set()
            reply = await stream.wait_for(reply_to(message["id"]))
            await stream.wait_for(status_of(message["id"], "done"))
        final = reply.data["message"]["content"]
        tool_result = next(
            e for e in stream.of_type("message") if e.data["message"]["role"] == "tool"
        )
        assert draft["turn"] == message["id"] and draft["tools"] == []
        assert draft["step"] == tool_result.data["message"]["id"] < reply.data["message"]["id"]
        assert len(draft["text"]) >= 20 and final.startswith(draft["text"])
        deltas = [e.data for e in stream.of_type("kin.delta") if e.data["step"] == draft["step"]]
        assert all(final[d["at"] : d["at"] + len(d["text"])] == d["text"] for d in deltas)
        assert (await server.client.get(messages_url)).json()["draft"] is None
        older = (await server.client.get(f"{messages_url}?before={message['id'] + 1}")).json()
        assert "draft" not in older


class KitchenNote:
    """A plugin saying where each question was asked, in the newest message of each call."""

    @hookimpl
    def before_chat(self, context: Any) -> None:
        context.messages[-1]["content"] += " (asked in the kitchen)"


async def test_a_message_a_hook_changed_reaches_the_model_for_that_call_only(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    """The window's messages are kept converted from turn to turn (``window_messages``): what
    a hook changes is sent as changed, and the next call starts from the messages as stored."""
    server.platform.plugins.register(KitchenNote(), "kitchen_note")
    kin = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for text in ("Is the oven hot?", "And the kettle?"):
            message = await send(server.client, kin["id"], text)
            await stream.wait_for(status_of(message["id"], "done"))
    first, second = (request.body["messages"] for request in fake_llm.requests_to("chat"))
    assert first[-1]["content"] == "[Nico] Is the oven hot? (asked in the kitchen)"
    assert [m["content"] for m in second[1:] if m["role"] == "user"] == [
        "[Nico] Is the oven hot?",
        "[Nico] And the kettle? (asked in the kitchen)",
    ]

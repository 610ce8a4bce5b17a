"""Tool calls streamed as local servers send them (llama.cpp, Ollama, LM Studio, vLLM), through
the OpenAI-compatible provider: arguments in one piece or many, empty or missing ids, deltas
without an index, several calls in one message, and calls written in the text by models
without native tool support. The fake server switches forms (``FakeOpenAI.stream_form``); the
real llama.cpp server (tests marked ``local_models``) sends both kinds from SmolLM2-135M."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.providers import (
    ChatEvent,
    ChatMessage,
    ChatRequest,
    Finish,
    TextDelta,
    ToolCallEvent,
    ToolSpec,
)
from kinbot_core.tools import ToolContext
from kinbot_plugins.providers.openai_compatible import openai_compatible_type
from kinbot_plugins.providers.openai_provider import openai_type
from kinbot_plugins.providers.streamed_tool_calls import stable_call_id
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes.openai_stream_forms import STREAM_FORMS
from tests.support.kin_chat import make_kin, reply_to, session, tell
from tests.support.llama_server import LlamaServer, llama_server
from tests.support.provider_setups import API_KEY
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = (
    ToolSpec("get_time", "The current time in a city.", CITY),
    ToolSpec("get_weather", "The weather in a city.", CITY),
)
#: llama.cpp's server told to offer tools as Hermes and Qwen templates do (SmolLM2's own
#: template has no tools: the server then passes a written call through as text).
TOOLS_TEMPLATE = Path(__file__).parent / "data" / "chatml_tool_calls.jinja"
TWO_CALLS = [("get_time", {"city": "Rome"}), ("get_weather", {"city": 'Paris, "Île"'})]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=["smollm2-135m-instruct"]) as fake:
        yield fake


async def streamed(
    fake: FakeOpenAI, tools: tuple[ToolSpec, ...] = TOOLS, provider_type: Any = None
) -> list[ChatEvent]:
    """One streamed call of the OpenAI-compatible provider (or ``provider_type``) to ``fake``."""
    provider = (provider_type or openai_compatible_type).create(
        {"base_url": f"{fake.base_url}/v1", "api_key": API_KEY}, timeout=10
    )
    request = ChatRequest(
        model="smollm2-135m-instruct",
        messages=(ChatMessage("user", "Rome and Paris?"),),
        tools=tools,
    )
    try:
        assert provider.llm is not None
        return [event async for event in provider.llm.chat(request)]
    finally:
        await provider.aclose()


def calls_of(events: list[ChatEvent]) -> list[ToolCallEvent]:
    return [event for event in events if isinstance(event, ToolCallEvent)]


def text_of(events: list[ChatEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


@pytest.mark.parametrize("form", sorted(STREAM_FORMS))
@pytest.mark.parametrize("chunk_size", [1, 10_000], ids=["in-pieces", "whole"])
async def test_two_calls_in_one_message_in_every_form(
    fake: FakeOpenAI, form: str, chunk_size: int
) -> None:
    fake.stream_form = form
    fake.enqueue(Reply(text="Let me look.", tool_calls=TWO_CALLS, chunk_size=chunk_size))
    events = await streamed(fake)
    calls = calls_of(events)
    assert [(call.name, call.arguments) for call in calls] == TWO_CALLS
    assert all(call.id for call in calls) and len({call.id for call in calls}) == 2
    # The answer's text, without the calls a model wrote in it (the JSON form is all call).
    assert text_of(events).strip() == ("" if form == "text_json" else "Let me look.")
    assert events[-1] == Finish("tool_calls")


@pytest.mark.parametrize("form", ["empty_ids", "no_ids"])
async def test_a_call_without_an_id_gets_a_stable_one(fake: FakeOpenAI, form: str) -> None:
    fake.stream_form = form
    fake.enqueue(Reply(tool_calls=TWO_CALLS[:1]), Reply(tool_calls=TWO_CALLS[:1]))
    (first,) = calls_of(await streamed(fake))
    (second,) = calls_of(await streamed(fake))
    # Made from the answer's id (one per completion), the call's place, name and arguments.
    assert first.id.startswith("call_") and second.id.startswith("call_")
    assert first.id != second.id  # two answers
    assert first.id == stable_call_id("chatcmpl-fake000001", 0, "get_time", '{"city": "Rome"}')


@pytest.mark.parametrize(
    "written",
    [
        "3 < 4, and <tool_cal",  # the start of a tag, never finished
        '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',  # not offered
        "<tool_call>{not json}</tool_call> as you see",
        '{"city": "Rome", "time": "09:30"}',  # a JSON answer that is no call
        '```json\n{"name": "get_time", "arguments": "{city"}\n```',  # broken arguments
    ],
)
async def test_text_that_only_looks_like_a_call_is_shown_as_written(
    fake: FakeOpenAI, written: str
) -> None:
    fake.enqueue(Reply(text=written, chunk_size=3))
    events = await streamed(fake)
    assert calls_of(events) == []
    assert text_of(events) == written
    assert events[-1] == Finish("stop")


async def test_text_before_a_written_call_streams_before_the_call_ends(fake: FakeOpenAI) -> None:
    fake.stream_form = "text_tags"
    fake.enqueue(Reply(text="Looking it up now.", tool_calls=TWO_CALLS[:1], chunk_size=4))
    events = await streamed(fake)
    pieces = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(pieces) > 2 and "".join(pieces).strip() == "Looking it up now."
    assert [call.name for call in calls_of(events)] == ["get_time"]


async def test_written_calls_are_text_without_tools_or_from_openai_itself(
    fake: FakeOpenAI,
) -> None:
    written = '<tool_call>{"name": "get_time", "arguments": {"city": "Rome"}}</tool_call>'
    fake.enqueue(Reply(text=written), Reply(text=written))
    assert text_of(await streamed(fake, tools=())) == written
    assert text_of(await streamed(fake, provider_type=openai_type)) == written


class Clock:
    """A tool the Kin calls: the time in a city, counting its calls."""

    name = "get_time"
    description = "The current time in a city."
    parameters = CITY
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
async def served(
    data_dir: Path, fake: FakeOpenAI
) -> AsyncIterator[tuple[RunningServer, ClockPlugin]]:
    plugin = ClockPlugin()
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    platform.plugins.register(plugin, "clock")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        added = await server.client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "Local",
                "config": {"base_url": f"{fake.base_url}/v1"},
            },
        )
        assert added.status_code == 201, added.text
        yield server, plugin


async def test_a_kin_runs_a_call_its_model_wrote_in_the_text(
    served: tuple[RunningServer, ClockPlugin], fake: FakeOpenAI
) -> None:
    server, plugin = served
    fake.stream_form = "text_tags"
    fake.enqueue(
        Reply(text="Let me check.", tool_calls=[("get_time", {"city": "Rome"})]),
        Reply(text="It is 09:30 in Rome."),
    )
    kin_id = await make_kin(server.client, model="smollm2-135m-instruct")
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, "What time is it in Rome?")
        reply = await stream.wait_for(reply_to(message_id))
    assert reply.data["message"]["content"] == "It is 09:30 in Rome."
    assert plugin.clock.calls == [{"city": "Rome"}]
    messages = await session(server.client, kin_id)
    assert all("<tool_call>" not in (m["content"] or "") for m in messages)
    # The model is shown its call as a native one, answered under the same id.
    sent = [r.body for r in fake.requests if r.endpoint == "chat"][-1]["messages"]
    (asked,) = [m for m in sent if m["role"] == "assistant" and m.get("tool_calls")]
    (answered,) = [m for m in sent if m["role"] == "tool"]
    assert asked["tool_calls"][0]["id"] == answered["tool_call_id"]
    assert asked["tool_calls"][0]["function"]["name"] == "get_time"


# -- the real llama.cpp server -------------------------------------------------------------


def weather_call(city: str) -> str:
    return (
        f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}\n</tool_call>'
    )


#: Two examples before the question: a 135M model follows them reliably at temperature 0 (the
#: server samples greedily), where a bare question gets a made-up answer instead of a call.
SHOWN_HOW = ChatRequest(
    model="",
    system="You answer questions about the weather by calling the get_weather tool.",
    messages=(
        ChatMessage("user", "What is the weather in Lyon?"),
        ChatMessage("assistant", weather_call("Lyon")),
        ChatMessage("user", "What is the weather in Rome?"),
        ChatMessage("assistant", weather_call("Rome")),
        ChatMessage("user", "What is the weather in Paris?"),
    ),
    tools=TOOLS,
    max_tokens=60,
)


async def llama_events(server: LlamaServer) -> list[ChatEvent]:
    provider = openai_compatible_type.create({"base_url": server.base_url}, timeout=600)
    try:
        assert provider.llm is not None
        request = dataclasses.replace(SHOWN_HOW, model=server.model)
        return [event async for event in provider.llm.chat(request)]
    finally:
        await provider.aclose()


@pytest.fixture(scope="module")
def llama_plain(
    local_models_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """SmolLM2 with its own template: no tools, so calls come back as text."""
    log = tmp_path_factory.mktemp("llama-plain") / "server.log"
    with llama_server(local_models_python, log) as server:
        yield server


@pytest.fixture(scope="module")
def llama_tools(
    local_models_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """SmolLM2 with a template offering tools: llama.cpp parses the calls and streams them."""
    log = tmp_path_factory.mktemp("llama-tools") / "server.log"
    with llama_server(local_models_python, log, chat_template=TOOLS_TEMPLATE) as server:
        yield server


@pytest.mark.local_models
async def test_a_call_llama_cpp_passes_through_as_text(llama_plain: LlamaServer) -> None:
    events = await llama_events(llama_plain)
    assert [(c.name, c.arguments) for c in calls_of(events)] == [("get_weather", {"city": "Paris"})]
    assert "<tool_call>" not in text_of(events)
    assert events[-1] == Finish("tool_calls")


@pytest.mark.local_models
async def test_a_call_llama_cpp_streams_natively(llama_tools: LlamaServer) -> None:
    events = await llama_events(llama_tools)
    (call,) = calls_of(events)
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
    assert call.id
    assert text_of(events).strip() == ""
    assert events[-1] == Finish("tool_calls")

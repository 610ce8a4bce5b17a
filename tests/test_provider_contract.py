"""One contract every provider plugin passes, run through the official SDKs against fake
servers on loopback that speak each provider's wire protocol."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kinbot_core.plugins import PluginManager
from kinbot_core.providers import (
    AuthenticationFailed,
    ChatMessage,
    ChatRequest,
    ContextOverflowError,
    Finish,
    MalformedResponse,
    Provider,
    ProviderError,
    ProviderTimeout,
    ProviderType,
    ProviderUnavailable,
    RateLimited,
    TextDelta,
    ToolCallEvent,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from kinbot_core.providers.context_windows import ReportsContextWindow
from kinbot_core.providers.types import ChatEvent
from tests.support.fakes import FakeOpenAI, FakeServer, Reply
from tests.support.provider_setups import (
    EMBEDDING_SETUPS,
    IMAGE_SETUPS,
    LLM_SETUPS,
    SEARCH_SETUPS,
    Setup,
)

WEATHER = ToolSpec(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


#: The time limit of a call in the cases that test it (their replies come six times later).
TIMEOUT = 4.0
#: The time limit of every other call: one that an answer on loopback never reaches, even on
#: a machine so busy that it holds an answer up for seconds (CI's once took over 5 s).
CALL_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def provider_types() -> dict[str, ProviderType]:
    """Every provider type, registered by the installed plugins' entry points (the built-in
    plugins' registration hooks are synchronous, so pluggy can call them directly here)."""
    manager = PluginManager()
    manager.load_entry_points()
    registered: list[ProviderType] = []
    manager.pluggy.hook.register_providers(register=registered.append)
    manager.pluggy.hook.register_search_providers(register=registered.append)
    return {provider_type.name: provider_type for provider_type in registered}


@pytest.fixture
def fake(request: pytest.FixtureRequest) -> Iterator[FakeServer]:
    setup: Setup = request.param
    with setup.fake_class() as server:
        yield server


@pytest.fixture
async def provider(
    request: pytest.FixtureRequest, fake: FakeServer, provider_types: dict[str, ProviderType]
) -> AsyncIterator[Provider]:
    setup: Setup = request.param
    provider_type = provider_types[setup.type_name]
    config = provider_type.validate_config(setup.make_config(fake))
    case = getattr(request.node, "callspec", None)
    timed_out = case is not None and case.params.get("error") is ProviderTimeout
    built = provider_type.create(config, timeout=TIMEOUT if timed_out else CALL_TIMEOUT)
    yield built
    await built.aclose()


def both(setups: list[Setup]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        ("fake", "provider"), [(s, s) for s in setups], indirect=True, ids=str
    )


async def collect(provider: Provider, request: ChatRequest) -> list[ChatEvent]:
    assert provider.llm is not None
    return [event async for event in provider.llm.chat(request)]


def ask(model: str, text: str = "What is the weather in Rome?", **kwargs: Any) -> ChatRequest:
    return ChatRequest(
        model=model,
        system="You are a helpful Kin.",
        messages=(ChatMessage("user", text),),
        **kwargs,
    )


@both(LLM_SETUPS)
async def test_streams_text_in_pieces_then_usage_and_finish(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    setup = request.node.callspec.params["provider"]
    fake.enqueue(Reply(text="Rome is sunny and warm today, 24 degrees.", usage=(21, 9)))
    events = await collect(provider, ask(setup.model))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "Rome is sunny and warm today, 24 degrees."
    assert Usage(21, 9) in events
    assert events[-1] == Finish("stop")
    sent = fake.requests[-1].text
    assert "You are a helpful Kin." in sent and "weather in Rome" in sent


@both(LLM_SETUPS)
async def test_streams_a_tool_call_with_json_arguments(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    setup = request.node.callspec.params["provider"]
    arguments = {"city": "Rome", "units": "metric", "days": [1, 2, 3]}
    fake.enqueue(Reply(text="Let me check.", tool_calls=[("get_weather", arguments)]))
    events = await collect(provider, ask(setup.model, tools=(WEATHER,)))
    [call] = [e for e in events if isinstance(e, ToolCallEvent)]
    assert call.name == "get_weather"
    assert call.arguments == arguments
    assert call.id
    assert events[-1] == Finish("tool_calls")
    assert "get_weather" in fake.requests[-1].text


@both(LLM_SETUPS)
async def test_a_tool_result_round_trip_is_accepted(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    setup = request.node.callspec.params["provider"]
    history = (
        ChatMessage("user", "Weather in Rome?"),
        ChatMessage(
            "assistant",
            "",
            tool_calls=(ToolCallRequest("call_1", "get_weather", {"city": "Rome"}),),
        ),
        ChatMessage("tool", "24 degrees, sunny", tool_call_id="call_1"),
    )
    fake.enqueue(Reply(text="It is 24 degrees and sunny."))
    events = await collect(provider, ChatRequest(setup.model, history, tools=(WEATHER,)))
    assert (
        "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is 24 degrees and sunny."
    )
    assert "24 degrees, sunny" in fake.requests[-1].text


@both(LLM_SETUPS)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=429, headers={"retry-after": "7"}), RateLimited),
        (Reply(status=500), ProviderUnavailable),
        (Reply(status=401), AuthenticationFailed),
        (Reply(malformed=True), MalformedResponse),
        (Reply(delay=TIMEOUT * 6, text="too late"), ProviderTimeout),
        (Reply(chunk_delay=TIMEOUT * 6, text="begun, then stalled"), ProviderTimeout),
    ],
    ids=["429", "500", "401", "malformed", "timeout", "stalled"],
)
async def test_chat_failures_become_typed_errors(
    request: pytest.FixtureRequest,
    fake: FakeServer,
    provider: Provider,
    reply: Reply,
    error: type[Exception],
) -> None:
    setup = request.node.callspec.params["provider"]
    fake.enqueue(reply)
    with pytest.raises(error) as raised:
        await collect(provider, ask(setup.model))
    assert raised.value.args[0]  # a message a user can read
    if isinstance(raised.value, RateLimited) and setup.type_name != "gemini":
        assert raised.value.retry_after == 7


@both(LLM_SETUPS)
async def test_a_server_refusing_the_connection_cannot_be_reached_rather_than_slow(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    """Nothing listens at the address (Ollama not started, a wrong port): the person is told
    the provider cannot be reached, not that it took too long (the openai SDK's aiohttp
    transport names a refused connection a connect timeout)."""
    fake.stop()
    with pytest.raises(ProviderUnavailable) as raised:
        await collect(provider, ask(request.node.callspec.params["provider"].model))
    assert "cannot be reached" in raised.value.args[0]


@both(LLM_SETUPS)
async def test_answers_one_after_another_share_one_connection(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    """A streamed answer is read to its end, so that the next call of a turn reuses the
    connection rather than opening another (a new connection costs a turn CPU, and TLS
    hand-shakes with a real provider)."""
    model = request.node.callspec.params["provider"].model
    # The end of the body comes a moment after the answer's last event, as it may over a
    # network: a client that stops reading at that event leaves the body unread.
    pace = 0.01
    fake.enqueue(Reply(tool_calls=[("get_weather", {"city": "Rome"})], chunk_delay=pace))
    fake.enqueue(Reply(text="It is sunny in Rome.", chunk_delay=pace))
    fake.enqueue(Reply(text="And warm.", chunk_delay=pace))
    for _ in range(3):
        await collect(provider, ask(model, tools=(WEATHER,)))
    ports = {recorded.client_port for recorded in fake.requests}
    assert len(fake.requests) == 3 and len(ports) == 1, ports


@both([s for s in LLM_SETUPS if s.fake_class is FakeOpenAI])
@pytest.mark.parametrize(
    ("reply", "error", "words"),
    [
        (
            Reply(text="Once upon", error_message="The engine stopped mid-answer."),
            ProviderUnavailable,
            "The engine stopped mid-answer.",
        ),
        (
            Reply(
                error_message="This model's maximum context length is 8192 tokens.",
                error_type="context_length_exceeded",
            ),
            ContextOverflowError,
            "8192",
        ),
    ],
    ids=["failed", "overflow"],
)
async def test_an_error_sent_inside_the_stream_is_typed_with_its_words(
    request: pytest.FixtureRequest,
    fake: FakeServer,
    provider: Provider,
    reply: Reply,
    error: type[Exception],
    words: str,
) -> None:
    """A server whose generation fails once the answer has begun sends an ``error`` object
    in the stream instead of its end (OpenAI, vLLM, llama.cpp)."""
    fake.enqueue(reply)
    with pytest.raises(error) as raised:
        await collect(provider, ask(request.node.callspec.params["provider"].model))
    assert words in raised.value.args[0]


@both(LLM_SETUPS)
async def test_lists_models_and_tests_the_connection(fake: FakeServer, provider: Provider) -> None:
    assert provider.llm is not None
    models = await provider.llm.list_models()
    assert models and all(m.capability == "llm" for m in models)
    report = await provider.test_connection()
    assert report.ok and "llm" in report.capabilities


@both(LLM_SETUPS)
async def test_a_wrong_key_fails_the_connection_test(fake: FakeServer, provider: Provider) -> None:
    fake.valid_keys = {"another-key"}
    with pytest.raises(AuthenticationFailed):
        await provider.test_connection()


@both(EMBEDDING_SETUPS)
async def test_embeds_texts_in_order(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    assert provider.embedding is not None
    texts = ["Nicolas is vegetarian", "the grocery budget is 600 euros", "Nicolas is vegetarian"]
    vectors = await provider.embedding.embed(texts)
    assert len(vectors) == 3
    assert len({len(v) for v in vectors}) == 1 and len(vectors[0]) > 0
    assert vectors[0] == vectors[2] and vectors[0] != vectors[1]
    assert await provider.embedding.embed([]) == []
    assert provider.embedding.default_model()
    assert await provider.embedding.list_models()


@both(EMBEDDING_SETUPS)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=429, headers={"retry-after": "2"}), RateLimited),
        (Reply(status=503), ProviderUnavailable),
        (Reply(status=401), AuthenticationFailed),
        (Reply(malformed=True), MalformedResponse),
        (Reply(delay=TIMEOUT * 6), ProviderTimeout),
    ],
    ids=["429", "503", "401", "malformed", "timeout"],
)
async def test_embedding_failures_become_typed_errors(
    request: pytest.FixtureRequest,
    fake: FakeServer,
    provider: Provider,
    reply: Reply,
    error: type[Exception],
) -> None:
    setup = request.node.callspec.params["provider"]
    assert provider.embedding is not None
    if setup.type_name == "openai-compatible":
        await provider.embedding.embed(["warm the model choice up"])
    fake.enqueue(reply, endpoint=setup.endpoint)
    with pytest.raises(error):
        await provider.embedding.embed(["hello"])


@both(IMAGE_SETUPS)
async def test_generates_an_image(fake: FakeServer, provider: Provider) -> None:
    assert provider.image is not None
    image = await provider.image.generate("a friendly robot chef, flat illustration")
    assert image.data.startswith(b"\x89PNG")
    assert image.mime_type == "image/png"


@both(IMAGE_SETUPS)
async def test_image_failures_become_typed_errors(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    setup = request.node.callspec.params["provider"]
    assert provider.image is not None
    fake.enqueue(Reply(status=429, headers={"retry-after": "1"}), endpoint=setup.endpoint)
    with pytest.raises(RateLimited):
        await provider.image.generate("a cat")


@both(SEARCH_SETUPS)
async def test_searches_the_web(fake: FakeServer, provider: Provider) -> None:
    assert provider.search is not None
    results = await provider.search.search("vegetarian lasagna", count=2, freshness="week")
    assert len(results) == 2
    assert all(r.title and r.url.startswith("http") for r in results)
    query = fake.requests[-1].query
    assert query["q"] == "vegetarian lasagna"
    report = await provider.test_connection()
    assert report.ok and report.capabilities == ("search",)


@both(SEARCH_SETUPS)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=429, headers={"retry-after": "3"}), RateLimited),
        (Reply(status=500), ProviderUnavailable),
        (Reply(malformed=True), MalformedResponse),
        (Reply(delay=TIMEOUT * 6), ProviderTimeout),
    ],
    ids=["429", "500", "malformed", "timeout"],
)
async def test_search_failures_become_typed_errors(
    fake: FakeServer, provider: Provider, reply: Reply, error: type[Exception]
) -> None:
    assert provider.search is not None
    fake.enqueue(reply)
    with pytest.raises(error):
        await provider.search.search("anything")


async def test_every_provider_type_is_covered_by_this_suite(
    provider_types: dict[str, ProviderType],
) -> None:
    covered = {s.type_name for s in LLM_SETUPS + EMBEDDING_SETUPS + IMAGE_SETUPS + SEARCH_SETUPS}
    # local-embeddings has its own suite (tests/test_local_embeddings.py): no fake needed.
    assert set(provider_types) - covered == {"local-embeddings"}
    for name, provider_type in provider_types.items():
        assert provider_type.name == name and provider_type.label
        assert provider_type.capabilities


def test_gemini_gets_its_thought_signatures_back_and_never_made_up_ids() -> None:
    from kinbot_plugins.providers.gemini_client import gemini_contents

    history = (
        ChatMessage("user", "Weather in Rome?"),
        ChatMessage(
            "assistant",
            "",
            tool_calls=(
                ToolCallRequest(
                    "abc", "get_weather", {"city": "Rome"}, {"thought_signature": "c2ln"}
                ),
                ToolCallRequest("kinbot_call_123", "get_weather", {"city": "Paris"}),
            ),
        ),
        ChatMessage("tool", "24 degrees", tool_call_id="abc"),
        ChatMessage("tool", "19 degrees", tool_call_id="kinbot_call_123"),
    )
    contents = gemini_contents(history)
    model_parts = contents[1].parts or []
    assert model_parts[0].thought_signature == b"sig"
    assert model_parts[0].function_call is not None and model_parts[0].function_call.id == "abc"
    assert model_parts[1].function_call is not None and model_parts[1].function_call.id is None
    responses = [p.function_response for p in contents[2].parts or []]
    assert [r.id for r in responses if r] == ["abc", None]
    assert [r.name for r in responses if r] == ["get_weather", "get_weather"]


@both(LLM_SETUPS)
async def test_a_models_window_is_reported_by_the_server_or_provider_else_none(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    setup = request.node.callspec.params["provider"]
    llm: Any = provider.llm
    if not isinstance(llm, ReportsContextWindow):  # optional: the known models answer then
        assert setup.type_name == "openai"
        return
    window = await llm.context_window(setup.model)
    assert window is None or (window.tokens > 0 and window.source in ("server", "provider"))
    fake.stop()  # a server that cannot be reached: a typed error, which the platform survives
    with pytest.raises(ProviderError):
        await llm.context_window(setup.model)


#: What the Stainless-made SDKs (openai, anthropic) would tell every provider of the machine.
MACHINE_HEADERS = {
    "x-stainless-os",
    "x-stainless-arch",
    "x-stainless-runtime",
    "x-stainless-runtime-version",
    "x-stainless-lang",
    "x-stainless-package-version",
    "x-stainless-async",
}


@both([s for s in LLM_SETUPS if s.type_name != "gemini"])
async def test_a_call_tells_nothing_of_the_machine(
    request: pytest.FixtureRequest, fake: FakeServer, provider: Provider
) -> None:
    await collect(provider, ask(request.node.callspec.params["provider"].model))
    embedding = provider.embedding
    if embedding is not None:
        await embedding.embed(["Nicolas is vegetarian"])
    assert fake.requests
    for recorded in fake.requests:
        assert MACHINE_HEADERS.isdisjoint(recorded.headers), recorded.path
        if recorded.endpoint != "models":  # the calls of a turn, without per-call extras
            assert "x-stainless-retry-count" not in recorded.headers, recorded.path
        assert recorded.headers.get("authorization") or recorded.headers.get("x-api-key")

"""The fake provider servers, driven by the real SDK clients (and plain httpx for search)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
import voyageai.error
from anthropic import AsyncAnthropic
from anthropic.types import (
    InputJSONDelta,
    RawContentBlockDeltaEvent,
    TextDelta,
    ToolParam,
    ToolUseBlock,
)
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from openai import AsyncOpenAI
from voyageai.client_async import AsyncClient as AsyncVoyage

from tests.support.fakes import (
    PNG_SIGNATURE,
    FakeAnthropic,
    FakeBrave,
    FakeGemini,
    FakeOpenAI,
    FakeSearxng,
    FakeVoyage,
    RecordedRequest,
    Reply,
    SearchResult,
    fake_embedding,
    loopback_config,
)
from tests.support.waiting import eventually

# google-genai subclasses aiohttp's ClientSession, which aiohttp frowns upon.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession:DeprecationWarning"
)

KEY = "test-key-1234"
WRONG_KEY = "wrong-key"
TIMEOUT = 0.5
STORY = "Once upon a time, a small fake server streamed a story in many little pieces."
WEATHER_ARGS: dict[str, Any] = {
    "city": "Paris",
    "days": 3,
    "units": {"temp": "C"},
    "tags": ["a", "b"],
}
WEATHER_TOOL: ToolParam = {
    "name": "get_weather",
    "description": "The weather forecast of a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
USER_MESSAGE: Any = [{"role": "user", "content": "Hello"}]

ERROR_REPLIES = {
    "rate_limit": Reply(status=429, headers={"retry-after": "1"}, error_message="slow down"),
    "server_error": Reply(status=500),
    "malformed": Reply(malformed=True),
}


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def anthropic_fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(valid_keys={KEY}) as fake:
        yield fake


@pytest.fixture
async def anthropic_client(anthropic_fake: FakeAnthropic) -> AsyncIterator[AsyncAnthropic]:
    async with AsyncAnthropic(
        api_key=KEY, base_url=anthropic_fake.base_url, max_retries=0, timeout=10
    ) as client:
        yield client


@pytest.fixture
def openai_fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(valid_keys={KEY}) as fake:
        yield fake


@pytest.fixture
async def openai_client(openai_fake: FakeOpenAI) -> AsyncIterator[AsyncOpenAI]:
    async with AsyncOpenAI(
        api_key=KEY, base_url=f"{openai_fake.base_url}/v1", max_retries=0, timeout=10
    ) as client:
        yield client


@pytest.fixture
def gemini_fake() -> Iterator[FakeGemini]:
    with FakeGemini(valid_keys={KEY}) as fake:
        yield fake


def gemini(
    fake: FakeGemini, *, key: str = KEY, vertexai: bool = False, timeout_ms: int = 10_000
) -> genai.Client:
    options = genai_types.HttpOptions(base_url=fake.base_url, timeout=timeout_ms)
    return genai.Client(api_key=key, vertexai=vertexai, http_options=options)


@pytest.fixture
async def gemini_client(gemini_fake: FakeGemini) -> AsyncIterator[genai.client.AsyncClient]:
    client = gemini(gemini_fake)
    yield client.aio
    await client.aio.aclose()
    client.close()


@pytest.fixture
def voyage_fake() -> Iterator[FakeVoyage]:
    with FakeVoyage(valid_keys={KEY}) as fake:
        yield fake


def voyage(fake: FakeVoyage, *, key: str = KEY, timeout: float = 10) -> AsyncVoyage:
    return AsyncVoyage(api_key=key, base_url=f"{fake.base_url}/v1", max_retries=0, timeout=timeout)


# -- Anthropic ------------------------------------------------------------------------------


async def test_anthropic_streams_text_in_pieces_with_usage(
    anthropic_fake: FakeAnthropic, anthropic_client: AsyncAnthropic
) -> None:
    anthropic_fake.enqueue(Reply(text=STORY, chunk_size=5, usage=(21, 43)))
    async with anthropic_client.messages.stream(
        model="claude-haiku-4-5", max_tokens=256, messages=USER_MESSAGE
    ) as stream:
        pieces = [text async for text in stream.text_stream]
        message = await stream.get_final_message()

    assert len(pieces) > 1
    assert "".join(pieces) == STORY
    assert message.stop_reason == "end_turn"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (21, 43)
    assert message.model == "claude-haiku-4-5"


async def test_anthropic_streams_tool_call_arguments_in_pieces(
    anthropic_fake: FakeAnthropic, anthropic_client: AsyncAnthropic
) -> None:
    anthropic_fake.enqueue(Reply(text="Let me look.", tool_calls=[("get_weather", WEATHER_ARGS)]))
    stream = await anthropic_client.messages.create(
        model="claude-haiku-4-5",
        max_tokens=256,
        messages=USER_MESSAGE,
        tools=[WEATHER_TOOL],
        stream=True,
    )
    json_pieces: list[str] = []
    text_pieces: list[str] = []
    async for event in stream:
        if isinstance(event, RawContentBlockDeltaEvent):
            if isinstance(event.delta, InputJSONDelta):
                json_pieces.append(event.delta.partial_json)
            elif isinstance(event.delta, TextDelta):
                text_pieces.append(event.delta.text)
    assert len(json_pieces) > 1
    assert json.loads("".join(json_pieces)) == WEATHER_ARGS
    assert "".join(text_pieces) == "Let me look."

    anthropic_fake.enqueue(Reply(tool_calls=[("get_weather", WEATHER_ARGS)]))
    async with anthropic_client.messages.stream(
        model="claude-haiku-4-5", max_tokens=256, messages=USER_MESSAGE
    ) as helper:
        message = await helper.get_final_message()
    assert message.stop_reason == "tool_use"
    [block] = message.content
    assert isinstance(block, ToolUseBlock)
    assert (block.name, block.input) == ("get_weather", WEATHER_ARGS)
    assert block.id.startswith("toolu_")


async def test_anthropic_non_streaming_reply_and_recorded_request(
    anthropic_fake: FakeAnthropic, anthropic_client: AsyncAnthropic
) -> None:
    message = await anthropic_client.messages.create(
        model="claude-haiku-4-5", max_tokens=64, system="Be brief.", messages=USER_MESSAGE
    )
    [block] = message.content
    assert block.type == "text"
    assert block.text == "Hello from the fake Anthropic."
    assert message.usage.input_tokens == 12

    [request] = anthropic_fake.requests
    assert (request.method, request.path, request.endpoint) == ("POST", "/v1/messages", "messages")
    assert request.api_key == KEY
    assert request.body["system"] == "Be brief."
    assert request.body["messages"] == USER_MESSAGE
    assert "anthropic-version" in request.headers
    assert "Be brief." in request.text


async def test_anthropic_lists_models(anthropic_client: AsyncAnthropic) -> None:
    ids = [model.id async for model in anthropic_client.models.list()]
    assert "claude-sonnet-4-20250514" in ids
    assert "claude-haiku-4-5" in ids


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("rate_limit", anthropic.RateLimitError),
        ("server_error", anthropic.InternalServerError),
        ("malformed", json.JSONDecodeError),
    ],
)
async def test_anthropic_errors(
    anthropic_fake: FakeAnthropic,
    anthropic_client: AsyncAnthropic,
    case: str,
    expected: type[Exception],
    stream: bool,
) -> None:
    anthropic_fake.enqueue(ERROR_REPLIES[case])
    with pytest.raises(expected) as caught:
        if stream:
            async with anthropic_client.messages.stream(
                model="claude-haiku-4-5", max_tokens=64, messages=USER_MESSAGE
            ) as events:
                await events.get_final_message()
        else:
            await anthropic_client.messages.create(
                model="claude-haiku-4-5", max_tokens=64, messages=USER_MESSAGE
            )
    if isinstance(caught.value, anthropic.RateLimitError):
        assert caught.value.response.headers["retry-after"] == "1"
        assert caught.value.body == {
            "type": "error",
            "error": {"type": "rate_limit_error", "message": "slow down"},
            "request_id": caught.value.body["request_id"],  # type: ignore[index]
        }


async def test_anthropic_wrong_key_and_timeout(anthropic_fake: FakeAnthropic) -> None:
    async with AsyncAnthropic(
        api_key=WRONG_KEY, base_url=anthropic_fake.base_url, max_retries=0
    ) as client:
        with pytest.raises(anthropic.AuthenticationError) as caught:
            await client.messages.create(
                model="claude-haiku-4-5", max_tokens=64, messages=USER_MESSAGE
            )
    assert caught.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]
    assert anthropic_fake.pending() == 0

    anthropic_fake.enqueue(Reply(delay=3))
    async with AsyncAnthropic(
        api_key=KEY, base_url=anthropic_fake.base_url, max_retries=0
    ) as client:
        with pytest.raises(anthropic.APITimeoutError):
            await client.messages.create(
                model="claude-haiku-4-5", max_tokens=64, messages=USER_MESSAGE, timeout=TIMEOUT
            )


def test_anthropic_from_sync_code() -> None:
    with (
        FakeAnthropic() as fake,
        anthropic.Anthropic(api_key="any", base_url=fake.base_url) as client,
    ):
        fake.enqueue(Reply(text="sync works"))
        message = client.messages.create(
            model="claude-haiku-4-5", max_tokens=64, messages=USER_MESSAGE
        )
    [block] = message.content
    assert block.type == "text"
    assert block.text == "sync works"


# -- OpenAI ---------------------------------------------------------------------------------


async def test_openai_streams_text_in_pieces_with_usage(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    openai_fake.enqueue(Reply(text=STORY, chunk_size=6, usage=(5, 7)))
    stream = await openai_client.chat.completions.create(
        model="gpt-4o", messages=USER_MESSAGE, stream=True, stream_options={"include_usage": True}
    )
    pieces: list[str] = []
    finish_reasons: list[str] = []
    usage = None
    async for chunk in stream:
        for choice in chunk.choices:
            if choice.delta.content:
                pieces.append(choice.delta.content)
            if choice.finish_reason:
                finish_reasons.append(choice.finish_reason)
        if chunk.usage is not None:
            usage = chunk.usage
    assert len(pieces) > 1
    assert "".join(pieces) == STORY
    assert finish_reasons == ["stop"]
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (5, 7, 12)


async def test_openai_streams_tool_call_arguments_in_pieces(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    openai_fake.enqueue(
        Reply(tool_calls=[("get_weather", WEATHER_ARGS), ("get_time", {"tz": "UTC"})])
    )
    stream = await openai_client.chat.completions.create(
        model="gpt-4o-mini", messages=USER_MESSAGE, stream=True
    )
    arguments: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    finish_reason = None
    async for chunk in stream:
        assert chunk.usage is None
        choice = chunk.choices[0]
        finish_reason = choice.finish_reason or finish_reason
        for call in choice.delta.tool_calls or []:
            if call.function and call.function.name:
                names[call.index] = call.function.name
            if call.function and call.function.arguments:
                arguments.setdefault(call.index, []).append(call.function.arguments)
    assert names == {0: "get_weather", 1: "get_time"}
    assert len(arguments[0]) > 1
    assert json.loads("".join(arguments[0])) == WEATHER_ARGS
    assert json.loads("".join(arguments[1])) == {"tz": "UTC"}
    assert finish_reason == "tool_calls"

    openai_fake.enqueue(Reply(text="Checking.", tool_calls=[("get_weather", WEATHER_ARGS)]))
    async with openai_client.chat.completions.stream(
        model="gpt-4o", messages=USER_MESSAGE
    ) as helper:
        completion = await helper.get_final_completion()
    message = completion.choices[0].message
    assert message.content == "Checking."
    assert message.tool_calls is not None
    [tool_call] = message.tool_calls
    assert tool_call.type == "function"
    assert tool_call.function.name == "get_weather"
    assert json.loads(tool_call.function.arguments) == WEATHER_ARGS


async def test_openai_non_streaming_tool_call(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    openai_fake.enqueue(Reply(tool_calls=[("get_weather", WEATHER_ARGS)]))
    completion = await openai_client.chat.completions.create(model="gpt-4o", messages=USER_MESSAGE)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert choice.message.tool_calls is not None
    call = choice.message.tool_calls[0]
    assert call.type == "function"
    assert json.loads(call.function.arguments) == WEATHER_ARGS
    assert completion.usage is not None
    assert completion.usage.total_tokens == 46
    assert openai_fake.requests[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("rate_limit", openai.RateLimitError),
        ("server_error", openai.InternalServerError),
        ("malformed", json.JSONDecodeError),
    ],
)
async def test_openai_errors(
    openai_fake: FakeOpenAI,
    openai_client: AsyncOpenAI,
    case: str,
    expected: type[Exception],
    stream: bool,
) -> None:
    openai_fake.enqueue(ERROR_REPLIES[case])
    with pytest.raises(expected) as caught:
        if stream:
            chunks = await openai_client.chat.completions.create(
                model="gpt-4o", messages=USER_MESSAGE, stream=True
            )
            async for _ in chunks:
                pass
        else:
            await openai_client.chat.completions.create(model="gpt-4o", messages=USER_MESSAGE)
    if isinstance(caught.value, openai.RateLimitError):
        assert caught.value.response.headers["retry-after"] == "1"
        assert caught.value.code == "rate_limit_exceeded"
        assert caught.value.message.endswith("slow down")


async def test_openai_wrong_key_and_timeout(openai_fake: FakeOpenAI) -> None:
    async with AsyncOpenAI(
        api_key=WRONG_KEY, base_url=f"{openai_fake.base_url}/v1", max_retries=0
    ) as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.embeddings.create(model="text-embedding-3-small", input="hi")
    assert caught.value.code == "invalid_api_key"

    openai_fake.enqueue(Reply(delay=3))
    async with AsyncOpenAI(
        api_key=KEY, base_url=f"{openai_fake.base_url}/v1", max_retries=0
    ) as client:
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(
                model="gpt-4o", messages=USER_MESSAGE, timeout=TIMEOUT
            )


async def test_a_held_reply_is_answered_once_the_test_lets_it_go(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    released = threading.Event()
    openai_fake.enqueue(Reply(text="At last.", held=released))
    asking = asyncio.ensure_future(
        openai_client.chat.completions.create(model="gpt-4o", messages=USER_MESSAGE)
    )

    async def taken() -> bool:
        return openai_fake.pending() == 0

    await eventually(taken)
    done, _ = await asyncio.wait({asking}, timeout=0.5)  # held: no answer meanwhile
    assert not done
    released.set()
    answer = await asking
    assert answer.choices[0].message.content == "At last."


async def test_a_stream_held_after_its_first_events_sends_them_then_waits(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    released = threading.Event()
    openai_fake.enqueue(
        Reply(text="Half way. The rest.", chunk_size=10, held=released, held_after=2)
    )
    stream = await openai_client.chat.completions.create(
        model="gpt-4o", messages=USER_MESSAGE, stream=True
    )
    chunks = aiter(stream)
    role, first = await anext(chunks), await anext(chunks)  # sent before the wait
    assert (role.choices[0].delta.role, first.choices[0].delta.content) == (
        "assistant",
        "Half way. ",
    )
    following = asyncio.ensure_future(anext(chunks))
    done, _ = await asyncio.wait({following}, timeout=0.5)  # held: nothing more meanwhile
    assert not done
    released.set()
    assert (await following).choices[0].delta.content == "The rest."
    await stream.close()
    with pytest.raises(ValueError, match="needs held"):
        Reply(text="x", held_after=2)


async def test_openai_embeddings(openai_fake: FakeOpenAI, openai_client: AsyncOpenAI) -> None:
    texts = ["the cat sat on the mat", "a cat on a mat", "quarterly tax report"]
    default = await openai_client.embeddings.create(model="text-embedding-3-small", input=texts)
    assert openai_fake.requests[0].body["encoding_format"] == "base64"  # the SDK's own choice
    vectors = [item.embedding for item in default.data]
    assert [len(vector) for vector in vectors] == [1536] * 3
    assert vectors[0] == fake_embedding(texts[0], 1536)
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])

    small = await openai_client.embeddings.create(
        model="text-embedding-3-small", input=texts[0], dimensions=64
    )
    as_floats = await openai_client.embeddings.create(
        model="text-embedding-3-small", input=[texts[0]], dimensions=64, encoding_format="float"
    )
    assert len(small.data[0].embedding) == 64
    assert small.data[0].embedding == as_floats.data[0].embedding == fake_embedding(texts[0], 64)

    large = await openai_client.embeddings.create(model="text-embedding-3-large", input="x")
    assert len(large.data[0].embedding) == 3072


async def test_openai_images(openai_fake: FakeOpenAI, openai_client: AsyncOpenAI) -> None:
    result = await openai_client.images.generate(
        model="gpt-image-1", prompt="a red fox", size="1024x1024"
    )
    assert result.data is not None
    b64 = result.data[0].b64_json
    assert b64 is not None
    assert base64.b64decode(b64).startswith(PNG_SIGNATURE)

    openai_fake.enqueue(Reply(image_bytes=b"\x89PNG\r\n\x1a\nscripted"), endpoint="images")
    by_url = await openai_client.images.generate(
        model="dall-e-3", prompt="a fox", response_format="url"
    )
    assert by_url.data is not None
    url = by_url.data[0].url
    assert url is not None
    async with httpx.AsyncClient() as client:
        response = await client.get(url)
    assert response.content == b"\x89PNG\r\n\x1a\nscripted"


async def test_openai_models_and_compatible_servers(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    ids = [model.id async for model in openai_client.models.list()]
    assert {"gpt-4o", "gpt-4o-mini", "text-embedding-3-small", "dall-e-3", "gpt-image-1"} <= set(
        ids
    )

    # An Ollama-style server: its own model list, no key check worth the name, base URL .../v1.
    with FakeOpenAI(models=["llama3.2:3b"]) as ollama:
        async with AsyncOpenAI(
            api_key="ollama", base_url=f"{ollama.base_url}/v1/", max_retries=0
        ) as client:
            assert [model.id async for model in client.models.list()] == ["llama3.2:3b"]
            completion = await client.chat.completions.create(
                model="llama3.2:3b", messages=USER_MESSAGE
            )
    assert completion.choices[0].message.content == "Hello from the fake OpenAI."


# -- Gemini ---------------------------------------------------------------------------------


def gemini_parts(response: genai_types.GenerateContentResponse) -> list[genai_types.Part]:
    assert response.candidates
    content = response.candidates[0].content
    assert content is not None
    return list(content.parts or [])


async def test_gemini_streams_text_and_tool_call(
    gemini_fake: FakeGemini, gemini_client: genai.client.AsyncClient
) -> None:
    gemini_fake.enqueue(
        Reply(text=STORY, tool_calls=[("get_weather", WEATHER_ARGS)], chunk_size=10)
    )
    declaration = genai_types.FunctionDeclaration(
        name="get_weather",
        description="The weather.",
        parameters_json_schema=WEATHER_TOOL["input_schema"],
    )
    config = genai_types.GenerateContentConfig(
        tools=[genai_types.Tool(function_declarations=[declaration])]
    )
    pieces: list[str] = []
    calls: list[genai_types.FunctionCall] = []
    usage = None
    finish = None
    async for chunk in await gemini_client.models.generate_content_stream(
        model="gemini-2.5-flash", contents="Weather in Paris?", config=config
    ):
        for part in gemini_parts(chunk):
            if part.text:
                pieces.append(part.text)
            if part.function_call:
                calls.append(part.function_call)
        usage = chunk.usage_metadata or usage
        assert chunk.candidates
        finish = chunk.candidates[0].finish_reason or finish
    assert len(pieces) > 1
    assert "".join(pieces) == STORY
    [call] = calls
    assert (call.name, call.args) == ("get_weather", WEATHER_ARGS)
    assert finish == genai_types.FinishReason.STOP
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (12, 34)

    [request] = gemini_fake.requests
    assert request.path == "/v1/models/gemini-2.5-flash:streamGenerateContent"
    assert request.query == {"alt": "sse"}
    assert request.api_key == KEY
    assert request.body["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"


async def test_gemini_non_streaming(
    gemini_fake: FakeGemini, gemini_client: genai.client.AsyncClient
) -> None:
    response = await gemini_client.models.generate_content(model="gemini-2.5-pro", contents="Hi")
    assert response.text == "Hello from the fake Gemini."
    assert response.usage_metadata is not None
    assert response.usage_metadata.total_token_count == 46

    gemini_fake.enqueue(Reply(tool_calls=[("get_weather", {"city": "Oslo"})]))
    response = await gemini_client.models.generate_content(model="gemini-2.5-pro", contents="Hi")
    assert response.function_calls is not None
    assert response.function_calls[0].args == {"city": "Oslo"}


@pytest.mark.parametrize(
    ("case", "expected", "code"),
    [
        ("rate_limit", genai_errors.ClientError, 429),
        ("server_error", genai_errors.ServerError, 500),
        ("malformed", genai_errors.UnknownApiResponseError, None),
    ],
)
async def test_gemini_stream_errors(
    gemini_fake: FakeGemini,
    gemini_client: genai.client.AsyncClient,
    case: str,
    expected: type[Exception],
    code: int | None,
) -> None:
    gemini_fake.enqueue(ERROR_REPLIES[case])
    with pytest.raises(expected) as caught:
        async for _ in await gemini_client.models.generate_content_stream(
            model="gemini-2.5-flash", contents="Hi"
        ):
            pass
    if isinstance(caught.value, genai_errors.APIError):
        assert caught.value.code == code
    if code == 429:
        assert isinstance(caught.value, genai_errors.APIError)
        assert caught.value.status == "RESOURCE_EXHAUSTED"
        assert caught.value.message == "slow down"


async def test_gemini_wrong_key_and_timeout(gemini_fake: FakeGemini) -> None:
    wrong = gemini(gemini_fake, key=WRONG_KEY)
    with pytest.raises(genai_errors.ClientError) as caught:
        await wrong.aio.models.generate_content(model="gemini-2.5-flash", contents="Hi")
    await wrong.aio.aclose()
    assert caught.value.code == 401

    gemini_fake.enqueue(Reply(delay=3))
    slow = gemini(gemini_fake, timeout_ms=int(TIMEOUT * 1000))
    with pytest.raises(TimeoutError):
        await slow.aio.models.generate_content(model="gemini-2.5-flash", contents="Hi")
    await slow.aio.aclose()


async def test_gemini_embeddings(
    gemini_fake: FakeGemini, gemini_client: genai.client.AsyncClient
) -> None:
    texts = ["the cat sat on the mat", "quarterly tax report"]
    config = genai_types.EmbedContentConfig(
        output_dimensionality=64, task_type="RETRIEVAL_DOCUMENT"
    )
    contents: list[genai_types.ContentUnion] = list(texts)
    result = await gemini_client.models.embed_content(
        model="gemini-embedding-001", contents=contents, config=config
    )
    assert result.embeddings is not None
    assert [item.values for item in result.embeddings] == [
        fake_embedding(text, 64) for text in texts
    ]
    request = gemini_fake.requests[0]
    assert request.path == "/v1/models/gemini-embedding-001:batchEmbedContents"
    assert request.body["requests"][0]["taskType"] == "RETRIEVAL_DOCUMENT"

    default = await gemini_client.models.embed_content(model="gemini-embedding-001", contents="x")
    assert default.embeddings is not None
    assert default.embeddings[0].values is not None
    assert len(default.embeddings[0].values) == 3072


@pytest.mark.filterwarnings("ignore:The generate_images method is deprecated")
async def test_gemini_images(
    gemini_fake: FakeGemini, gemini_client: genai.client.AsyncClient
) -> None:
    vertex = gemini(gemini_fake, vertexai=True)
    result = await vertex.aio.models.generate_images(
        model="imagen-4.0-generate-001", prompt="a red fox"
    )
    await vertex.aio.aclose()
    assert result.generated_images
    image = result.generated_images[0].image
    assert image is not None
    assert image.image_bytes is not None
    assert image.image_bytes.startswith(PNG_SIGNATURE)
    assert (
        gemini_fake.requests[0].path
        == "/v1beta1/publishers/google/models/imagen-4.0-generate-001:predict"
    )

    native = await gemini_client.models.generate_content(
        model="gemini-2.5-flash-image", contents="a red fox"
    )
    inline = [part.inline_data for part in gemini_parts(native) if part.inline_data]
    assert inline
    assert inline[0].data is not None
    assert inline[0].data.startswith(PNG_SIGNATURE)


async def test_gemini_lists_models_on_any_api_version(gemini_fake: FakeGemini) -> None:
    client = genai.Client(
        api_key=KEY,
        http_options=genai_types.HttpOptions(base_url=gemini_fake.base_url, api_version="v1beta"),
    )
    names = [model.name async for model in await client.aio.models.list()]
    await client.aio.aclose()
    assert "models/gemini-2.5-flash" in names
    assert gemini_fake.requests[0].path == "/v1beta/models"


# -- Voyage ---------------------------------------------------------------------------------


async def test_voyage_embeddings(voyage_fake: FakeVoyage) -> None:
    texts = ["the cat sat on the mat", "quarterly tax report"]
    result = await voyage(voyage_fake).embed(
        texts, model="voyage-3.5", input_type="document", output_dimension=256
    )
    assert result.embeddings == [fake_embedding(text, 256) for text in texts]
    assert result.total_tokens == 12
    [request] = voyage_fake.requests
    assert request.path == "/v1/embeddings"
    assert request.body["input_type"] == "document"
    assert request.api_key == KEY

    default = await voyage(voyage_fake).embed(["x"], model="voyage-3.5")
    assert len(default.embeddings[0]) == 1024


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("rate_limit", voyageai.error.RateLimitError),
        ("server_error", voyageai.error.ServerError),
        ("malformed", voyageai.error.APIError),
        ("timeout", voyageai.error.Timeout),
        ("wrong_key", voyageai.error.AuthenticationError),
    ],
)
async def test_voyage_errors(voyage_fake: FakeVoyage, case: str, expected: type[Exception]) -> None:
    client = voyage(voyage_fake, key=WRONG_KEY if case == "wrong_key" else KEY, timeout=TIMEOUT)
    voyage_fake.enqueue(Reply(delay=3) if case == "timeout" else ERROR_REPLIES.get(case, Reply()))
    with pytest.raises(expected):
        await client.embed(["hello"], model="voyage-3.5")


# -- embeddings across fakes ----------------------------------------------------------------


async def test_the_same_text_gives_the_same_vector_in_every_fake(
    openai_client: AsyncOpenAI, gemini_client: genai.client.AsyncClient, voyage_fake: FakeVoyage
) -> None:
    text = "Deterministic vectors for memory tests"
    from_openai = (
        (await openai_client.embeddings.create(model="m", input=text, dimensions=32))
        .data[0]
        .embedding
    )
    gemini_config = genai_types.EmbedContentConfig(output_dimensionality=32)
    from_gemini = await gemini_client.models.embed_content(
        model="m", contents=text, config=gemini_config
    )
    from_voyage = await voyage(voyage_fake).embed([text], model="voyage-3.5", output_dimension=32)
    assert from_gemini.embeddings is not None
    assert from_openai == from_gemini.embeddings[0].values == from_voyage.embeddings[0]
    assert math.isclose(math.hypot(*from_openai), 1.0, rel_tol=1e-6)


# -- search ---------------------------------------------------------------------------------


async def test_brave_search() -> None:
    with FakeBrave(valid_keys={KEY}) as fake:
        async with httpx.AsyncClient(base_url=fake.base_url, timeout=10) as client:
            headers = {"X-Subscription-Token": KEY, "Accept": "application/json"}
            params = {"q": "kinbot agents", "count": "2", "freshness": "pw"}
            default = await client.get("/res/v1/web/search", params=params, headers=headers)
            fake.enqueue(
                Reply(
                    search_results=[
                        SearchResult("Scripted", "https://a.example/", "Snippet", "2025-02-01")
                    ]
                )
            )
            scripted = await client.get("/res/v1/web/search", params={"q": "x"}, headers=headers)
            denied = await client.get(
                "/res/v1/web/search", params={"q": "x"}, headers={"X-Subscription-Token": "no"}
            )
        assert default.status_code == 200
        results = default.json()["web"]["results"]
        assert len(results) == 2
        assert {"title", "url", "description", "age"} <= set(results[0])
        assert "kinbot agents" in results[0]["title"]
        assert scripted.json()["web"]["results"] == [
            {
                "type": "search_result",
                "title": "Scripted",
                "url": "https://a.example/",
                "description": "Snippet",
                "age": "2025-02-01",
                "page_age": "2025-02-01",
                "language": "en",
                "family_friendly": True,
            }
        ]
        assert denied.status_code == 401
        assert denied.json()["error"]["code"] == "SUBSCRIPTION_TOKEN_INVALID"
        assert fake.requests[0].query == params


async def test_searxng_search() -> None:
    with FakeSearxng() as fake:
        async with httpx.AsyncClient(base_url=fake.base_url, timeout=10) as client:
            default = await client.get("/search", params={"q": "kinbot", "format": "json"})
            fake.enqueue(Reply(search_results=[]))
            empty = await client.get("/search", params={"q": "nothing", "format": "json"})
            fake.enqueue(Reply(status=429))
            limited = await client.get("/search", params={"q": "x", "format": "json"})
            html = await client.get("/search", params={"q": "kinbot"})
    results = default.json()["results"]
    assert len(results) == 3
    assert {"title", "url", "content", "publishedDate"} <= set(results[0])
    assert empty.json()["results"] == []
    assert limited.status_code == 429
    assert html.status_code == 403


# -- scripting ------------------------------------------------------------------------------


async def test_replies_queue_per_endpoint_then_responder_then_default(
    openai_fake: FakeOpenAI, openai_client: AsyncOpenAI
) -> None:
    openai_fake.enqueue(Reply(text="first"), Reply(text="second"))
    await openai_client.embeddings.create(model="text-embedding-3-small", input="not a chat")
    assert openai_fake.pending() == 2
    assert openai_fake.pending("embeddings") == 0

    async def say() -> str | None:
        completion = await openai_client.chat.completions.create(
            model="gpt-4o", messages=USER_MESSAGE
        )
        return completion.choices[0].message.content

    assert [await say(), await say()] == ["first", "second"]

    def echo(request: RecordedRequest) -> Reply | None:
        return (
            Reply(text=f"echo {len(request.body['messages'])}")
            if request.endpoint == "chat"
            else None
        )

    openai_fake.responder = echo
    assert await say() == "echo 1"
    openai_fake.reset()
    assert openai_fake.requests == []
    assert await say() == "Hello from the fake OpenAI."
    with pytest.raises(ValueError, match="no endpoint"):
        openai_fake.enqueue(Reply(), endpoint="nope")


def test_a_fake_keeps_an_idle_connection_longer_than_its_clients_do() -> None:
    """The SDKs' aiohttp transport keeps an idle connection 15 s (httpx 5 s): a fake that
    closed it sooner could lose a request sent on it just then, as hypercorn's 5 s did."""
    sock = socket.create_server(("127.0.0.1", 0))
    config = loopback_config(sock, logging.getLogger("tests"))
    socket.socket(fileno=int(config.bind[0].removeprefix("fd://"))).close()
    assert config.keep_alive_timeout > 15

"""A prompt too long for the model's window, a model the server does not have, a server still
loading: each recognised from what the server says (the fake OpenAI-compatible server in the
forms llama.cpp, OpenAI, vLLM and Ollama use), the turn recovering when it can (compacting
harder and trying once more; retrying a server that is starting) and otherwise ending with a
code and the numbers the chat words in the reader's language, never a machine's address."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.kins import prompt_budget
from kinbot_core.platform import Platform
from kinbot_core.providers import ChatMessage, ChatRequest, ContextOverflowError, TextDelta
from kinbot_plugins.providers._server_errors import recognised
from kinbot_plugins.providers.gemini_provider import gemini_type
from kinbot_plugins.providers.openai_compatible import openai_compatible_type
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeGemini, FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.fakes.openai_fake import OVERFLOW_FORMS, llamacpp_loading, ollama_model_missing
from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent, sse_stream

SUMMARY_MARKER = "You maintain the working memory"
#: A message no prompt of a 2,048-token window can hold (about 3,000 tokens on its own).
HUGE = "Here is the whole family recipe book, please read it. " * 220


def is_turn(request: RecordedRequest) -> bool:
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or [{}]
    return request.endpoint == "chat" and "You are Chef" in str(messages[0].get("content"))


def turns(fake: FakeOpenAI) -> list[RecordedRequest]:
    return [request for request in fake.requests if is_turn(request)]


def answer(request: RecordedRequest) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    system = str((body.get("messages") or [{}])[0].get("content"))
    if SUMMARY_MARKER in system:
        return Reply(text="SUMMARY: the family talked about meals with Chef.")
    return Reply(text="Noted.")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.responder = answer
        yield server


async def serve(data_dir: Path, fake: FakeOpenAI, **settings: Any) -> AsyncIterator[RunningServer]:
    platform = Platform(load_settings(data_dir=data_dir, llm_timeout_seconds=10, **settings))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake)
        yield server


@pytest.fixture
async def server(data_dir: Path, fake: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """KinBot believes gpt-4o has 8,192 tokens; the fake server may have fewer."""
    async for running in serve(
        data_dir,
        fake,
        llm_max_retries=2,
        compacting_context_windows={"gpt-4o": 8192},
        compacting_keep_recent_messages=2,
    ):
        yield running


async def exchange(server: RunningServer, kin_id: str, text: str) -> dict[str, Any]:
    """Send ``text``, wait for its turn to end, return the turn's last stored message."""
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, text)
        await stream.wait_for(turn_ended(message_id))
    return [m for m in await session(server.client, kin_id) if m["turn_of"] == message_id][-1]


async def kin_state(server: RunningServer, kin_id: str) -> str:
    response = await server.client.get(f"/api/kins/{kin_id}")
    assert response.status_code == 200, response.text
    state: str = response.json()["kin"]["state"]
    return state


# -- what the server says, recognised ---------------------------------------------------------


@pytest.mark.parametrize("form", OVERFLOW_FORMS)
async def test_each_form_of_overflow_is_recognised_with_the_numbers_said(
    fake: FakeOpenAI, form: str
) -> None:
    fake.window, fake.overflow_form = 40, form
    provider = openai_compatible_type.create({"base_url": f"{fake.base_url}/v1"}, timeout=10)
    assert provider.llm is not None
    request = ChatRequest(
        model="gpt-4o-mini", system="You help.", messages=(ChatMessage("user", "x" * 400),)
    )
    try:
        with pytest.raises(ContextOverflowError) as raised:
            async for _event in provider.llm.chat(request):
                pass
    finally:
        await provider.aclose()
    body = fake.requests[-1].body
    error = raised.value
    assert error.code == "context_overflow"
    if form in ("truncated", "length"):  # the stream says nothing of sizes
        assert (error.window, error.needed) == (None, None)
    else:
        prompt = FakeOpenAI.prompt_tokens(body)
        said = FakeOpenAI.needed_tokens(body) if form == "vllm" else prompt
        assert (error.window, error.needed, error.prompt_tokens) == (40, said, prompt)


async def test_a_prompt_that_fits_is_not_taken_for_an_overflow(fake: FakeOpenAI) -> None:
    fake.window = 8000  # the prompt and the 4,096 tokens asked for the answer
    provider = openai_compatible_type.create({"base_url": f"{fake.base_url}/v1"}, timeout=10)
    assert provider.llm is not None
    request = ChatRequest(model="gpt-4o-mini", messages=(ChatMessage("user", "Hello"),))
    try:
        texts = [e.text async for e in provider.llm.chat(request) if isinstance(e, TextDelta)]
    finally:
        await provider.aclose()
    assert "".join(texts) == "Noted."


# -- a turn that overflows --------------------------------------------------------------------


async def test_an_overflow_compacts_harder_and_the_retry_answers(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    """The server's real window (2,048) is smaller than the one KinBot believed (8,192): the
    first call is refused; the session is compacted harder, the prompt fitted to the window
    the server named, and the second call answers. The Kin ends idle, not in error."""
    kin_id = await make_kin(server.client)
    for number in range(3):
        await exchange(server, kin_id, f"Dinner idea number {number}? " + "Some context. " * 20)
    fake.window = 2048
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, "And for Sunday lunch?")
        compacted = await stream.wait_for(
            lambda e: e.type == "kin.compacting" and e.data["status"] == "done"
        )
        await stream.wait_for(turn_ended(message_id))
    assert compacted.data["snapshot"]["messages_folded"] >= 2
    last = [m for m in await session(server.client, kin_id) if m["turn_of"] == message_id][-1]
    assert (last["role"], last["content"], last["is_error"]) == ("assistant", "Noted.", False)
    refused, answered = turns(fake)[-2:]
    assert FakeOpenAI.needed_tokens(refused.body) > 2048 >= FakeOpenAI.needed_tokens(answered.body)
    assert await kin_state(server, kin_id) == "idle"


#: The fake's tokenizer in the next test: 2.5 characters a token, where KinBot estimates four.
DENSE = 2.5


@pytest.fixture
async def misinformed(data_dir: Path, fake: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """KinBot believes gpt-4o has 8,192 tokens, with every other setting at its default
    (30 recent messages kept verbatim)."""
    async for running in serve(
        data_dir, fake, llm_max_retries=0, compacting_context_windows={"gpt-4o": 8192}
    ):
        yield running


async def test_harder_compacting_measures_against_the_window_the_server_named(
    misinformed: RunningServer, fake: FakeOpenAI
) -> None:
    """The server (2,048 tokens, a denser tokenizer) refuses the second turn in llama.cpp's
    words. Compacting harder keeps what fits the window the server named, not the 8,192
    KinBot believed (where the whole short session would stay verbatim): the first exchange
    is folded and the retry answers. The refusal's count of the prompt taught the ratio."""
    server = misinformed
    kin_id = await make_kin(server.client)
    await exchange(server, kin_id, "Notes for the week: " + "leeks, carrots, bread. " * 30)
    fake.window, fake.chars_per_token = 2048, DENSE
    last = await exchange(server, kin_id, "And for Thursday?")
    assert (last["role"], last["content"], last["is_error"]) == ("assistant", "Noted.", False)
    refused, answered = turns(fake)[-2:]
    needed = [fake.needed_tokens(request.body, DENSE) for request in (refused, answered)]
    assert needed[0] > 2048 >= needed[1]
    state = (await server.client.get(f"/api/kins/{kin_id}/compacting")).json()
    assert state["active"] and state["active"]["messages_folded"] == 2
    assert "leeks" not in str(answered.body["messages"][1:])  # folded into the summary
    budget = await prompt_budget.budget_for(server.platform, "gpt-4o")
    assert budget.window.tokens == 8192 and budget.ratio > 1.4


def is_failure(event: SseEvent) -> bool:
    message = event.data.get("message", {})
    return event.type == "message" and bool(message.get("is_error"))


async def test_a_turn_that_cannot_fit_ends_with_the_window_and_what_it_needs(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    """A message larger than the whole window: tried twice, then a code and numbers (the
    chat words them: "Chef's model has a 2,048-token window; KinBot needs about 3,700…"),
    no address of the server. Once the model's context is raised, the Kin answers again."""
    fake.window = 2048
    kin_id = await make_kin(server.client)
    failure = await exchange(server, kin_id, HUGE)
    assert failure["is_error"] and failure["role"] == "system"
    meta = failure["meta"]
    assert meta["error_code"] == "context_overflow" and meta["retryable"] is True
    needed = meta["params"]["needed"]
    assert meta["params"]["window"] == 2048
    assert needed % 100 == 0 and needed >= FakeOpenAI.prompt_tokens(turns(fake)[-1].body) > 2048
    assert len(turns(fake)) == 2  # the call, and one retry
    assert "127.0.0.1" not in failure["content"] and "http" not in failure["content"]
    assert f"({2048:,} tokens)" in failure["content"]
    assert await kin_state(server, kin_id) == "error"

    fake.window = 16_384  # the person raised the model's context size
    after = await exchange(server, kin_id, "Shorter then: what for dinner?")
    assert (after["role"], after["content"]) == ("assistant", "Noted.")
    assert await kin_state(server, kin_id) == "idle"


# -- a model the server does not have, a server still starting ----------------------------------


async def test_a_model_that_was_never_pulled_says_so(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    fake.enqueue(ollama_model_missing("gpt-4o"))
    failure = await exchange(server, kin_id, "Hello?")
    assert failure["meta"]["error_code"] == "model_not_loaded"
    assert failure["meta"]["params"] == {"model": "gpt-4o"}
    assert "try pulling it first" in failure["meta"]["detail"]
    assert len(turns(fake)) == 1  # not retried: pulling takes a person


async def test_a_server_still_loading_its_model_is_waited_for(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    fake.enqueue(llamacpp_loading(), Reply(text="Ready now."))
    reply = await exchange(server, kin_id, "Hello?")
    assert (reply["role"], reply["content"]) == ("assistant", "Ready now.")
    assert len(turns(fake)) == 2


async def test_a_server_that_stays_loading_ends_the_turn_with_its_code(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    fake.enqueue(*(llamacpp_loading() for _ in range(3)))  # the first call and two retries
    failure = await exchange(server, kin_id, "Hello?")
    assert failure["meta"]["error_code"] == "provider_starting"
    assert failure["meta"]["retryable"] is True
    assert len(turns(fake)) == 3


async def test_a_failed_turns_sentence_names_no_address_of_the_server(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    """The stored sentence (what API clients, channels and older screens read) leaves the
    local server's address out, as the provider's words in ``detail`` already did."""
    added = await server.client.post(
        "/api/providers",
        json={
            "type": "openai-compatible",
            "name": "Local models",
            "config": {"base_url": f"{fake.base_url}/v1"},
        },
    )
    assert added.status_code == 201, added.text
    kin_id = await make_kin(server.client, model="Local models/gpt-4o-mini")
    fake.enqueue(Reply(text="Half an ans", malformed=True))
    failure = await exchange(server, kin_id, "Hello?")
    assert failure["is_error"] and failure["content"].startswith("Chef could not answer: ")
    assert "[address]" in failure["content"], failure["content"]
    assert "127.0.0.1" not in failure["content"] and fake.base_url not in failure["content"]
    response = await server.client.get(f"/api/kins/{kin_id}")
    assert "127.0.0.1" not in str(response.json()["kin"].get("last_error"))


@pytest.mark.parametrize(
    "status,words,window,needed",
    [
        (400, "prompt is too long: 210000 tokens > 200000 maximum", 200_000, 210_000),
        (
            400,
            "Trying to keep the first 2950 tokens when context the overflows. However, the model "
            "is loaded with context length of only 2048 tokens, which is not enough.",
            2048,
            2950,
        ),
        (400, "the request exceeds the available context size, try increasing it", None, None),
        (
            400,
            "This model's maximum context length is 2048 tokens and your request has 2950 input "
            "tokens. Please reduce the length of the input messages.",
            2048,
            2950,
        ),
    ],
    ids=["anthropic", "lm-studio", "llama.cpp-older", "vllm-newer"],
)
def test_other_servers_wordings_of_an_overflow(
    status: int, words: str, window: int | None, needed: int | None
) -> None:
    error = recognised(status, words, None, "The server")
    assert isinstance(error, ContextOverflowError)
    assert (error.window, error.needed) == (window, needed)


async def test_geminis_own_words_for_an_input_too_long_are_an_overflow() -> None:
    """Gemini refuses a prompt over the model's input limit with a 400 INVALID_ARGUMENT of
    its own wording (through google-genai), with both numbers."""
    words = (
        "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."
    )
    with FakeGemini() as gemini:
        gemini.enqueue(Reply(status=400, error_type="INVALID_ARGUMENT", error_message=words))
        provider = gemini_type.create({"api_key": API_KEY, "base_url": gemini.base_url}, timeout=10)
        assert provider.llm is not None
        request = ChatRequest(model="gemini-2.5-flash", messages=(ChatMessage("user", "Hi"),))
        try:
            with pytest.raises(ContextOverflowError) as raised:
                async for _event in provider.llm.chat(request):
                    pass
        finally:
            await provider.aclose()
    assert (raised.value.window, raised.value.needed) == (1_048_576, 1_234_567)
    assert raised.value.code == "context_overflow"


@pytest.mark.parametrize(
    "status,words,code",
    [
        (404, 'model "llama3.2" not found, try pulling it first', "model_not_loaded"),
        (
            400,
            "No models loaded. Please load a model in the developer page or use the `lms load` "
            "command.",
            "model_not_loaded",
        ),
        (404, "Model with key 'qwen2.5-7b-instruct' not loaded.", "model_not_loaded"),
        (503, "Loading model", "provider_starting"),
    ],
    ids=["ollama", "lm-studio-none-loaded", "lm-studio-not-this-one", "llama.cpp-loading"],
)
def test_servers_wordings_of_a_model_not_ready(status: int, words: str, code: str) -> None:
    error = recognised(status, words, None, "The server")
    assert error is not None and error.code == code


def test_words_about_something_else_are_left_alone() -> None:
    assert recognised(400, "Invalid value for 'temperature'.", None, "The server") is None
    assert recognised(503, "Model is overloaded.", None, "The server") is None
    assert recognised(404, "The model `gpt-9` does not exist.", None, "The server") is None

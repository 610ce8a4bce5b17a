"""KinBot against a real llama.cpp server (SmolLM2-135M-Instruct, a 2,048-token context),
as a self-hoster runs it: the OpenAI-compatible provider, a Kin, streamed answers, turn after
turn. Run with ``make test-local-models`` (tests/support/llama_server.py says how they skip
elsewhere)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from kinbot_core.providers import ChatMessage, ChatRequest, Finish, TextDelta, Usage
from kinbot_plugins.providers.openai_compatible import openai_compatible_type
from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.llama_server import LlamaServer, kinbot_on_llama, llama_server
from tests.support.server import RunningServer
from tests.support.sse import sse_stream

pytestmark = pytest.mark.local_models

CONTEXT = 2048
#: A turn on a busy two-core machine: the first prompt (about 2,800 tokens) is evaluated
#: in full before the server's prefix cache helps.
TURN_SECONDS = 600.0


@pytest.fixture(scope="module")
def llama(
    local_models_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(local_models_python, log, context=CONTEXT) as server:
        yield server


@pytest.fixture
async def served(data_dir: Path, llama: LlamaServer) -> AsyncIterator[RunningServer]:
    """KinBot served over HTTP with an administrator and the llama.cpp server as its
    OpenAI-compatible provider, added as a person would (no API key)."""
    async with kinbot_on_llama(data_dir, llama, TURN_SECONDS) as server:
        yield server


async def test_the_provider_streams_an_answer_from_llama_cpp(llama: LlamaServer) -> None:
    provider = openai_compatible_type.create({"base_url": llama.base_url}, timeout=TURN_SECONDS)
    try:
        request = ChatRequest(
            model=llama.model,
            messages=(ChatMessage("user", "Name three colours."),),
            max_tokens=24,
        )
        assert provider.llm is not None
        events = [event async for event in provider.llm.chat(request)]
    finally:
        await provider.aclose()
    pieces = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(pieces) > 1, events  # streamed token by token, not in one piece
    assert "".join(pieces).strip()
    usage = [event for event in events if isinstance(event, Usage)]
    assert usage and usage[0].input_tokens > 0 and usage[0].output_tokens == len(pieces)
    assert isinstance(events[-1], Finish) and events[-1].reason in ("stop", "length")


async def test_a_kin_on_llama_cpp_answers(served: RunningServer, llama: LlamaServer) -> None:
    kin_id = await make_kin(served.client, model=llama.model)
    async with sse_stream(served.client) as stream:
        message_id = await tell(served.client, kin_id, "Hello! Who are you?")
        ended = await stream.wait_for(turn_ended(message_id), seconds=TURN_SECONDS)
    messages = await session(served.client, kin_id)
    assert ended.data["status"] == "done", messages
    answers = [m for m in messages if m["role"] == "assistant"]
    assert answers and answers[-1]["content"].strip()


async def test_ten_short_turns_fit_a_2048_token_window(
    served: RunningServer, llama: LlamaServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kinbot_core.kins.turn_fit")
    kin_id = await make_kin(served.client, model=llama.model)
    statuses = []
    async with sse_stream(served.client) as stream:
        for number in range(1, 11):
            message_id = await tell(served.client, kin_id, f"Turn {number}: say one word.")
            ended = await stream.wait_for(turn_ended(message_id), seconds=TURN_SECONDS)
            statuses.append(ended.data["status"])
    messages = await session(served.client, kin_id)
    failures = [m["content"] for m in messages if "could not answer" in (m["content"] or "")]
    assert statuses == ["done"] * 10, (statuses, failures)
    assert len([m for m in messages if m["role"] == "assistant"]) >= 10
    # Each fitted before it was sent: the server refused none (no retry after compacting).
    assert not [r.message for r in caplog.records if "did not fit the window" in r.message]


async def test_the_window_is_learned_from_the_server(
    served: RunningServer, llama: LlamaServer
) -> None:
    platform = served.platform
    (provider,) = [p for p in await platform.providers.configured("ai") if p.name == "llama.cpp"]
    window = await platform.providers.context_window(provider.id, llama.model)
    assert (window.tokens, window.source) == (CONTEXT, "server")

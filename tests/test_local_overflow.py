"""KinBot against a real llama.cpp server with a 2,048-token context (SmolLM2-135M-Instruct):
compacting triggered by the real window, a prompt too long for it recovered (the session
compacted harder, the call tried once more), and a message that can never fit explained with
the window and the tokens needed, as a person reads it in English and in French. Run with
``make test-local-models`` (tests/support/llama_server.py says how they skip elsewhere).

Each turn takes tens of seconds on a busy two-core machine: few turns, one server for the
module, a fresh KinBot per test (nothing learned of the model carries over)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.llama_server import LlamaServer, kinbot_on_llama, llama_server
from tests.support.server import RunningServer
from tests.support.sse import SseReader, sse_stream

pytestmark = pytest.mark.local_models

CONTEXT = 2048
#: A turn (or a summary) on a busy two-core machine.
TURN_SECONDS = 600.0
#: About 270 of SmolLM2's tokens: a few of these fill what a 2,048-token window leaves the
#: session once KinBot's own prompt is in.
NOTES = (
    "Notes for the week, day {n}: Nico wants a vegetable soup on Monday, leeks and carrots "
    "from the market, bread from the bakery on the corner, and a lemon tart for the weekend. "
    "Lea cannot eat peanuts; Sam prefers rice to pasta; grandmother visits on Thursday and "
    "likes fish, so plan a baked cod with potatoes and green beans. Keep the shopping under "
    "sixty euros and remind everyone that the freezer still holds two portions of lasagne. "
    "Just say noted."
)
#: About 2,700 tokens on its own: no prompt of a 2,048-token window can hold it.
HUGE = "Here is the whole family recipe book, please read it. " * 220
FIT_STRINGS = Path(__file__).resolve().parent.parent / "kinbot_web/frontend/src/i18n/fit.ts"


@pytest.fixture(scope="module")
def llama(
    local_models_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(local_models_python, log, context=CONTEXT) as server:
        yield server


async def serve(
    data_dir: Path, llama: LlamaServer, **settings: Any
) -> AsyncIterator[RunningServer]:
    """KinBot with the llama.cpp server as its OpenAI-compatible provider."""
    async with kinbot_on_llama(data_dir, llama, TURN_SECONDS, **settings) as server:
        yield server


@pytest.fixture
async def served(data_dir: Path, llama: LlamaServer) -> AsyncIterator[RunningServer]:
    """KinBot learning the window (2,048 tokens) from the server."""
    async for server in serve(data_dir, llama, compacting_keep_recent_messages=2):
        yield server


@pytest.fixture
async def misinformed(data_dir: Path, llama: LlamaServer) -> AsyncIterator[RunningServer]:
    """KinBot told the model has 8,192 tokens, as when a server's context size was lowered
    without saying so (Ollama's OLLAMA_CONTEXT_LENGTH): its prompts are not shed enough.
    Every other setting is the default: compacting harder measures what it keeps verbatim
    against the window the server names when it refuses a prompt."""
    async for server in serve(data_dir, llama, compacting_context_windows={llama.model: 8192}):
        yield server


async def turn(server: RunningServer, stream: SseReader, kin_id: str, text: str) -> str:
    """Send ``text``; the status its turn ended with."""
    message_id = await tell(server.client, kin_id, text)
    ended = await stream.wait_for(turn_ended(message_id), seconds=TURN_SECONDS)
    return str(ended.data["status"])


def failures(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["is_error"]]


def compacted(kin_id: str) -> Any:
    return lambda e: (
        e.type == "kin.compacting" and e.data["kin_id"] == kin_id and e.data["status"] == "done"
    )


async def test_the_real_window_triggers_compacting_and_later_turns_complete(
    served: RunningServer, llama: LlamaServer
) -> None:
    kin_id = await make_kin(served.client, model=llama.model)
    statuses = []
    async with sse_stream(served.client) as stream:
        for number in (1, 2, 3):
            statuses.append(await turn(served, stream, kin_id, NOTES.format(n=number)))
        done = await stream.wait_for(compacted(kin_id), seconds=TURN_SECONDS)
        statuses.append(await turn(served, stream, kin_id, "What is planned for Monday? One word."))
    messages = await session(served.client, kin_id)
    assert statuses == ["done"] * 4, (statuses, failures(messages))
    assert done.data["snapshot"]["messages_folded"] >= 2
    state = (await served.client.get(f"/api/kins/{kin_id}/compacting")).json()
    assert state["context_window"] == CONTEXT
    assert state["active"]["summary"].strip()
    answers = [m for m in messages if m["role"] == "assistant"]
    assert len(answers) >= 4 and answers[-1]["content"].strip()


async def test_a_prompt_the_server_refuses_is_compacted_harder_and_answered(
    misinformed: RunningServer, llama: LlamaServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Every turn's prompt, fitted to the 8,192 tokens KinBot believes, is refused by the
    server (2,048): the second turn folds the first exchange into a summary and its retry,
    fitted to the window the server named, answers."""
    server = misinformed
    kin_id = await make_kin(server.client, model=llama.model)
    caplog.set_level(logging.INFO, logger="kinbot_core.kins.turn_fit")
    async with sse_stream(server.client) as stream:
        first = await turn(server, stream, kin_id, NOTES.format(n=1))
        second = await turn(server, stream, kin_id, "And for Thursday? One word.")
        done = await stream.wait_for(compacted(kin_id), seconds=TURN_SECONDS)
    messages = await session(server.client, kin_id)
    assert [first, second] == ["done", "done"], failures(messages)
    refused = [r for r in caplog.records if "did not fit the window" in r.getMessage()]
    assert len(refused) == 2  # once a turn, each recovered by its one retry
    assert done.data["snapshot"]["messages_folded"] >= 2
    answers = [m for m in messages if m["role"] == "assistant"]
    assert len(answers) == 2 and all(m["content"].strip() for m in answers)
    kin = (await server.client.get(f"/api/kins/{kin_id}")).json()["kin"]
    assert kin["state"] == "idle"


async def test_a_message_that_can_never_fit_is_explained_with_the_numbers(
    served: RunningServer, llama: LlamaServer
) -> None:
    kin_id = await make_kin(served.client, model=llama.model)
    async with sse_stream(served.client) as stream:
        status = await turn(served, stream, kin_id, HUGE)
    assert status == "failed"
    (failure,) = [m for m in await session(served.client, kin_id) if m["is_error"]]
    meta = failure["meta"]
    assert meta["error_code"] == "context_overflow" and meta["retryable"] is True
    window, needed = meta["params"]["window"], meta["params"]["needed"]
    # The server's own count of the message alone is about 2,700 tokens; the answer's room
    # comes on top.
    assert window == CONTEXT and needed % 100 == 0 and 2700 < needed < 4000
    assert f"({CONTEXT:,} tokens)" in failure["content"]
    assert f"about {needed:,} tokens needed" in failure["content"]
    english, french = worded(name="Chef", window=window, needed=needed)
    assert english == (
        f"Chef's model has a 2,048-token window; KinBot needs about {needed:,} for this "
        "turn: raise the model's context size or choose a larger model."
    )
    assert "2\u202f048 jetons" in french and f"{needed:,}".replace(",", "\u202f") in french
    kin = (await served.client.get(f"/api/kins/{kin_id}")).json()["kin"]
    assert kin["state"] == "error"


def worded(**params: Any) -> tuple[str, str]:
    """The chat's English and French sentences for a ``context_overflow`` with ``params``
    (``src/i18n/fit.ts``, numbers written as each language writes them)."""
    wording = re.compile(r'^\s*context_overflow: "(.*\{\{needed\}\}.*)",$', re.M)
    sentences = wording.findall(FIT_STRINGS.read_text())
    english, french = sentences

    def fill(template: str, separator: str) -> str:
        values = {
            key: f"{value:,}".replace(",", separator) if isinstance(value, int) else value
            for key, value in params.items()
        }
        return re.sub(r"\{\{(\w+)\}\}", lambda found: str(values[found.group(1)]), template)

    return fill(english, ","), fill(french, "\u202f")

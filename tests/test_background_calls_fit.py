"""Background calls fit their own model's window: memory extraction and the compacting summary
run on the provider's light model (gpt-4o-mini here), which may have a much smaller window
than the Kin's. A server with a 2,048-token window that counts the answer's room (as vLLM
does) refuses anything longer; a long session is extracted in several calls and summarised
in one that each fit, instead of failing every time."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.kins.prompt_budget import reply_room
from kinbot_core.platform import Platform
from kinbot_plugins.memory_extraction import extraction_of
from kinbot_plugins.memory_extraction.prompts import TranscriptLine, fitting, transcript
from kinbot_plugins.memory_extraction.records import ExtractionState
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server

WINDOW = 2048
EXTRACTION_MARKER = "You extract durable long-term memories"
SUMMARY_MARKER = "You maintain the working memory"


def system_of(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    return str((body.get("messages") or [{}])[0].get("content"))


def answer(request: RecordedRequest) -> Reply:
    if EXTRACTION_MARKER in system_of(request):
        return Reply(text=json.dumps({"memories": []}))
    return Reply(text="SUMMARY: the family planned a long trip to Brittany.")


@pytest.fixture
async def server(data_dir: Any) -> AsyncIterator[tuple[RunningServer, FakeOpenAI]]:
    """The Kin on gpt-4o (128,000 tokens, known), its light model gpt-4o-mini run by the
    administrator's word with a 2,048-token window."""
    settings = load_settings(
        data_dir=data_dir,
        llm_max_retries=0,
        memory_extraction_delay_seconds=3600,
        compacting_keep_recent_messages=2,
        compacting_context_windows={"gpt-4o-mini": WINDOW},
    )
    with FakeOpenAI() as fake:
        fake.responder = answer
        async with running_server(Platform(settings)) as running:
            await set_up_admin(running.client)
            await add_openai_provider(running.client, fake)
            yield running, fake


async def long_session(server: RunningServer) -> str:
    """A Kin whose session holds about 3,000 tokens: eight long messages and their answers."""
    created = await server.client.post("/api/kins", json={"name": "Chef", "model": "OpenAI/gpt-4o"})
    assert created.status_code == 201, created.text
    kin_id: str = created.json()["kin"]["id"]
    for day in range(8):
        plan = f"Day {day + 1} of the Brittany trip: " + "we drive, walk and eat pancakes. " * 36
        await server.platform.kins.add_message(
            kin_id, role="user", source="user", sender_name="Nico", content=plan
        )
        await server.platform.kins.add_message(
            kin_id, role="assistant", source="kin", sender_name="Chef", content="Noted, lovely."
        )
    return kin_id


async def test_extraction_and_the_summary_fit_the_light_models_small_window(
    server: tuple[RunningServer, FakeOpenAI],
) -> None:
    running, fake = server
    kin_id = await long_session(running)
    fake.window, fake.overflow_form = WINDOW, "vllm"

    report = await extraction_of(running.platform).extractor.extract(kin_id)
    assert report.error is None
    assert await running.platform.compacting.compact(kin_id, force=True) is not None

    calls = [r for r in fake.requests_to("chat") if r.body["model"] == "gpt-4o-mini"]
    extractions = [r for r in calls if EXTRACTION_MARKER in system_of(r)]
    summaries = [r for r in calls if SUMMARY_MARKER in system_of(r)]
    assert len(extractions) >= 2 and len(summaries) == 1
    for request in calls:  # none refused: each asked for what the window holds
        answer_room = request.body["max_completion_tokens"]
        assert 0 < answer_room <= reply_room(WINDOW)
        needed = FakeOpenAI.prompt_tokens(request.body) + answer_room
        assert needed <= WINDOW, system_of(request)[:40]
    # Every message was read once by the extraction, and its watermark moved past them.
    shown = "".join(r.body["messages"][-1]["content"] for r in extractions)
    assert [shown.count(f"Day {day + 1} of the") for day in range(8)] == [1] * 8
    state = await running.platform.db.read(
        lambda: ExtractionState.get(ExtractionState.kin == kin_id)
    )
    assert (state.failures, state.last_error) == (0, None)


def test_a_batch_is_cut_into_parts_that_fit_and_a_huge_message_is_shortened() -> None:
    lines = [TranscriptLine(n, "Nico (user)", "word " * 100) for n in range(1, 7)]
    parts = fitting(lines, room=300)
    assert [len(part) for part in parts] == [2, 2, 2]
    assert [line for part in parts for line in part] == lines
    (huge,) = fitting([TranscriptLine(9, "Nico (user)", "x" * 3000)], room=100)
    assert len(huge) == 1 and len(transcript(huge)) <= 400
    assert fitting(lines, room=None) == [lines]
    assert fitting([], room=300) == []

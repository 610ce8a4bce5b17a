"""A model's first turn budgeted with its tokenizer's count, not the estimate: against a fake
llama.cpp server (POST /tokenize) whose tokenizer makes more tokens of a prompt than KinBot's
estimate, the first prompt, which the estimate says fits a 2,048-token window, is shed before
it is sent and never refused; the server is asked once per model, never on every turn, and a
server that fails to count leaves the turn as it was (refused, compacted harder, answered)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from hookspecs.types import ChatContext
from kinbot_core.config import load_settings
from kinbot_core.kins import prompt_budget
from kinbot_core.kins.token_calibration import prompt_text
from kinbot_core.platform import Platform
from kinbot_plugins.providers.local_servers import ServerMetadata
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

#: The fake's tokenizer: 2.5 characters a token, where KinBot estimates four.
DENSE = 2.5
SUMMARY_MARKER = "You maintain the working memory"


def system_of(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    return str((body.get("messages") or [{}])[0].get("content"))


def turns(fake: FakeOpenAI) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.endpoint == "chat" and "You are Chef" in system_of(r)]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.responder = lambda request: Reply(
            text="SUMMARY: meals." if SUMMARY_MARKER in system_of(request) else "Noted."
        )
        server.window = 2048
        server.chars_per_token = DENSE
        server.usage_from_prompt = True
        server.local.tokenize = DENSE
        yield server


@pytest.fixture
async def server(data_dir: Path, fake: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """KinBot, told the window (2,048 tokens), on the fake as an OpenAI-compatible server."""
    settings = load_settings(
        data_dir=data_dir, llm_max_retries=0, compacting_context_windows={"gpt-4o": 2048}
    )
    async with running_server(Platform(settings)) as running:
        await set_up_admin(running.client)
        added = await running.client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "llama.cpp",
                "config": {"base_url": f"{fake.base_url}/v1"},
            },
        )
        assert added.status_code == 201, added.text
        yield running


async def chat(server: RunningServer, kin_id: str, *texts: str) -> list[str]:
    """Send each of ``texts`` in turn; the status each turn ended with."""
    statuses = []
    async with sse_stream(server.client) as stream:
        for text in texts:
            message_id = await tell(server.client, kin_id, text)
            ended = await stream.wait_for(turn_ended(message_id))
            statuses.append(str(ended.data["status"]))
    return statuses


async def test_the_first_turn_is_budgeted_with_the_servers_count(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client, name="Chef")
    statuses = await chat(server, kin_id, "Dinner idea? Soup.", "And lunch?", "Dessert?")
    assert statuses == ["done"] * 3
    sent = turns(fake)
    assert len(sent) == 3  # none refused
    assert all(fake.needed_tokens(request.body, DENSE) <= 2048 for request in sent)
    (counted,) = fake.requests_to("tokenize")  # once for the model, not once a turn
    assert "You are Chef" in counted.body["content"] and counted.body["model"] == "gpt-4o"
    # The prompt the estimate fitted (what was counted) would not have fitted the window:
    # the count shed it before it was sent.
    content = counted.body["content"]
    assert len(content) / 4 <= 2048 - prompt_budget.reply_room(2048) < 2048 < len(content) / DENSE
    budget = await prompt_budget.budget_for(server.platform, "gpt-4o")
    assert 1.5 < budget.ratio < 1.8


async def test_a_server_that_cannot_count_leaves_the_turn_as_it_was(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    fake.enqueue(Reply(status=500), endpoint="tokenize")
    kin_id = await make_kin(server.client, name="Chef")
    assert await chat(server, kin_id, "Dinner idea? Soup.", "And lunch?") == ["done", "done"]
    assert len(fake.requests_to("tokenize")) == 1  # not asked again on the next turn
    sent = turns(fake)
    # The first prompt, estimated to fit, was refused and answered on its retry, as before;
    # its answer taught the ratio the second turn fitted with.
    assert fake.needed_tokens(sent[0].body, DENSE) > 2048 and len(sent) == 2 + 1
    answers = [m for m in await session(server.client, kin_id) if m["role"] == "assistant"]
    assert [m["content"] for m in answers] == ["Noted.", "Noted."]


def test_the_counted_text_holds_the_system_prompt_tools_and_messages() -> None:
    context = ChatContext(
        model="m",
        system_prompt=["You are Chef.", "Be brief."],
        messages=[
            {"role": "user", "content": "Soup?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "recall"}]},
        ],
        tools=[{"name": "recall", "description": "Search memories.", "parameters": {}}],
    )
    text = prompt_text(context)
    for part in ("You are Chef.\n\nBe brief.", '"Search memories."', "Soup?", '"c1"'):
        assert part in text


async def test_only_a_server_that_counts_is_taken_at_its_word(fake: FakeOpenAI) -> None:
    metadata = ServerMetadata(f"{fake.base_url}/v1", None, "The server")
    assert await metadata.count_tokens("gpt-4o", "x" * 100) == 40
    fake.local.tokenize = None  # not llama.cpp: 404
    assert await metadata.count_tokens("gpt-4o", "x" * 100) is None

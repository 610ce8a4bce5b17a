"""Budgets that count tokens as the model does: what the provider reports of each answered
call (its prompt tokens against the estimate of what was sent) teaches the ratio of real to
estimated tokens per provider and model, conservatively, and the next calls are budgeted
with it: against a fake server whose tokenizer makes more tokens of a prompt than KinBot's
estimate, only the first turn is refused for length; the others fit at once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from hookspecs.types import ChatContext
from kinbot_core.compacting.tokens import request_tokens
from kinbot_core.config import load_settings
from kinbot_core.kins import prompt_budget
from kinbot_core.platform import Platform
from kinbot_core.providers import ChatMessage, ChatRequest, ToolCallRequest, ToolSpec
from kinbot_core.providers.token_ratios import MARGIN, MAX_RATIO, MIN_ESTIMATE, TokenRatios
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

#: The fake's tokenizer: 2.5 characters a token, where KinBot estimates four.
DENSE = 2.5


def request_of(words: int) -> ChatRequest:
    return ChatRequest(
        model="m",
        system="You are Chef. " * words,
        messages=(
            ChatMessage("user", "What for dinner?"),
            ChatMessage("assistant", "", tool_calls=(ToolCallRequest("c1", "recall", {}),)),
            ChatMessage("tool", "Nico likes leeks.", tool_call_id="c1"),
        ),
        tools=(ToolSpec("recall", "Search memories.", {"type": "object", "properties": {}}),),
    )


def test_a_request_is_estimated_as_the_budget_estimates_its_context() -> None:
    request = request_of(100)
    context = ChatContext(
        model="m",
        system_prompt=[request.system],
        messages=[
            {"role": "user", "content": "What for dinner?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "recall", "arguments": {}}],
            },
            {"role": "tool", "content": "Nico likes leeks.", "tool_call_id": "c1"},
        ],
        tools=[
            {
                "name": "recall",
                "description": "Search memories.",
                "parameters": {"type": "object", "properties": {}},
            }
        ],
    )
    fitted = prompt_budget.fit(
        context, [], prompt_budget.PromptBudget(prompt_budget.WindowInForce(100_000, "admin"), 0)
    )
    assert fitted.shed == () and request_tokens(request) == fitted.tokens


def test_the_ratio_is_the_largest_seen_with_a_margin_never_under_one() -> None:
    ratios = TokenRatios()
    request = request_of(100)
    estimated = request_tokens(request)
    assert estimated >= MIN_ESTIMATE
    assert ratios.ratio("p", "m") == 1.0  # nothing learned: one for one
    ratios.observe("p", "m", request, estimated // 2)  # the estimate was generous
    assert ratios.ratio("p", "m") == 1.0
    ratios.observe("p", "m", request, int(estimated * 1.5))
    ratios.observe("p", "m", request, int(estimated * 1.2))
    assert ratios.ratio("p", "m") == pytest.approx(int(estimated * 1.5) / estimated * MARGIN)
    assert ratios.ratio("p", "other") == ratios.ratio("q", "m") == 1.0  # per provider and model
    ratios.observe("p", "m", request, estimated * 100)  # an odd count is capped
    assert ratios.ratio("p", "m") == MAX_RATIO
    ratios.forget("p")
    assert ratios.ratio("p", "m") == 1.0


def test_a_small_request_teaches_nothing() -> None:
    """A short call (a title, a summary's check) is mostly the chat template's own tokens."""
    ratios = TokenRatios()
    small = ChatRequest(model="m", messages=(ChatMessage("user", "Hi"),))
    assert request_tokens(small) < MIN_ESTIMATE
    ratios.observe("p", "m", small, 50)
    assert ratios.ratio("p", "m") == 1.0


# -- a turn after another, against a server that counts more tokens --------------------------

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
        yield server


@pytest.fixture
async def server(data_dir: Path, fake: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """KinBot knows the window (2,048 tokens) but not the model's tokenizer."""
    settings = load_settings(
        data_dir=data_dir, llm_max_retries=0, compacting_context_windows={"gpt-4o": 2048}
    )
    async with running_server(Platform(settings)) as running:
        await set_up_admin(running.client)
        await add_openai_provider(running.client, fake)
        yield running


async def test_the_ratio_learned_from_the_first_answer_fits_the_next_turns(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client, name="Chef")
    async with sse_stream(server.client) as stream:
        for number in range(1, 5):
            message_id = await tell(server.client, kin_id, f"Dinner idea {number}? Soup.")
            ended = await stream.wait_for(turn_ended(message_id))
            assert ended.data["status"] == "done"
    messages = await session(server.client, kin_id)
    assert not [m for m in messages if m["is_error"]]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["Noted."] * 4
    sent = turns(fake)
    # The first turn's prompt, estimated to fit, was refused; its retry answered, and its
    # usage taught the ratio: every later turn fitted at once.
    assert fake.needed_tokens(sent[0].body, DENSE) > 2048
    assert len(sent) == 4 + 1
    assert all(fake.needed_tokens(r.body, DENSE) <= 2048 for r in sent[1:])

    budget = await prompt_budget.budget_for(server.platform, "gpt-4o")
    assert 1.4 < budget.ratio < MAX_RATIO
    # Compacting compares its estimates of the session with the real figures so scaled.
    state = (await server.client.get(f"/api/kins/{kin_id}/compacting")).json()
    assert state["context_window"] == 2048
    learned, _room = prompt_budget.session_limits(budget, 0, 0.75)
    unlearned, _room = prompt_budget.session_limits(replace(budget, ratio=1.0), 0, 0.75)
    assert 0 < state["threshold_tokens"] <= learned < unlearned * 0.75

    # Saving the provider (another server behind it, maybe) forgets what it taught.
    (provider,) = await server.platform.providers.configured("ai")
    server.platform.providers.windows.forget(provider.id)
    assert (await prompt_budget.budget_for(server.platform, "gpt-4o")).ratio == 1.0

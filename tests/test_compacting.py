"""Compacting over real HTTP and SSE, with a fake OpenAI server as the model: the trigger,
originals kept, the summary in the next call, rollback, purge, redaction, failures, and
tool-call pairs kept together."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest

from kinbot_core import hookimpl
from kinbot_core.compacting.selection import Candidate, choose_cut
from kinbot_core.config import load_settings
from kinbot_core.db.models import MessageRecord
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent, SseReader, sse_stream

SUMMARY_MARKER = "You maintain the working memory"
FILLER = "We talked about the weekly menu, the shopping list and who cooks on which day. " * 4


class Clock:
    """A tool the Kin can call."""

    name = "get_time"
    description = "The current time in a city."
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        return {"city": arguments["city"], "time": "09:30"}


class ClockPlugin:
    @hookimpl
    def register_tools(self, register: Callable[[Any], None]) -> None:
        register(Clock())


class CompactingObserver:
    """Records the compacting hooks' calls."""

    def __init__(self) -> None:
        self.before: list[list[str]] = []
        self.after: list[tuple[bool, Any]] = []

    @hookimpl
    def before_compacting(self, kin: Any, compacting: Any) -> None:
        self.before.append(list(compacting.message_ids))

    @hookimpl
    def after_compacting(self, kin: Any, compacting: Any, outcome: Any) -> None:
        self.after.append((outcome.ok, outcome.result))


def is_summary(request: RecordedRequest) -> bool:
    return request.endpoint == "chat" and SUMMARY_MARKER in system_of(request)


def is_turn(request: RecordedRequest) -> bool:
    return request.endpoint == "chat" and "You are Chef" in system_of(request)


def system_of(request: RecordedRequest) -> str:
    messages = (request.body or {}).get("messages") or [{}]
    first = messages[0]
    return str(first.get("content") or "") if first.get("role") == "system" else ""


def user_text(request: RecordedRequest) -> str:
    return "\n".join(
        str(m.get("content") or "") for m in request.body["messages"] if m["role"] == "user"
    )


class Model:
    """The fake model's behaviour: numbered summaries, tool calls when asked the time,
    a long answer otherwise; summaries fail while ``failing`` is set."""

    def __init__(self) -> None:
        self._summaries = itertools.count(1)
        self._lock = threading.Lock()
        self.failing = False
        self.summary_delay = 0.0

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if is_summary(request):
            if self.failing:
                return Reply(status=500, error_message="the summariser is down")
            with self._lock:
                number = next(self._summaries)
            return Reply(
                text=f"SUMMARY {number}: the family planned meals with Chef.",
                delay=self.summary_delay,
            )
        if is_turn(request):
            last = request.body["messages"][-1]
            if last["role"] == "user" and "what time" in str(last["content"]).lower():
                return Reply(tool_calls=[("get_time", {"city": "Rome"})])
            return Reply(text="Noted. " + FILLER)
        return None


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def model(fake_llm: FakeOpenAI) -> Model:
    behaviour = Model()
    fake_llm.responder = behaviour
    return behaviour


@pytest.fixture
def observer() -> CompactingObserver:
    return CompactingObserver()


def serve(
    data_dir: Any, fake_llm: FakeOpenAI, observer: CompactingObserver, **overrides: Any
) -> Any:
    settings = load_settings(
        data_dir=data_dir,
        llm_max_retries=0,
        llm_timeout_seconds=5,
        compacting_keep_recent_messages=2,
        compacting_summary_max_tokens=200,
        **overrides,
    )
    platform = Platform(settings)
    platform.plugins.register(ClockPlugin(), "clock")
    platform.plugins.register(observer, "compacting_observer")

    async def start() -> AsyncIterator[RunningServer]:
        async with running_server(platform) as server:
            await set_up_admin(server.client)
            await add_openai_provider(server.client, fake_llm)
            yield server

    return start()


@pytest.fixture
async def server(
    data_dir: Any, fake_llm: FakeOpenAI, model: Model, observer: CompactingObserver
) -> AsyncIterator[RunningServer]:
    """Compacting only when asked (gpt-4o's window is far larger than these sessions)."""
    async for running in serve(data_dir, fake_llm, observer):
        yield running


@pytest.fixture
async def small_window_server(
    data_dir: Any, fake_llm: FakeOpenAI, model: Model, observer: CompactingObserver
) -> AsyncIterator[RunningServer]:
    """Compacting past 1,000 tokens: 2.5 % of a 40,000-token window (large enough for the
    whole prompt: a smaller one sheds parts of it, see tests/test_prompt_budget.py)."""
    async for running in serve(
        data_dir,
        fake_llm,
        observer,
        compacting_context_windows={"gpt-4o": 40_000},
        compacting_threshold_share=0.025,
    ):
        yield running


async def make_kin(client: httpx.AsyncClient) -> str:
    response = await client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


def turn_done(message_id: int) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "message.status"
        and e.data.get("id") == message_id
        and e.data.get("status") in {"done", "failed"}
    )


async def exchange(server: RunningServer, stream: SseReader, kin_id: str, text: str) -> int:
    """Send ``text`` and wait for the end of its turn; the message id."""
    response = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message_id: int = response.json()["message"]["id"]
    await stream.wait_for(turn_done(message_id))
    return message_id


def said(number: int) -> str:
    return f"Message number {number}. {FILLER}{FILLER}"


async def state_of(server: RunningServer, kin_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/kins/{kin_id}/compacting")
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


async def compact(server: RunningServer, kin_id: str) -> dict[str, Any]:
    response = await server.client.post(f"/api/kins/{kin_id}/compacting")
    assert response.status_code == 201, response.text
    snapshot: dict[str, Any] = response.json()["snapshot"]
    return snapshot


def summaries(fake: FakeOpenAI) -> list[RecordedRequest]:
    return [r for r in fake.requests if is_summary(r)]


def last_turn(fake: FakeOpenAI) -> RecordedRequest:
    return [r for r in fake.requests if is_turn(r)][-1]


async def test_a_long_session_compacts_keeps_its_originals_and_feeds_the_next_call(
    small_window_server: RunningServer, fake_llm: FakeOpenAI, observer: CompactingObserver
) -> None:
    server = small_window_server
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for number in range(1, 6):
            await exchange(server, stream, kin_id, said(number))
        done = await stream.wait_for(
            lambda e: e.type == "kin.compacting" and e.data["status"] == "done"
        )
    assert done.data["kin_id"] == kin_id
    state = await state_of(server, kin_id)
    active = state["active"]
    assert active["summary"].startswith("SUMMARY 1") and active["kind"] == "summary"
    assert active["messages_folded"] >= 2 and active["tokens_before"] > 1000
    assert state["threshold_tokens"] == 1000 and state["context_window"] == 40_000
    assert state["context_tokens"] < active["tokens_before"]
    assert [s["id"] for s in state["snapshots"]] == [active["id"]]

    # The originals stay, untouched.
    history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    assert len(history) == 10
    assert [m["content"] for m in history if m["role"] == "user"] == [said(n) for n in range(1, 6)]

    # The summary call saw the oldest exchanges, never the recent ones.
    (request,) = summaries(fake_llm)
    folded = user_text(request)
    assert "Message number 1." in folded and "Message number 5." not in folded
    assert "Previous summary:\n(none yet)" in folded
    assert observer.before == [[str(m["id"]) for m in history[: active["messages_folded"]]]]
    assert observer.after == [(True, active["summary"])]
    assert history[active["messages_folded"] - 1]["id"] == active["through_message_id"]

    # The next call has the summary in its system prompt and only the messages after the cut.
    async with sse_stream(server.client) as stream:
        await exchange(server, stream, kin_id, "What did we decide?")
    sent = last_turn(fake_llm).body["messages"]
    assert "## Summary of earlier exchanges\nSUMMARY 1" in sent[0]["content"]
    contents = "\n".join(str(m.get("content")) for m in sent[1:])
    assert "Message number 1." not in contents and "Message number 5." in contents
    assert sent[1]["role"] == "user" and sent[-1]["content"] == "[Nico] What did we decide?"


async def test_rollback_and_purge_through_the_api(
    data_dir: Any, fake_llm: FakeOpenAI, model: Model, observer: CompactingObserver
) -> None:
    async for server in serve(data_dir, fake_llm, observer, compacting_snapshots_kept=3):
        kin_id = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            for number in range(1, 4):
                await exchange(server, stream, kin_id, said(number))
            first = await compact(server, kin_id)
            for number in range(4, 6):
                await exchange(server, stream, kin_id, said(number))
            second = await compact(server, kin_id)
            assert first["summary"].startswith("SUMMARY 1")
            assert second["summary"].startswith("SUMMARY 2")
            assert "SUMMARY 1" in user_text(summaries(fake_llm)[-1])  # folded into the next
            state = await state_of(server, kin_id)
            assert [s["id"] for s in state["snapshots"]] == [second["id"], first["id"]]
            assert state["active"]["id"] == second["id"]

            rolled = await server.client.post(
                f"/api/kins/{kin_id}/compacting/rollback", json={"snapshot_id": first["id"]}
            )
            assert rolled.status_code == 200, rolled.text
            assert rolled.json()["snapshot"]["active"] is True
            assert (await state_of(server, kin_id))["active"]["id"] == first["id"]
            await exchange(server, stream, kin_id, "Back to the first summary?")
            sent = last_turn(fake_llm).body["messages"]
            assert "SUMMARY 1" in sent[0]["content"] and "SUMMARY 2" not in sent[0]["content"]
            assert "Message number 3." in user_text(last_turn(fake_llm))
            assert "Message number 2." not in user_text(last_turn(fake_llm))

            purged = await server.client.post(f"/api/kins/{kin_id}/compacting/purge")
            assert purged.status_code == 201, purged.text
            blank = purged.json()["snapshot"]
            assert blank["kind"] == "purge" and blank["summary"] == ""
            assert blank["through_position"] == first["through_position"]
            await exchange(server, stream, kin_id, "Do you remember?")
            sent = last_turn(fake_llm).body["messages"]
            assert "Summary of earlier exchanges" not in sent[0]["content"]
            assert "Message number 2." not in user_text(last_turn(fake_llm))
            history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()
            assert len(history["messages"]) == 14  # nothing deleted

            # A purge is a snapshot too: rolling back undoes it. Only 3 snapshots are kept.
            again = await server.client.post(
                f"/api/kins/{kin_id}/compacting/rollback", json={"snapshot_id": second["id"]}
            )
            assert again.status_code == 200, again.text
            third = await compact(server, kin_id)
            state = await state_of(server, kin_id)
            assert [s["id"] for s in state["snapshots"]] == [third["id"], blank["id"], second["id"]]

        # Errors are clear 4xx.
        base = f"/api/kins/{kin_id}/compacting"
        missing = await server.client.post(f"{base}/rollback", json={"snapshot_id": first["id"]})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
        invalid = await server.client.post(f"{base}/rollback", json={"snapshot_id": "x"})
        assert invalid.status_code == 400
        other = await make_kin(server.client)
        foreign = await server.client.post(
            f"/api/kins/{other}/compacting/rollback", json={"snapshot_id": third["id"]}
        )
        assert foreign.status_code == 404
        nothing = await server.client.post(f"/api/kins/{other}/compacting")
        assert nothing.status_code == 409
        assert nothing.json()["error"]["code"] == "nothing_to_compact"
        assert (await server.client.get("/api/kins/nope/compacting")).status_code == 404
        async with server.new_client() as stranger:
            assert (await stranger.get(base)).status_code == 401
            assert (await stranger.post(f"{base}/purge")).status_code == 401


async def test_a_message_flagged_for_redaction_never_reaches_a_summary(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        await exchange(server, stream, kin_id, said(1))
        secret_id = await exchange(server, stream, kin_id, "My GitHub token is ghp_s3cr3tT0k3n")
        for number in range(3, 6):
            await exchange(server, stream, kin_id, said(number))

        def flag(pending: bool, content: str | None = None) -> None:
            values: dict[Any, Any] = {MessageRecord.redaction_pending: pending}
            if content is not None:
                values[MessageRecord.content] = content
            MessageRecord.update(values).where(MessageRecord.id == secret_id).execute()

        await server.platform.db.write(flag, True)
        first = await compact(server, kin_id)
        # The cut stopped before the flagged message: only the first exchange is folded.
        assert first["messages_folded"] == 2
        await exchange(server, stream, kin_id, "Anything else?")
        assert "ghp_s3cr3tT0k3n" in user_text(last_turn(fake_llm))  # still verbatim

        # Once redacted, it is compacted like any other message.
        await server.platform.db.write(flag, False, "My GitHub token is [SECRET: GITHUB_TOKEN]")
        second = await compact(server, kin_id)
        assert second["messages_folded"] > 2
    texts = [user_text(r) for r in summaries(fake_llm)]
    assert len(texts) == 2 and "[SECRET: GITHUB_TOKEN]" in texts[1]
    assert not any("ghp_" in text for text in texts)


async def test_a_failed_summary_call_leaves_the_previous_state_intact(
    server: RunningServer, fake_llm: FakeOpenAI, model: Model, observer: CompactingObserver
) -> None:
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for number in range(1, 4):
            await exchange(server, stream, kin_id, said(number))
        first = await compact(server, kin_id)
        for number in range(4, 6):
            await exchange(server, stream, kin_id, said(number))
        before = await state_of(server, kin_id)
        model.failing = True
        failed = await server.client.post(f"/api/kins/{kin_id}/compacting")
        assert failed.status_code == 502, failed.text
        assert failed.json()["error"]["code"] == "summary_failed"
        assert API_KEY not in failed.text
        await stream.wait_for(lambda e: e.type == "kin.compacting" and e.data["status"] == "failed")
        after = await state_of(server, kin_id)
        assert after["active"] == before["active"] and after["active"]["id"] == first["id"]
        assert after["snapshots"] == before["snapshots"]
        assert observer.after[-1][0] is False
        await exchange(server, stream, kin_id, "Still there?")
    sent = last_turn(fake_llm).body["messages"]
    assert "SUMMARY 1" in sent[0]["content"]
    assert "Message number 3." in user_text(last_turn(fake_llm))
    history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    assert len(history) == 12


async def test_turns_go_on_while_a_summary_is_being_written(
    server: RunningServer, fake_llm: FakeOpenAI, model: Model
) -> None:
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for number in range(1, 4):
            await exchange(server, stream, kin_id, said(number))
        model.summary_delay = 60.0  # held until the 5 s LLM timeout ends the call
        compacting = asyncio.create_task(server.client.post(f"/api/kins/{kin_id}/compacting"))
        await stream.wait_for(
            lambda e: e.type == "kin.compacting" and e.data["status"] == "running"
        )
        await exchange(server, stream, kin_id, "Dinner at eight?")
        ended = [e for e in stream.of_type("kin.compacting") if e.data["status"] != "running"]
        assert ended == [] and not compacting.done()
        assert (await state_of(server, kin_id))["running"] is True
        response = await compacting
    assert response.status_code == 502
    assert (await state_of(server, kin_id))["active"] is None
    assert "Message number 1." in user_text(last_turn(fake_llm))


async def test_a_tool_call_and_its_result_are_never_split(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for number in range(1, 4):
            await exchange(server, stream, kin_id, f"What time is it in Rome? ({number})")
        history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
        # user, assistant (call), tool, assistant: with 2 kept verbatim, a plain cut would
        # leave the last call's result alone after the cut.
        assert [m["role"] for m in history[-4:]] == ["user", "assistant", "tool", "assistant"]
        snapshot = await compact(server, kin_id)
        assert snapshot["through_message_id"] == history[7]["id"]
        await exchange(server, stream, kin_id, "Thanks!")
    (request,) = summaries(fake_llm)
    folded = user_text(request)
    assert folded.count("calls the tool get_time") == 2
    assert folded.count("[tool get_time result]") == 2
    sent = last_turn(fake_llm).body["messages"][1:]
    assert sent[0]["role"] == "user" and "(3)" in sent[0]["content"]
    calls = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert calls == results and len(calls) == 1
    assert not any("Interrupted" in str(m.get("content")) for m in sent)


def candidate(index: int, role: str, **fields: Any) -> Candidate:
    return Candidate(id=index, position=index, role=role, tokens=fields.pop("tokens", 10),
                     **fields)  # fmt: skip


def test_the_cut_respects_recent_messages_redaction_pairs_and_budget() -> None:
    call = {"id": "c1", "name": "get_time", "arguments": {}}
    session = [
        candidate(0, "user"),
        candidate(1, "assistant"),
        candidate(2, "user"),
        candidate(3, "assistant", tool_calls=[call]),
        candidate(4, "user"),  # a result arriving late, after the next user message
        candidate(5, "tool", tool_call_id="c1"),
        candidate(6, "assistant"),
        candidate(7, "user"),
        candidate(8, "assistant"),
    ]
    # With 3 kept, a cut before message 4 would leave the result of call c1 verbatim.
    assert choose_cut(session, keep_recent=3, budget_tokens=1000) == 2
    assert choose_cut(session, keep_recent=2, budget_tokens=1000) == 7
    assert choose_cut(session[:2] + session[7:], keep_recent=1, budget_tokens=1000) == 2
    flagged = [*session[:2], candidate(2, "user", redaction_pending=True), *session[3:]]
    assert choose_cut(flagged, keep_recent=1, budget_tokens=1000) == 2  # stops before it
    flagged = [session[0], candidate(1, "assistant", redaction_pending=True), *session[2:]]
    assert choose_cut(flagged, keep_recent=1, budget_tokens=1000) == 0
    plain = [candidate(i, "user" if i % 2 == 0 else "assistant") for i in range(10)]
    assert choose_cut(plain, keep_recent=2, budget_tokens=1000) == 8
    assert choose_cut(plain, keep_recent=2, budget_tokens=45) == 4
    assert choose_cut(plain, keep_recent=2, budget_tokens=5) == 2  # progress even over budget
    assert choose_cut(plain, keep_recent=0, budget_tokens=1000) == 8
    assert choose_cut(plain[:2], keep_recent=2, budget_tokens=1000) == 0


async def test_a_session_with_many_short_messages_compacts_too(
    data_dir: Any, fake_llm: FakeOpenAI, model: Model, observer: CompactingObserver
) -> None:
    """Far under the token threshold, more messages than a turn sends still compact, so
    that nothing drops out of the context without a summary."""
    async for server in serve(data_dir, fake_llm, observer, compacting_max_messages=10):
        kin_id = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            for number in range(1, 7):
                await exchange(server, stream, kin_id, f"short {number}")
            await stream.wait_for(
                lambda e: e.type == "kin.compacting" and e.data["status"] == "done"
            )
        state = await state_of(server, kin_id)
        assert state["context_tokens"] < 1000 < state["threshold_tokens"]
        assert state["active"]["messages_folded"] >= 2
        assert state["messages_after_cut"] <= 10


async def test_the_size_check_in_sql_counts_as_the_python_estimate(
    server: RunningServer,
) -> None:
    from kinbot_core.compacting.tokens import message_tokens
    from kinbot_core.kins.session_rows import size_after

    kin_id = await make_kin(server.client)
    kins = server.platform.kins
    samples = ["", "a", "abcd", "abcde", "élan vital, ça va ? 🙂" * 7]
    for text in samples:
        await kins.add_message(kin_id, role="assistant", source="kin", content=text)
    await kins.add_message(
        kin_id,
        role="assistant",
        source="kin",
        content="calling",
        tool_calls=[{"id": "c1", "name": "get_time", "arguments": {"city": "Rome"}}],
    )
    rows = await server.platform.db.read(
        lambda: list(MessageRecord.select().where(MessageRecord.kin == kin_id))
    )
    expected = sum(message_tokens(row.content, row.tool_calls) for row in rows)
    db = server.platform.db
    assert await db.read(size_after, db, kin_id, 0) == (len(rows), expected)
    assert await db.read(size_after, db, kin_id, 5) == (
        1,
        message_tokens(rows[-1].content, rows[-1].tool_calls),
    )


async def test_the_providers_own_token_count_triggers_compacting(
    small_window_server: RunningServer, fake_llm: FakeOpenAI, observer: CompactingObserver
) -> None:
    """Short messages the estimate puts far under the threshold, but the provider counts a
    larger context than the stable prompt (system prompt and tools) and the messages are
    estimated to be: its count, less the stable prompt, wins."""
    server = small_window_server
    fake_llm.responder = lambda request: (
        Reply(text="SUMMARY 1: short talk.")
        if is_summary(request)
        else Reply(text="Noted.", usage=(20_000, 10))
    )
    kin_id = await make_kin(server.client)
    async with sse_stream(server.client) as stream:
        for number in range(1, 4):
            await exchange(server, stream, kin_id, f"short {number}")
        await stream.wait_for(lambda e: e.type == "kin.compacting" and e.data["status"] == "done")
    state = await state_of(server, kin_id)
    # Its count also taught that the model makes more tokens of a prompt: a lower threshold.
    assert state["active"]["tokens_before"] > 5000 > 1000 >= state["threshold_tokens"]
    assert state["active"]["summary"] == "SUMMARY 1: short talk."

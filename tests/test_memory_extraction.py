"""Long-term memory extraction over real HTTP, with the local embedding model and the fake
OpenAI-compatible server as the Kin's and the extraction model: a fact told in a turn is
extracted, told again it is dropped as a duplicate, a close one is merged, the memory is
injected when a later message needs it; failures keep the watermark; the per-Kin model is
used; compacting extracts what it folds; messages awaiting redaction are held back."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from hookspecs.types import CompactingContext, KinRef
from kinbot_core.config import load_settings
from kinbot_core.db.models import MessageRecord
from kinbot_core.platform import Platform
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.memory_extraction import extraction_of
from kinbot_plugins.memory_extraction.prompts import (
    MalformedReply,
    parse_candidates,
    parse_decision,
)
from kinbot_plugins.memory_extraction.records import ExtractionState, MemoryDecision
from kinbot_plugins.tools.memory_tools import TOOLS
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.provider_setups import add_local_memory_providers
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent, SseReader, sse_stream

MEMORIZE = next(tool for tool in TOOLS if tool.name == "memorize")


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def serve(data_dir: Any, fake_llm: FakeOpenAI, **settings: Any) -> AsyncIterator[Any]:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0, **settings))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_local_memory_providers(server.client, fake_llm)
        yield server


@pytest.fixture
async def server(data_dir: Any, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """Extraction right after each turn."""
    async for running in serve(data_dir, fake_llm, memory_extraction_delay_seconds=0):
        yield running


@pytest.fixture
async def quiet_server(data_dir: Any, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """No extraction after turns within the test: only what the test starts."""
    async for running in serve(data_dir, fake_llm, memory_extraction_delay_seconds=3600):
        yield running


async def new_kin(server: RunningServer) -> str:
    response = await server.client.post("/api/kins", json={"name": "Chef", "model": "Chat/gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


def extracted(*memories: tuple[str, str, str, int]) -> Reply:
    """The extraction model's reply listing ``(content, category, subject, message id)``."""
    return Reply(
        text=json.dumps(
            {
                "memories": [
                    {"content": c, "category": k, "subject": s, "source_message_id": m}
                    for c, k, s, m in memories
                ]
            }
        )
    )


async def turn(
    server: RunningServer,
    fake: FakeOpenAI,
    stream: SseReader,
    kin_id: str,
    text: str,
    extraction: Reply,
) -> dict[str, Any]:
    """Send ``text``; the Kin answers, then the extraction model answers ``extraction``.
    Returns the message sent and the ``memory.extraction`` item of the run after it."""
    seen = len(stream.of_type("memory.extraction"))
    fake.enqueue(Reply(text="Noted."), extraction)
    response = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code in (200, 201, 202), response.text
    sent: dict[str, Any] = response.json()["message"]
    await stream.wait_for(
        lambda e: (
            e.type == "memory.extraction"
            and e.data["kin_id"] == kin_id
            and len(stream.of_type("memory.extraction")) > seen
        )
    )
    run = stream.of_type("memory.extraction")[seen].data
    return {"message": sent, "run": run}


def finished(kin_id: str, message_id: int) -> Callable[[SseEvent], bool]:
    """Matches the live item saying the turn of ``message_id`` is done."""
    done = {"kin_id": kin_id, "id": message_id, "status": "done"}
    return lambda event: event.type == "message.status" and event.data == done


def is_extraction(request: RecordedRequest) -> bool:
    return "You extract durable long-term memories" in request.body["messages"][0]["content"]


async def memories(server: RunningServer, kin_id: str) -> list[dict[str, Any]]:
    response = await server.client.get(f"/api/kins/{kin_id}/memories")
    assert response.status_code == 200, response.text
    listed: list[dict[str, Any]] = response.json()["memories"]
    return listed


async def watermark(server: RunningServer, kin_id: str) -> ExtractionState | None:
    state: ExtractionState | None = await server.platform.db.read(
        lambda: ExtractionState.get_or_none(ExtractionState.kin == kin_id)
    )
    return state


async def position_of(server: RunningServer, message_id: int) -> int | None:
    position: int | None = await server.platform.db.read(
        lambda: MessageRecord.get_by_id(message_id).position
    )
    return position


async def test_a_fact_is_extracted_deduplicated_and_injected_later(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    fact = ("Marie is allergic to peanuts", "fact", "Marie")
    async with sse_stream(server.client) as stream:
        first = await turn(
            server, fake_llm, stream, kin_id, "Remember: Marie must never eat peanuts.",
            extracted((*fact, 0)),  # an unknown message id: the batch's last message is used
        )  # fmt: skip
        assert first["run"]["status"] == "done" and first["run"]["added"] == 1
        (memory,) = await memories(server, kin_id)
        assert (memory["content"], memory["category"], memory["subject"]) == fact
        reply_id = memory["source_message_id"]
        assert reply_id > first["message"]["id"]  # the Kin's reply closes the batch

        request = [r for r in fake_llm.requests_to("chat") if is_extraction(r)][-1]
        shown = request.body["messages"][-1]["content"]
        assert f"[message {first['message']['id']}] Nico (user): Remember: Marie" in shown
        assert f"[message {reply_id}] Chef (assistant): Noted." in shown

        second = await turn(
            server, fake_llm, stream, kin_id, "Don't forget, no peanuts ever for Marie!",
            extracted((*fact, 0)),
        )  # fmt: skip
        assert (second["run"]["added"], second["run"]["duplicates"]) == (0, 1)
        assert len(await memories(server, kin_id)) == 1
        duplicate = stream.of_type("memory.duplicate")[-1].data
        assert duplicate["memory"]["id"] == memory["id"] and duplicate["similarity"] > 0.97
        # Only the new messages went to the extraction model.
        request = [r for r in fake_llm.requests_to("chat") if is_extraction(r)][-1]
        assert "Remember: Marie" not in request.body["messages"][-1]["content"]

        # The session words it differently, so the memory is not already there: it is injected.
        await turn(server, fake_llm, stream, kin_id, "What snacks can I give Marie?", extracted())
    asked = next(
        r
        for r in fake_llm.requests_to("chat")
        if not is_extraction(r) and "What snacks" in r.body["messages"][-1]["content"]
    )
    system = asked.body["messages"][0]["content"]
    section = system.split("## Relevant memories\n", 1)[1].split("\n## ", 1)[0]
    assert "- Marie is allergic to peanuts (fact, about Marie)" in section.splitlines()

    decisions = await server.platform.db.read(
        lambda: [
            (d.action, d.memory_id) for d in MemoryDecision.select().order_by(MemoryDecision.id)
        ]
    )
    assert decisions == [("added", memory["id"]), ("duplicate", memory["id"])]


async def test_a_close_memory_that_adds_information_is_merged(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    context = ToolContext(server.platform, kin_id, "Chef", Speaker("user", None, "Nico"))
    existing = await MEMORIZE.run(
        context,
        {"content": "Marie is allergic to peanuts", "category": "fact", "subject": "Marie"},
    )
    memory_id = existing["memory"]["id"]
    merged = "Marie is allergic to peanuts and cashews"
    async with sse_stream(server.client) as stream:
        fake_llm.enqueue(
            Reply(text="Noted."),
            extracted(("Marie is also allergic to cashews", "fact", "Marie", 0)),
            Reply(text=json.dumps({"action": "merge", "memory_id": memory_id, "content": merged})),
        )
        await server.client.post(
            f"/api/kins/{kin_id}/messages", json={"content": "Marie can't eat cashews either."}
        )
        run = await stream.wait_for(lambda e: e.type == "memory.extraction")
    assert (run.data["merged"], run.data["added"]) == (1, 0)
    (memory,) = await memories(server, kin_id)
    assert (memory["id"], memory["content"]) == (memory_id, merged)
    (decision,) = [
        r
        for r in fake_llm.requests_to("chat")
        if "You maintain the long-term memory" in r.body["messages"][0]["content"]
    ]
    asked = decision.body["messages"][-1]["content"]
    assert "New memory (about Marie): Marie is also allergic to cashews" in asked
    assert f"- id {memory_id}: Marie is allergic to peanuts" in asked
    assert stream.of_type("memory.merged")[0].data["memory"]["content"] == merged


async def test_a_malformed_reply_or_a_provider_error_loses_nothing(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    async with sse_stream(server.client) as stream:
        broken = await turn(
            server, fake_llm, stream, kin_id, "Nicolas is vegetarian.",
            Reply(text='Here you go: {"memories": [{"content": "Nicolas is veg'),
        )  # fmt: skip
        assert broken["run"]["status"] == "failed"
        assert "unreadable" in broken["run"]["error"]
        state = await watermark(server, kin_id)
        assert state is not None and (state.last_position, state.failures) == (0, 1)

        failed = await turn(
            server, fake_llm, stream, kin_id, "The grocery budget is 600 euros a month.",
            Reply(status=500, error_message="The server had an error"),
        )  # fmt: skip
        assert failed["run"]["status"] == "failed"
        assert "extraction model failed" in failed["run"]["error"]
        state = await watermark(server, kin_id)
        assert state is not None and (state.last_position, state.failures) == (0, 2)
        assert await memories(server, kin_id) == []

        last = await turn(
            server, fake_llm, stream, kin_id, "Dinner is at eight.",
            extracted(
                ("Nicolas is vegetarian", "fact", "Nicolas", broken["message"]["id"]),
                ("The grocery budget is 600 euros a month", "decision", "family",
                 failed["message"]["id"]),
            ),
        )  # fmt: skip
    assert last["run"]["status"] == "done" and last["run"]["added"] == 2
    shown = [r for r in fake_llm.requests_to("chat") if is_extraction(r)][-1].body["messages"][-1][
        "content"
    ]
    for text in ("Nicolas is vegetarian.", "600 euros", "Dinner is at eight."):
        assert text in shown
    stored = {m["content"]: m["source_message_id"] for m in await memories(server, kin_id)}
    assert stored == {
        "Nicolas is vegetarian": broken["message"]["id"],
        "The grocery budget is 600 euros a month": failed["message"]["id"],
    }
    state = await watermark(server, kin_id)
    messages = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    assert state is not None and state.failures == 0
    assert state.last_position == await position_of(server, messages[-1]["id"])


async def test_the_kin_extraction_model_is_used_and_checked(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await new_kin(server)
    url = f"/api/kins/{kin_id}"
    refused = await server.client.patch(url, json={"memory_extraction_model": "Nowhere/x"})
    assert refused.status_code == 400, refused.text
    changed = await server.client.patch(url, json={"memory_extraction_model": "Chat/gpt-4o-mini"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["kin"]["memory_extraction_model"] == "Chat/gpt-4o-mini"
    async with sse_stream(server.client) as stream:
        await turn(
            server, fake_llm, stream, kin_id, "We chose Next.js for the school site.", extracted()
        )
        requests = fake_llm.requests_to("chat")
        assert [r.body["model"] for r in requests if is_extraction(r)] == ["gpt-4o-mini"]
        assert [r.body["model"] for r in requests if not is_extraction(r)] == ["gpt-4o"]

        cleared = await server.client.patch(url, json={"memory_extraction_model": ""})
        assert cleared.json()["kin"]["memory_extraction_model"] is None
        await turn(server, fake_llm, stream, kin_id, "The holidays are in August.", extracted())
    assert [r.body["model"] for r in fake_llm.requests_to("chat") if is_extraction(r)] == [
        "gpt-4o-mini",
        "gpt-4o",
    ]


async def test_compacting_extracts_the_messages_it_folds(
    quiet_server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    server = quiet_server
    kin_id = await new_kin(server)
    kins = server.platform.kins
    added = [
        await kins.add_message(kin_id, role=role, source=source, sender_name=name, content=content)
        for role, source, name, content in (
            ("user", "user", "Nico", "Marie is allergic to peanuts."),
            ("assistant", "kin", "Chef", "I will remember that."),
            ("user", "user", "Nico", "The family goes on holiday in August."),
        )
    ]
    folded = added[:2]
    fake_llm.enqueue(extracted(("Marie is allergic to peanuts", "fact", "Marie", added[0].id)))
    await server.platform.hooks.call(
        "before_compacting",
        kin=KinRef(kin_id, "Chef", "Chat/gpt-4o"),
        compacting=CompactingContext(message_ids=[str(m.id) for m in folded]),
    )
    assert [m["content"] for m in await memories(server, kin_id)] == [
        "Marie is allergic to peanuts"
    ]
    shown = fake_llm.requests_to("chat")[-1].body["messages"][-1]["content"]
    assert "holiday" not in shown  # not folded: left for the next extraction
    state = await watermark(server, kin_id)
    assert state is not None and state.last_position == await position_of(server, added[1].id)


async def test_a_message_awaiting_redaction_is_held_back_until_redacted(
    quiet_server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    server = quiet_server
    kin_id = await new_kin(server)
    kins = server.platform.kins
    before, secret, after = [
        await kins.add_message(kin_id, role="user", source="user", sender_name="Nico", content=c)
        for c in ("Marie is allergic to peanuts.", "The wifi password is hunter2.", "Bye!")
    ]
    db = server.platform.db
    await db.write(
        lambda: (
            MessageRecord.update(redaction_pending=True)
            .where(MessageRecord.id == secret.id)
            .execute()
        )
    )
    extractor = extraction_of(server.platform).extractor
    fake_llm.enqueue(extracted(), extracted())
    await extractor.extract(kin_id)
    shown = fake_llm.requests_to("chat")[-1].body["messages"][-1]["content"]
    assert "Marie is allergic" in shown and "hunter2" not in shown and "Bye!" not in shown
    assert (await watermark(server, kin_id)).last_position == await position_of(  # type: ignore[union-attr]
        server, before.id
    )

    await db.write(
        lambda: (
            MessageRecord.update(
                content="The wifi password is [redacted].", redaction_pending=False
            )
            .where(MessageRecord.id == secret.id)
            .execute()
        )
    )
    await extractor.extract(kin_id)
    shown = fake_llm.requests_to("chat")[-1].body["messages"][-1]["content"]
    assert "[redacted]" in shown and "Bye!" in shown and "Marie" not in shown
    assert all("hunter2" not in r.text for r in fake_llm.requests)
    assert (await watermark(server, kin_id)).last_position == await position_of(  # type: ignore[union-attr]
        server, after.id
    )


def test_extraction_replies_are_read_strictly_but_tolerantly() -> None:
    fenced = '```json\n{"memories": [{"content": " Nicolas is vegetarian ", "category": "fact", ' \
        '"subject": "Nicolas", "source_message_id": 4}, {"content": "  ", "category": "fact"}, ' \
        '{"content": "Gossip", "category": "rumour"}]}\n```'  # fmt: skip
    (candidate,) = parse_candidates(fenced)
    assert (candidate.content, candidate.source_message_id) == ("Nicolas is vegetarian", 4)
    for broken in ("Sure! Nicolas is vegetarian.", '{"memories": "none"}', "[]", ""):
        with pytest.raises(MalformedReply):
            parse_candidates(broken)
    decision = parse_decision('{"action": "merge", "memory_id": "7", "content": "x"}')
    assert (decision.action, decision.memory_id) == ("merge", 7)
    with pytest.raises(MalformedReply):
        parse_decision('{"action": "shrug"}')


async def test_the_platform_model_is_used_once_the_kin_has_been_quiet(
    data_dir: Any, fake_llm: FakeOpenAI
) -> None:
    async for server in serve(
        data_dir,
        fake_llm,
        memory_extraction_model="Chat/gpt-4o-mini",
        memory_extraction_delay_seconds=3600,
    ):
        kin_id = await new_kin(server)
        fake_llm.enqueue(Reply(text="Noted."), Reply(text="Noted again."))
        async with sse_stream(server.client) as stream:
            for text in ("Nicolas is vegetarian.", "He also avoids fish."):
                sent = (
                    await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
                ).json()["message"]
                await stream.wait_for(finished(kin_id, sent["id"]))
        # Within the quiet delay nothing was sent for extraction yet.
        assert not [r for r in fake_llm.requests_to("chat") if is_extraction(r)]
        fake_llm.enqueue(extracted(("Nicolas is vegetarian", "fact", "Nicolas", sent["id"])))
        report = await extraction_of(server.platform).extractor.extract(kin_id)
        assert (report.added, report.error) == (1, None)
        (request,) = [r for r in fake_llm.requests_to("chat") if is_extraction(r)]
        assert request.body["model"] == "gpt-4o-mini"
        assert "He also avoids fish." in request.body["messages"][-1]["content"]


async def test_runs_after_turns_back_off_while_extraction_keeps_failing(
    data_dir: Any, fake_llm: FakeOpenAI
) -> None:
    async for server in serve(data_dir, fake_llm, memory_extraction_delay_seconds=10):
        kin_id = await new_kin(server)
        await server.platform.kins.add_message(
            kin_id, role="user", source="user", sender_name="Nico", content="Paul likes tea."
        )
        extractor = extraction_of(server.platform).extractor

        def failed(times: int, seconds_ago: float, kin: str = kin_id) -> None:
            ExtractionState.insert(
                kin=kin, failures=times, last_error="down", updated_at=time.time() - seconds_ago
            ).on_conflict_replace().execute()

        await server.platform.db.write(failed, 3, 60)  # 3 failures: wait 80 s
        assert await extractor.extract_when_due(kin_id) is None
        assert [r for r in fake_llm.requests_to("chat") if is_extraction(r)] == []

        fake_llm.enqueue(extracted(("Paul likes tea", "preference", "Paul", 0)))
        await server.platform.db.write(failed, 3, 81)
        report = await extractor.extract_when_due(kin_id)
        assert report is not None and report.error is None and report.added == 1
        assert len([r for r in fake_llm.requests_to("chat") if is_extraction(r)]) == 1

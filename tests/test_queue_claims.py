"""A message for a Kin whose worker sleeps on an empty queue is taken for its turn in the
transaction that stores it (``kinbot_core.kins.claims``): what browsers see is unchanged, and
no message is lost, doubled or left waiting when its sender goes away or a store fails."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from kinbot_core.kins.views import KinError
from kinbot_core.usage import recorder
from tests.support import server_fixtures
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import counted_writes, make_kin, reply_to, session, tell, turn_ended
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.support.waiting import eventually

fake_llm, server = server_fixtures.fake_llm, server_fixtures.server


async def asleep(server: RunningServer, kin_id: str) -> None:
    """Wait until the Kin's worker sleeps on its empty queue."""

    async def probe() -> bool:
        return server.platform.workers.sleeping(kin_id)

    await eventually(probe)


@asynccontextmanager
async def another_turn_running(server: RunningServer, fake_llm: FakeOpenAI) -> AsyncIterator[str]:
    """Another Kin's turn runs meanwhile (its answer takes minutes; it is stopped after)."""
    other = await make_kin(server.client, "Other")
    fake_llm.enqueue(Reply(text="Slowly.", delay=600.0))
    message_id = await tell(server.client, other, "Take your time.")

    async def slow_reply_taken() -> bool:  # by the other Kin's call, not by a later turn's
        return server.platform.workers.running(other) and fake_llm.pending() == 0

    await eventually(slow_reply_taken)
    try:
        yield other
    finally:
        async with sse_stream(server.client) as stream:
            response = await server.client.post(f"/api/kins/{other}/stop")
            assert response.json() == {"stopped": True}
            await stream.wait_for(turn_ended(message_id))


@pytest.fixture
async def kin_id(
    server: RunningServer, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A Kin that answered one message, so that its worker exists; then it sleeps. Usage is
    left unwritten (written later, in a batch), so that only turns write meanwhile."""
    monkeypatch.setattr(recorder, "WRITE_DELAY_SECONDS", 3600.0)
    kin_id = await make_kin(server.client)
    fake_llm.enqueue(Reply(text="Hello."))
    async with sse_stream(server.client) as stream:
        first = await tell(server.client, kin_id, "Hello?")
        await stream.wait_for(turn_ended(first))
    await asleep(server, kin_id)
    return kin_id


async def test_a_message_for_a_sleeping_worker_is_stored_and_taken_in_one_transaction(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = await counted_writes(server.platform, monkeypatch)
    fake_llm.enqueue(Reply(text="A leek soup."))
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, "Soup?")
        await stream.wait_for(turn_ended(message_id))
    # The message stored and taken; the reply with the turn's end.
    assert len(written) == 2, written
    opening = [(e.type, e.data) for e in stream.events if e.id is not None][:5]
    assert [kind for kind, _ in opening] == [
        "message", "kin.queue", "message.status", "kin.queue", "kin.state",
    ]  # fmt: skip
    assert opening[0][1]["message"]["status"] == "queued"
    assert opening[1][1]["queue_length"] == 1 and opening[3][1]["queue_length"] == 0
    assert opening[2][1] == {"kin_id": kin_id, "id": message_id, "status": "processing"}
    assert opening[4][1]["state"] == "thinking"
    assert [(m["role"], m["status"]) for m in await session(server.client, kin_id)][-2:] == [
        ("user", "done"), ("assistant", "done"),
    ]  # fmt: skip


async def test_a_turn_alone_writes_on_the_event_loop_and_beside_another_on_the_writer_thread(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Database.write_inline`` when no other Kin's turn runs (``test_database_inline_writes``
    shows where it runs); beside another turn, writes share the writer thread's transactions."""
    written = await counted_writes(server.platform, monkeypatch)
    fake_llm.enqueue(Reply(text="Alone."))
    async with sse_stream(server.client) as stream:
        await stream.wait_for(turn_ended(await tell(server.client, kin_id, "Alone?")))
    assert written == [("write_inline", "insert"), ("write_inline", "insert")]
    async with another_turn_running(server, fake_llm):
        await asleep(server, kin_id)
        written.clear()
        fake_llm.enqueue(Reply(text="Together."))
        async with sse_stream(server.client) as stream:
            await stream.wait_for(turn_ended(await tell(server.client, kin_id, "Together?")))
        assert written == [("write", "insert"), ("write", "insert")]


async def test_a_message_whose_sender_went_away_while_it_was_stored_is_answered_once(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str
) -> None:
    """Beside another Kin's turn, so that the message is stored on the writer thread (a
    write on the event loop cannot be left midway)."""
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:  # runs on the writer thread, in the storing transaction
        entered.set()
        release.wait(60)

    async with another_turn_running(server, fake_llm), sse_stream(server.client) as stream:
        fake_llm.enqueue(Reply(text="Still answered."))
        sending = asyncio.ensure_future(
            server.platform.kins.enqueue(
                kin_id, "Are you there?", source="user", sender_id=None, sender_name="Nico",
                guard=hold,
            )
        )  # fmt: skip
        await asyncio.to_thread(entered.wait, 60)
        sending.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await sending

        async def stored() -> int | None:
            messages = await session(server.client, kin_id)
            return next((m["id"] for m in messages if m["content"] == "Are you there?"), None)

        message_id = await eventually(stored)
        await stream.wait_for(turn_ended(message_id))
    messages = await session(server.client, kin_id)
    asked = [m for m in messages if m["content"] == "Are you there?"]
    assert [m["status"] for m in asked] == ["done"]
    answers = [m for m in messages if m.get("turn_of") == message_id]
    assert [m["content"] for m in answers] == ["Still answered."]
    await asleep(server, kin_id)


async def test_a_refused_message_leaves_the_worker_ready_for_the_next(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str
) -> None:

    def refuse() -> None:
        raise KinError("Refused.", code="refused")

    with pytest.raises(KinError):
        await server.platform.kins.enqueue(
            kin_id, "Refused", source="user", sender_id=None, sender_name="Nico", guard=refuse
        )
    await asleep(server, kin_id)
    fake_llm.enqueue(Reply(text="Next one answered."))
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, "And now?")
        reply = await stream.wait_for(reply_to(message_id))
    assert reply.data["message"]["content"] == "Next one answered."
    assert "Refused" not in [m["content"] for m in await session(server.client, kin_id)]


async def test_messages_arriving_together_at_a_sleeping_worker_are_answered_once_in_order(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str
) -> None:
    for n in range(3):
        fake_llm.enqueue(Reply(text=f"Answer {n}."))
    async with sse_stream(server.client) as stream:
        ids = await asyncio.gather(
            *(tell(server.client, kin_id, f"Question {n}") for n in range(3))
        )
        for message_id in ids:
            await stream.wait_for(turn_ended(message_id))
    messages = await session(server.client, kin_id)
    arrived = [m["content"] for m in sorted(messages, key=lambda m: m["id"]) if m["id"] in ids]
    asked = [r.body["messages"][-1]["content"] for r in fake_llm.requests_to("chat")][1:]
    assert asked == [f"[Nico] {content}" for content in arrived]  # in the order they came
    for message_id in ids:
        assert [m["status"] for m in messages if m["id"] == message_id] == ["done"]
        assert len([m for m in messages if m.get("turn_of") == message_id]) == 1
    await asleep(server, kin_id)


async def test_a_message_waits_while_a_turn_of_its_kin_awaits_a_decision(
    server: RunningServer, fake_llm: FakeOpenAI, kin_id: str
) -> None:
    platform = server.platform
    (asked,) = [m for m in await session(server.client, kin_id) if m["role"] == "user"]
    # As a tool call needing approval leaves it (the worker asleep: the approval came last).
    await platform.approvals.request(kin_id, asked["id"], "call-1", "run_shell", {"cmd": "ls"})
    message = await platform.kins.enqueue(
        kin_id, "Meanwhile?", source="user", sender_id=None, sender_name="Nico"
    )
    (stored,) = [m for m in await session(server.client, kin_id) if m["id"] == message.id]
    assert stored["status"] == "queued"
    assert not fake_llm.requests_to("chat")[1:]

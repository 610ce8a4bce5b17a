"""Tools that need a person's approval, over real HTTP: the turn waits in the database, a
decision (allow once, always, decline with a reason) resumes it, an unanswered request
expires (also across a restart) and the model is told; a plugin asks through
``NeedsApproval``; bad input gets a clear 4xx and a Kin one may not use stays invisible."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from hookspecs.types import KinRef, ToolCall
from kinbot_core import NeedsApproval, hookimpl
from kinbot_core.approvals.gate import EXPIRED, NOT_IN_TASK
from kinbot_core.crons import Clock
from kinbot_core.db.models import KinMemberRecord, KinRecord
from kinbot_core.notifications.types import Notification
from tests.support.accounts import MARIE, register
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import make_kin, serve_with_openai, session, tell, tool_results
from tests.support.server import RunningServer
from tests.support.server_fixtures import fake_llm as fake_llm
from tests.support.sse import SseReader, sse_stream
from tests.test_tasks import Script

TIMEOUT = 3600.0


def requested(kin_id: str, message_id: int) -> Any:
    return lambda e: (
        e.type == "approval.requested"
        and e.data["kin_id"] == kin_id
        and e.data["approval"]["turn"] == message_id
    )


def status_of(message_id: int, status: str) -> Any:
    return lambda e: (
        e.type == "message.status" and e.data["id"] == message_id and e.data["status"] == status
    )


async def ask_before(client: httpx.AsyncClient, kin_id: str, tool: str) -> None:
    response = await client.put(f"/api/kins/{kin_id}/approval-rules/{tool}", json={"mode": "ask"})
    assert response.status_code == 200, response.text
    assert response.json()["rules"] == {tool: "ask"}


async def workspace(server: RunningServer, kin_id: str, *names: str) -> Path:
    folder = Path((await server.platform.kins.get(kin_id)).workspace)
    for name in names:
        (folder / name).write_text(name)
    return folder


async def waiting_request(stream: SseReader, kin_id: str, message_id: int) -> dict[str, Any]:
    event = await stream.wait_for(requested(kin_id, message_id))
    await stream.wait_for(status_of(message_id, "waiting"))
    approval: dict[str, Any] = event.data["approval"]
    return approval


async def decide(client: httpx.AsyncClient, approval_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/api/approvals/{approval_id}/decision", json=body)


def tool_result_sent(fake: FakeOpenAI, call_name: str) -> list[str]:
    """The tool results the model received, in its last request."""
    chat = fake.requests_to("chat")
    messages = chat[-1].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


async def test_allow_once_runs_the_call_and_the_next_call_asks_again(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        folder = await workspace(server, kin_id, "a.txt", "b.txt")
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})]),
            Reply(text="Deleted a."),
            Reply(tool_calls=[("delete_file", {"path": "b.txt"})]),
            Reply(text="Deleted b."),
        )
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            assert approval["tool_name"] == "delete_file"
            assert approval["arguments"] == {"path": "a.txt"}
            assert (folder / "a.txt").exists()  # it waits: nothing ran
            pending = (await client.get(f"/api/kins/{kin_id}/approvals")).json()["approvals"]
            assert [p["id"] for p in pending] == [approval["id"]]

            decided = await decide(client, approval["id"], decision="allow_once")
            assert decided.status_code == 200, decided.text
            await stream.wait_for(
                lambda e: e.type == "approval.decided" and e.data["id"] == approval["id"]
            )
            await stream.wait_for(status_of(first, "done"))
            assert not (folder / "a.txt").exists()
            again = await decide(client, approval["id"], decision="allow_once")
            assert again.status_code == 409 and again.json()["error"]["code"] == "approval_decided"

            second = await tell(client, kin_id, "Delete b.txt")
            next_request = await waiting_request(stream, kin_id, second)
            assert next_request["id"] != approval["id"]
            assert (folder / "b.txt").exists()
            assert (
                await decide(client, next_request["id"], decision="allow_once")
            ).status_code == 200
            await stream.wait_for(status_of(second, "done"))
            assert not (folder / "b.txt").exists()
        answers = [m["content"] for m in await session(client, kin_id) if m["role"] == "assistant"]
        assert "Deleted a." in answers and "Deleted b." in answers


async def test_always_allow_stops_asking_for_this_kin(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        other = await make_kin(client, "Scribe")
        platform_rule = await client.put("/api/approval-rules/delete_file", json={"mode": "ask"})
        assert platform_rule.status_code == 200, platform_rule.text
        folder = await workspace(server, kin_id, "a.txt", "b.txt")
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})]),
            Reply(text="One."),
            Reply(tool_calls=[("delete_file", {"path": "b.txt"})]),
            Reply(text="Two."),
        )
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            assert (await decide(client, approval["id"], decision="always")).status_code == 200
            await stream.wait_for(status_of(first, "done"))
            second = await tell(client, kin_id, "Delete b.txt")
            await stream.wait_for(status_of(second, "done"))
            assert not stream.of_type("approval.requested")[1:]
        assert not (folder / "a.txt").exists() and not (folder / "b.txt").exists()
        rules = (await client.get(f"/api/kins/{kin_id}/approval-rules")).json()
        assert rules["rules"] == {"delete_file": "allow"}
        assert rules["platform_rules"] == {"delete_file": "ask"}
        assert await server.platform.approvals.needs_approval(other, "delete_file")


async def test_only_an_administrator_always_allows(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    """An "always" sets the Kin's rule, an administrator's choice: a member who may use the Kin
    is refused it (403, the rule stays "ask", the request still waits) and allows once."""
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        folder = await workspace(server, kin_id, "a.txt")
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="Deleted a.")
        )
        async with server.new_client() as member, sse_stream(client) as stream:
            await register(client, member)
            first = await tell(member, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)

            refused = await decide(member, approval["id"], decision="always")
            assert refused.status_code == 403, refused.text
            assert refused.json()["error"]["code"] == "approval_always_admin_only"
            rules = (await client.get(f"/api/kins/{kin_id}/approval-rules")).json()["rules"]
            assert rules == {"delete_file": "ask"}
            pending = (await member.get(f"/api/kins/{kin_id}/approvals")).json()["approvals"]
            assert [p["id"] for p in pending] == [approval["id"]]
            assert (folder / "a.txt").exists()

            allowed = await decide(member, approval["id"], decision="allow_once")
            assert allowed.status_code == 200, allowed.text
            await stream.wait_for(status_of(first, "done"))
        assert not (folder / "a.txt").exists()
        rules = (await client.get(f"/api/kins/{kin_id}/approval-rules")).json()["rules"]
        assert rules == {"delete_file": "ask"}
        assert await server.platform.approvals.needs_approval(kin_id, "delete_file")


async def test_a_declined_call_gives_the_model_the_reason(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        folder = await workspace(server, kin_id, "a.txt")
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="Understood.")
        )
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            declined = await decide(
                client, approval["id"], decision="decline", reason="Keep it, it is the recipe"
            )
            assert declined.status_code == 200, declined.text
            await stream.wait_for(status_of(first, "done"))
        assert (folder / "a.txt").exists()
        sent = tool_result_sent(fake_llm, "delete_file")
        assert any("Keep it, it is the recipe" in text for text in sent), sent
        stored = tool_results(await session(client, kin_id), "delete_file")
        assert stored[-1]["is_error"] and "declined" in stored[-1]["content"]
        assert stored[-1]["meta"] == {
            "approval": {"status": "declined", "reason": "Keep it, it is the recipe"}
        }


async def test_a_turn_resumed_after_its_budget_ran_out_still_ends(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    """A budget stops new turns, never one being written: the call waiting for approval
    spent the budget, and the decision still reaches the model and ends the turn."""
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client, model="gpt-4o")
        await ask_before(client, kin_id, "delete_file")
        await workspace(server, kin_id, "a.txt")
        budget = await client.put(
            "/api/usage/budgets",
            json={"scope": "kin", "target_id": kin_id, "monthly_limit": 0.001},
        )
        assert budget.status_code == 200, budget.text
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})], usage=(10, 1000)),
            Reply(text="Understood, I keep it."),
        )
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            await server.platform.usage.recorder.flush()
            declined = await decide(client, approval["id"], decision="decline", reason="Keep it")
            assert declined.status_code == 200, declined.text
            await stream.wait_for(status_of(first, "done"))
        assert any("Keep it" in text for text in tool_result_sent(fake_llm, "delete_file"))
        assert (await session(client, kin_id))[-1]["content"] == "Understood, I keep it."
        refused = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "More?"})
        assert refused.json()["error"]["code"] == "budget_reached"  # the next turn is refused


async def test_an_unanswered_request_expires_and_the_model_is_told(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    clock = Clock()
    async with serve_with_openai(
        data_dir, fake_llm, clock=clock, tool_approval_timeout_seconds=TIMEOUT
    ) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        folder = await workspace(server, kin_id, "a.txt")
        fake_llm.enqueue(
            Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="Nobody answered.")
        )
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            assert approval["expires_at"] - approval["created_at"] == pytest.approx(TIMEOUT)
            clock.set(clock.time() + TIMEOUT - 60)  # not yet
            assert await server.platform.approvals.expire_due() == []
            clock.set(clock.time() + 120)
            await stream.wait_for(
                lambda e: e.type == "approval.decided" and e.data["status"] == "expired"
            )
            await stream.wait_for(status_of(first, "done"))
        assert (folder / "a.txt").exists()
        assert EXPIRED in tool_result_sent(fake_llm, "delete_file")
        stored = tool_results(await session(client, kin_id), "delete_file")
        assert stored[-1]["meta"] == {"approval": {"status": "expired"}}
        late = await decide(client, approval["id"], decision="allow_once")
        assert late.status_code == 409


def echo(request: RecordedRequest) -> Reply | None:
    """Deletes the file a message names; else says what it answers (a message, or a tool's
    result), so that the order of the replies shows the order of the turns."""
    if request.endpoint != "chat":
        return None
    last = request.body["messages"][-1]
    if last["role"] == "user" and "Delete" in last["content"]:
        return Reply(tool_calls=[("delete_file", {"path": last["content"].split()[-1]})])
    kind = "tool result" if last["role"] == "tool" else "message"
    return Reply(text=f"after the {kind}: {last['content'][-20:]}")


async def test_a_waiting_request_survives_a_restart_and_expires_across_it(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    fake_llm.responder = echo
    async with serve_with_openai(
        data_dir, fake_llm, tool_approval_timeout_seconds=TIMEOUT
    ) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            await waiting_request(stream, kin_id, first)
            queued = await tell(client, kin_id, "And then?")  # waits behind the request
            await stream.wait_for(lambda e: e.type == "kin.queue" and e.data["queue_length"])
            listed = {m["id"]: m for m in await session(client, kin_id)}
            assert (listed[first]["status"], listed[queued]["status"]) == ("waiting", "queued")
    later = Clock()
    later.set(later.time() + TIMEOUT + 1)
    async with serve_with_openai(
        data_dir, fake_llm, first_start=False, clock=later, tool_approval_timeout_seconds=TIMEOUT
    ) as server:
        client = server.client
        async with sse_stream(client) as stream:
            messages = {m["id"]: m for m in await session(client, kin_id)}
            if messages[queued]["status"] != "done":
                await stream.wait_for(status_of(queued, "done"))
        messages = {m["id"]: m for m in await session(client, kin_id)}
        assert messages[first]["status"] == "done"
        results = tool_results(list(messages.values()), "delete_file")
        assert [r["content"] for r in results] == [EXPIRED]
        # The queued message was answered after the expired turn, not before it.
        replies = [m for m in messages.values() if m["role"] == "assistant" and not m["tool_calls"]]
        assert [r["content"] for r in replies] == [
            f"after the tool result: {EXPIRED[-20:]}",
            "after the message: [Nico] And then?",
        ]


class AskingPlugin:
    """Asks a person before every ``delete_file`` call that was not approved yet."""

    def __init__(self) -> None:
        self.seen: list[bool] = []

    @hookimpl
    def before_tool_call(self, kin: KinRef, call: ToolCall, approved: bool) -> None:
        if call.name == "delete_file":
            self.seen.append(approved)
            if not approved:
                raise NeedsApproval("Files are precious in this house.")


async def test_a_plugin_asks_for_approval_with_needs_approval(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    plugin = AskingPlugin()
    async with serve_with_openai(data_dir, fake_llm, plugins=(plugin,)) as server:
        client = server.client
        kin_id = await make_kin(client)
        folder = await workspace(server, kin_id, "a.txt")
        fake_llm.enqueue(Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="Ok."))
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
            assert approval["reason"] == "Files are precious in this house."
            assert (folder / "a.txt").exists()
            assert (await decide(client, approval["id"], decision="allow_once")).status_code == 200
            await stream.wait_for(status_of(first, "done"))
        assert not (folder / "a.txt").exists()
        assert plugin.seen == [False, True]


async def test_bad_input_and_kins_one_may_not_use(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        await ask_before(client, kin_id, "delete_file")
        fake_llm.enqueue(Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="."))
        async with sse_stream(client) as stream:
            first = await tell(client, kin_id, "Delete a.txt")
            approval = await waiting_request(stream, kin_id, first)
        bad = await decide(client, approval["id"], decision="maybe")
        assert bad.status_code == 400
        assert (await decide(client, "nope", decision="allow_once")).status_code == 404
        assert (await decide(client, "x" * 500, decision="allow_once")).status_code == 404
        long_reason = await decide(client, approval["id"], decision="decline", reason="x" * 5000)
        assert long_reason.status_code == 400
        wrong_mode = await client.put("/api/approval-rules/delete_file", json={"mode": "allow"})
        assert wrong_mode.status_code == 400
        assert wrong_mode.json()["error"]["code"] == "approval_mode_invalid"
        bad_name = await client.put(
            f"/api/kins/{kin_id}/approval-rules/{'a b'}", json={"mode": "ask"}
        )
        assert (
            bad_name.status_code == 400 and bad_name.json()["error"]["code"] == "tool_name_invalid"
        )
        unknown_kin = await client.get("/api/kins/nope/approvals")
        assert unknown_kin.status_code == 404

        async with server.new_client() as member:
            await register(client, member)
            assert (await member.get(f"/api/kins/{kin_id}/approvals")).status_code == 200
            assert (await member.get("/api/approval-rules")).status_code == 403
            put = await member.put("/api/approval-rules/notify", json={"mode": "ask"})
            assert put.status_code == 403
            me = (await client.get("/api/me")).json()
            admin_id = me.get("user", me)["id"]

            def restrict() -> None:
                KinRecord.update(access="members").where(KinRecord.id == kin_id).execute()
                KinMemberRecord.create(kin=kin_id, user=admin_id)

            await server.platform.db.write(restrict)
            await server.platform.kin_access.load()
            assert (await member.get(f"/api/kins/{kin_id}/approvals")).status_code == 404
            refused = await decide(member, approval["id"], decision="allow_once")
            assert refused.status_code == 404
            # The request still waits for someone allowed; its events reach only them.
            pending = (await client.get(f"/api/kins/{kin_id}/approvals")).json()["approvals"]
            assert [p["id"] for p in pending] == [approval["id"]]
            async with sse_stream(member) as theirs, sse_stream(client) as mine:
                allowed = await decide(client, approval["id"], decision="allow_once")
                assert allowed.status_code == 200
                await mine.wait_for(status_of(first, "done"))
                await make_kin(client, "Open")  # a later event everyone sees
                await theirs.wait_for(lambda e: e.type == "kin.created")
                seen = json.dumps([e.data for e in theirs.events])
                assert kin_id not in seen and approval["id"] not in seen


async def test_a_sub_kin_is_refused_a_tool_that_needs_approval(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        boss = await make_kin(client, "Boss")
        await ask_before(client, boss, "delete_file")
        folder = await workspace(server, boss, "a.txt")
        script.behaviours["Boss"] = lambda call: (
            Reply(tool_calls=[("spawn_self", {"task_description": "Tidy up", "mode": "await"})])
            if call.text.startswith("[Nico")
            else Reply(text="Noted.")
        )
        script.behaviours["Boss/sub"] = lambda call: Reply(
            tool_calls=[("delete_file", {"path": "a.txt"})]
        )
        async with sse_stream(client) as stream:
            await tell(client, boss, "Tidy up")
            result = await stream.wait_for(
                lambda e: (
                    e.type == "message" and e.data["message"]["kin_message_type"] == "task_result"
                )
            )
            await stream.wait_for(status_of(result.data["message"]["id"], "done"))
            assert not stream.of_type("approval.requested")
        task = (await client.get(f"/api/tasks/{result.data['message']['task_id']}")).json()
        assert [m["content"] for m in tool_results(task["messages"], "delete_file")] == [
            NOT_IN_TASK
        ]
        assert (folder / "a.txt").exists()
        assert await server.platform.approvals.pending(boss) == []


async def test_the_person_who_asked_is_notified_in_their_language_without_the_arguments(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        kin_id = await make_kin(server.client)
        await ask_before(server.client, kin_id, "delete_file")
        await workspace(server, kin_id, "tax-return-2026.pdf")
        delivered: list[tuple[str, Notification]] = []

        arrived = asyncio.Event()

        async def capture(user_id: str, notification: Notification) -> None:
            delivered.append((user_id, notification))
            arrived.set()

        server.platform.notifications.add_route("test:capture", capture, label="Captured")
        fake_llm.enqueue(Reply(tool_calls=[("delete_file", {"path": "tax-return-2026.pdf"})]))
        async with server.new_client() as marie_client:
            marie = await register(server.client, marie_client, {**MARIE, "language": "fr"})
            chosen = await marie_client.patch(
                "/api/me/notifications", json={"route": "test:capture"}
            )
            assert chosen.status_code == 200, chosen.text
            async with sse_stream(marie_client) as stream:
                sent = await tell(marie_client, kin_id, "Supprime la déclaration")
                await waiting_request(stream, kin_id, sent)
        async with asyncio.timeout(60):  # the notice follows the request's event
            await arrived.wait()
        assert [user_id for user_id, _ in delivered] == [marie["id"]]
        notice = delivered[0][1]
        assert notice.title == "Chef demande avant d'agir"
        assert notice.link == f"/kins/{kin_id}"
        assert "tax-return" not in notice.title + notice.body


async def test_a_call_resumed_after_approval_gets_the_secret_its_turn_read(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    secret = "correct-horse-battery-9"
    async with serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        kin_id = await make_kin(client)
        stored = await client.post("/api/vault", json={"key": "HOME_WIFI", "value": secret})
        assert stored.status_code == 201, stored.text
        await ask_before(client, kin_id, "write_file")
        folder = await workspace(server, kin_id)
        fake_llm.enqueue(
            Reply(tool_calls=[("get_secret", {"key": "HOME_WIFI"})]),
            Reply(tool_calls=[("write_file", {"path": "wifi.txt", "content": secret})]),
            Reply(text="Saved for the guests."),
        )
        async with sse_stream(client) as stream:
            sent = await tell(client, kin_id, "Write the wifi password for the guests")
            approval = await waiting_request(stream, kin_id, sent)
            assert secret not in json.dumps(approval)  # the card shows the placeholder
            decided = await decide(client, approval["id"], decision="allow_once")
            assert decided.status_code == 200, decided.text
            await stream.wait_for(status_of(sent, "done"))
        assert (folder / "wifi.txt").read_text() == secret

"""Sub-Kin tasks over real HTTP and SSE, with a fake OpenAI server scripted to call the task
tools: await and async results, the clarification flow, the question cap, the depth limit,
the concurrency limit, cancelling, a failing sub-Kin, the veto hook and a restart."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hookspecs import HookVeto
from kinbot_core import hookimpl
from kinbot_core.tasks.service import RESTART_FAILURE
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import (
    make_kin,
    serve_with_openai,
    session,
    tell,
    tool_results,
    turn_ended,
)
from tests.support.sse import SseEvent, sse_stream

TASK_ID = re.compile(r"task_[0-9a-f]{32}")


@dataclass(frozen=True)
class Call:
    """One request of the fake model, as a behaviour sees it."""

    kin: str  # "Boss", or "Boss/sub" for a sub-Kin with Boss's identity
    last: dict[str, Any]
    request: RecordedRequest

    @property
    def text(self) -> str:
        content = self.last.get("content")
        return content if isinstance(content, str) else ""


Behaviour = Callable[[Call], Reply]


class Script:
    """The fake model's script: a behaviour per Kin (and per sub-Kin identity) answering the
    last message; after a tool result the caller ends its turn with ``done`` text, unless a
    behaviour for ``"<kin>:tool"`` says otherwise."""

    def __init__(self) -> None:
        self.behaviours: dict[str, Behaviour] = {}
        self.calls: list[Call] = []

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        messages = request.body["messages"]
        system = messages[0]["content"]
        name = re.match(r"You are (\w+)", system)
        assert name, system
        kin = name.group(1) + ("/sub" if "ephemeral sub-Kin" in system else "")
        call = Call(kin, messages[-1], request)
        self.calls.append(call)
        if call.last["role"] == "tool":
            behaviour = self.behaviours.get(f"{kin}:tool")
            return behaviour(call) if behaviour else Reply(text=f"{kin} is done.")
        return self.behaviours[kin](call)

    def of(self, kin: str) -> list[Call]:
        return [call for call in self.calls if call.kin == kin]

    def turns_of(self, kin: str) -> list[str]:
        """The messages that started each of ``kin``'s model calls on a new message."""
        return [call.text for call in self.of(kin) if call.last["role"] == "user"]


def spawn(tool: str = "spawn_self", **arguments: Any) -> Reply:
    return Reply(tool_calls=[(tool, arguments)])


def task_id_in(text: str) -> str:
    found = TASK_ID.search(text)
    assert found, text
    return found.group(0)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def task_of(client: httpx.AsyncClient, task_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/tasks/{task_id}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def task_ended(task_id: str | None = None) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "task.updated"
        and (task_id is None or e.data["task"]["id"] == task_id)
        and e.data["task"]["status"] in ("completed", "failed", "cancelled")
    )


def from_tasks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["source"] in ("task", "cron")]


async def wait_for_task_message(
    stream: Any, kin_id: str, kind: str, *, status: str | None = None
) -> dict[str, Any]:
    """A message of type ``kind`` from a task reaching ``kin_id``'s session (queued, or added
    without a turn when ``status`` is ``done``)."""
    event = await stream.wait_for(
        lambda e: (
            e.type == "message"
            and e.data["message"]["kin_id"] == kin_id
            and e.data["message"]["kin_message_type"] == kind
            and (status is None or e.data["message"]["status"] == status)
        )
    )
    message: dict[str, Any] = event.data["message"]
    return message


async def test_await_result_starts_a_turn_and_async_result_does_not(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss = await make_kin(server.client, "Boss")
        script.behaviours["Boss"] = lambda call: (
            spawn(task_description="Find the answer.", mode=call.text.split()[-1])
            if call.text.startswith("[Nico")
            else Reply(text="Thanks, noted.")
        )
        script.behaviours["Boss/sub"] = lambda call: Reply(text="The answer is 42.")
        async with sse_stream(server.client) as stream:
            first = await tell(server.client, boss, "Delegate with mode await")
            result = await wait_for_task_message(stream, boss, "task_result")
            await stream.wait_for(turn_ended(result["id"]))
            task_id = result["task_id"]
            assert result["status"] == "queued" and result["source"] == "task"
            assert result["content"] == f"Task {task_id} completed. Result:\nThe answer is 42."
            # The result started a turn of Boss: it saw it, labelled as coming from the task.
            assert script.turns_of("Boss")[-1] == (
                f"[Task Find the answer.] Task {task_id} completed. Result:\nThe answer is 42."
            )
            turns_after_await = len(script.turns_of("Boss"))
            assert turns_after_await == 2

            await tell(server.client, boss, "Delegate with mode async")
            informative = await wait_for_task_message(stream, boss, "task_result", status="done")
            async_id = informative["task_id"]
            await stream.wait_for(task_ended(async_id))
            spawned = [e.data["task"] for e in stream.of_type("task.updated")]
        assert informative["content"].startswith(f"Task {async_id} completed. Result:")
        # No turn of Boss for the async result: the session shows it, Boss did not answer.
        await asyncio.sleep(0.3)
        assert len(script.turns_of("Boss")) == turns_after_await + 1
        messages = await session(server.client, boss)
        assert messages[-1]["id"] == informative["id"]
        assert [m["kin_message_type"] for m in from_tasks(messages)] == [
            "task_result",
            "task_result",
        ]
        # The spawn tool told Boss what to expect, and the task is visible through the API.
        (awaited, _) = (json.loads(m["content"]) for m in tool_results(messages, "spawn_self"))
        assert awaited["task_id"] == task_id and "End your turn now" in awaited["next"]
        found = await task_of(server.client, task_id)
        assert found["task"]["status"] == "completed"
        assert found["task"]["result"] == "The answer is 42."
        assert found["task"]["parent_kin_id"] == boss and found["task"]["depth"] == 1
        sub_session = found["messages"]
        assert [m["role"] for m in sub_session] == ["user", "assistant"]
        assert sub_session[0]["content"] == "Find the answer." and first != sub_session[0]["id"]
        assert {t["status"] for t in spawned if t["id"] == task_id} >= {
            "pending",
            "in_progress",
            "completed",
        }
        listed = (await server.client.get("/api/tasks")).json()["tasks"]
        assert [t["id"] for t in listed] == [async_id, task_id]
        # The sub-Kin's hidden row is not a Kin of the platform, and its session is read-only.
        kins = (await server.client.get("/api/kins")).json()["kins"]
        assert [k["name"] for k in kins] == ["Boss"]
        refused = await server.client.post(
            f"/api/kins/{found['task']['session_kin_id']}/messages", json={"content": "hi"}
        )
        assert refused.status_code == 404


async def test_the_clarification_flow_takes_exactly_the_turns_it_describes(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script

    def boss(call: Call) -> Reply:
        if call.text.startswith("[Nico"):
            return spawn(task_description="Book a flight.")
        if "asks you" in call.text:
            return Reply(
                tool_calls=[
                    ("respond_to_task", {"task_id": task_id_in(call.text), "answer": "Rome"})
                ]
            )
        return Reply(text="Booked, thanks.")

    def sub(call: Call) -> Reply:
        if call.text == "[Kin Boss] Book a flight.":
            return Reply(tool_calls=[("request_input", {"question": "Which city?"})])
        assert call.text == "[Kin Boss] Rome"
        return Reply(tool_calls=[("report_to_parent", {"message": "Flight to Rome booked."})])

    script.behaviours.update(Boss=boss)
    script.behaviours["Boss/sub"] = sub
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Book me a flight.")
            report = await wait_for_task_message(stream, boss_id, "task_report")
            task_id = report["task_id"]
            await stream.wait_for(task_ended(task_id))
            await stream.wait_for(turn_ended(report["id"]))

        # 1. the user's message, 3. the question, 5. the report: three turns of the parent;
        # 2. the task, 4. the answer: two turns of the sub-Kin.
        assert script.turns_of("Boss") == [
            "[Nico] Book me a flight.",
            f"[Task Book a flight.] Task {task_id} asks you: Which city?\n"
            f"Answer it with respond_to_task(task_id='{task_id}', answer).",
            f"[Task Book a flight.] Report from task {task_id}:\nFlight to Rome booked.",
        ]
        assert script.turns_of("Boss/sub") == ["[Kin Boss] Book a flight.", "[Kin Boss] Rome"]
        found = await task_of(server.client, task_id)
        assert found["task"]["status"] == "completed"
        assert found["task"]["result"] == "Flight to Rome booked."
        assert found["task"]["input_requests"] == 1 and not found["task"]["awaiting_input"]
        # The completion itself reached Boss as a note, without a fourth turn.
        messages = await session(server.client, boss_id)
        kinds = [(m["kin_message_type"], m["status"]) for m in from_tasks(messages)]
        assert kinds == [
            ("task_input", "done"),
            ("task_report", "done"),
            ("task_result", "done"),
        ]
        # A person reads the question alone, without the task's id or the model's instruction.
        (asked,) = [m for m in from_tasks(messages) if m["kin_message_type"] == "task_input"]
        assert asked["meta"] == {"question": "Which city?"}
        answered = json.loads(tool_results(messages, "respond_to_task")[0]["content"])
        assert answered == {"task_id": task_id, "status": "in_progress", "answered": True}
        # The sub-Kin was told its task and its tools; the parent was not offered them.
        sub_request = script.of("Boss/sub")[0].request.body
        assert f"## Your task ({task_id})\nBook a flight." in sub_request["messages"][0]["content"]
        sub_tools = {tool["function"]["name"] for tool in sub_request["tools"]}
        boss_tools = {
            tool["function"]["name"] for tool in script.of("Boss")[0].request.body["tools"]
        }
        assert {"report_to_parent", "request_input", "update_task_status"} <= sub_tools
        assert not {"report_to_parent", "request_input"} & boss_tools
        assert {"spawn_self", "respond_to_task", "cancel_task", "list_tasks"} <= boss_tools


async def test_request_input_is_capped(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script

    def boss(call: Call) -> Reply:
        if call.text.startswith("[Nico"):
            return spawn(task_description="Plan the menu.")
        if "asks you" in call.text:
            task_id = task_id_in(call.text)
            return Reply(tool_calls=[("respond_to_task", {"task_id": task_id, "answer": "Fish"})])
        return Reply(text="OK.")

    script.behaviours["Boss"] = boss
    script.behaviours["Boss/sub"] = lambda call: Reply(
        tool_calls=[("request_input", {"question": f"Question after {call.text!r}?"})]
    )
    # Refused a second question, the sub-Kin goes on with what it has.
    script.behaviours["Boss/sub:tool"] = lambda call: (
        Reply(text="Menu: fish and rice.") if "Refused" in call.text else Reply(text="Waiting.")
    )
    async with serve_with_openai(data_dir, fake_llm, task_max_request_input=1) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Plan dinner.")
            result = await wait_for_task_message(stream, boss_id, "task_result")
            await stream.wait_for(turn_ended(result["id"]))
        task_id = result["task_id"]
        assert result["content"] == f"Task {task_id} completed. Result:\nMenu: fish and rice."
        found = await task_of(server.client, task_id)
        assert found["task"]["input_requests"] == 1
        asked = tool_results(found["messages"], "request_input")
        assert [m["is_error"] for m in asked] == [False, True]
        assert json.loads(asked[0]["content"])["questions_left"] == 0
        assert "asked your parent 1 questions, the most a task may" in asked[1]["content"]
        questions = [m for m in from_tasks(await session(server.client, boss_id))]
        assert [m["kin_message_type"] for m in questions] == ["task_input", "task_result"]


async def test_spawning_stops_at_the_depth_limit(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: (
        spawn(task_description="level 1") if call.text.startswith("[Nico") else Reply(text="Ok.")
    )

    def sub(call: Call) -> Reply:
        level = re.search(r"\] level (\d)$", call.text)
        if level:
            return spawn(task_description=f"level {int(level.group(1)) + 1}")
        return Reply(text=f"Done below: {call.text[-40:]}")

    script.behaviours["Boss/sub"] = sub
    script.behaviours["Boss/sub:tool"] = lambda call: Reply(
        text="Too deep, stopping here." if "Refused" in call.text else "Waiting for my sub-Kin."
    )
    async with serve_with_openai(data_dir, fake_llm) as server:  # task_max_depth defaults to 3
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Go deep.")
            result = await wait_for_task_message(stream, boss_id, "task_result")
            await stream.wait_for(turn_ended(result["id"]))
        tasks = (await server.client.get("/api/tasks")).json()["tasks"]
        assert sorted(t["depth"] for t in tasks) == [1, 2, 3]
        assert {t["status"] for t in tasks} == {"completed"}
        deepest = next(t for t in tasks if t["depth"] == 3)
        assert deepest["result"] == "Too deep, stopping here."
        (refused,) = tool_results(
            (await task_of(server.client, deepest["id"]))["messages"], "spawn_self"
        )
        assert refused["is_error"]
        assert (
            "sub-Kins may only go 3 levels deep and this one would be level 4"
            in (refused["content"])
        )
        # Each level's result went to the level above, which then completed in turn.
        by_depth = {t["depth"]: t for t in tasks}
        assert by_depth[2]["parent_kin_id"] == by_depth[1]["session_kin_id"]
        assert by_depth[3]["parent_task_id"] == by_depth[2]["id"]


async def test_extra_tasks_wait_as_pending_for_a_free_slot(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: (
        Reply(
            tool_calls=[
                ("spawn_self", {"task_description": f"Job {n}", "mode": "async"}) for n in (1, 2, 3)
            ]
        )
        if call.text.startswith("[Nico")
        else Reply(text="Ok.")
    )
    script.behaviours["Boss/sub"] = lambda call: Reply(text=f"{call.text[-5:]} done.", delay=0.2)
    async with serve_with_openai(data_dir, fake_llm, task_max_concurrent=1) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Three jobs.")
            await stream.wait_for(
                lambda e: (
                    sum(
                        t.data["task"]["status"] == "completed"
                        for t in stream.of_type("task.updated")
                    )
                    == 3
                )
            )
            updates = [e.data["task"] for e in stream.of_type("task.updated")]
        spawned = json.loads(
            tool_results(await session(server.client, boss_id), "spawn_self")[1]["content"]
        )
        assert spawned["status"] == "pending" and "free slot" in spawned["next"]
        # Never two in progress at once: each task starts after the previous one ended.
        tasks = sorted(
            (await server.client.get("/api/tasks")).json()["tasks"], key=lambda t: t["created_at"]
        )
        assert [t["description"] for t in tasks] == ["Job 1", "Job 2", "Job 3"]
        for earlier, later in itertools.pairwise(tasks):
            assert later["started_at"] >= earlier["ended_at"]
        running: set[str] = set()
        most = 0
        for update in updates:
            if update["status"] == "in_progress":
                running.add(update["id"])
            elif update["status"] in ("completed", "failed", "cancelled"):
                running.discard(update["id"])
            most = max(most, len(running))
        assert most == 1


async def test_a_user_cancels_a_running_task(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: (
        spawn(task_description="A long job.")
        if call.text.startswith("[Nico")
        else Reply(text="Ok.")
    )
    script.behaviours["Boss/sub"] = lambda call: Reply(text="Never finished.", delay=30)
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Start the long job.")
            started = await stream.wait_for(
                lambda e: (
                    e.type == "kin.state"
                    and e.data["state"] == "thinking"
                    and e.data["kin_id"] != boss_id
                )
            )
            tasks = (await server.client.get("/api/tasks?status=active")).json()["tasks"]
            (task,) = tasks
            assert task["session_kin_id"] == started.data["kin_id"]
            async with httpx.AsyncClient(base_url=server.url) as stranger:
                assert (await stranger.post(f"/api/tasks/{task['id']}/cancel")).status_code == 401
                assert (await stranger.get("/api/tasks")).status_code == 401
            cancelled = await server.client.post(f"/api/tasks/{task['id']}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            assert cancelled.json()["task"]["status"] == "cancelled"
            # The UI words the reason from its code.
            assert cancelled.json()["task"]["error_code"] == "task_cancelled_by_user"
            assert cancelled.json()["task"]["error_detail"] is None
            note = await wait_for_task_message(stream, boss_id, "task_cancelled", status="done")
            await stream.wait_for(
                lambda e: (
                    e.type == "message.status"
                    and e.data["kin_id"] == task["session_kin_id"]
                    and e.data["status"] == "cancelled"
                )
            )
        assert note["content"] == f"Task {task['id']} was cancelled. Cancelled by a user."
        again = await server.client.post(f"/api/tasks/{task['id']}/cancel")
        assert again.status_code == 409 and "already ended" in again.json()["error"]["message"]
        assert again.json()["error"]["code"] == "task_ended"
        assert again.json()["error"]["details"] == {"state": "cancelled"}
        assert (await server.client.get("/api/tasks/task_nope")).status_code == 404
        assert (await server.client.get("/api/tasks?status=bogus")).status_code == 400
        # The sub-Kin's stopped turn left its task message cancelled, and nothing else.
        found = await task_of(server.client, task["id"])
        assert [(m["role"], m["status"]) for m in found["messages"]] == [("user", "cancelled")]


async def test_a_task_that_ended_before_codes_existed_still_says_why(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    """Tasks that ended before migration 0018 have no ``error_code`` in the database: one of
    the fixed sentences of that time gets its code, any other reason shows as the detail,
    without this machine's addresses or a class name; the stored sentence stays ``error``."""
    from kinbot_core.db.models import TaskRecord

    old_failure = (
        "Boss/sub could not answer: The server at http://127.0.0.1:5599/v1 failed "
        "unexpectedly (ClientResponseError). See https://status.example.com"
    )
    ends = {
        "task_old0": ("failed", old_failure),
        "task_old1": ("cancelled", "Cancelled by a user."),
        "task_old2": ("failed", RESTART_FAILURE),
        "task_old3": ("failed", None),
    }
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")

        def insert() -> None:
            for task_id, (status, error) in ends.items():
                TaskRecord.create(
                    id=task_id, parent_kin=boss_id, kin=boss_id, title="Old job",
                    description="An old job.", mode="await", model="gpt-4o", status=status,
                    depth=1, error=error,
                )  # fmt: skip

        await server.platform.db.write(insert)
        stored = await server.platform.db.read(
            lambda: [(row.error_code, row.error_detail) for row in TaskRecord.select()]
        )
        assert stored == [(None, None)] * 4  # as a database from before 0018 has them

        async def end_of(task_id: str) -> tuple[str | None, str | None]:
            task = (await task_of(server.client, task_id))["task"]
            assert task["error"] == ends[task_id][1]  # the stored sentence, for API clients
            return task["error_code"], task["error_detail"]

        assert await end_of("task_old0") == (
            None,
            "Boss/sub could not answer: The server at [address] failed unexpectedly. "
            "See https://status.example.com",
        )
        assert await end_of("task_old1") == ("task_cancelled_by_user", None)
        assert await end_of("task_old2") == ("task_restarted", None)
        assert await end_of("task_old3") == (None, None)
        listed = (await server.client.get("/api/tasks?status=failed")).json()["tasks"]
        assert {t["id"]: t["error_code"] for t in listed} == {
            "task_old0": None,
            "task_old2": "task_restarted",
            "task_old3": None,
        }


async def test_the_parent_cancels_and_lists_its_tasks(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script

    def boss(call: Call) -> Reply:
        if call.text.endswith("Start."):
            return spawn(task_description="Slow work.", mode="async")
        if call.text.endswith("Stop it."):
            return Reply(tool_calls=[("list_tasks", {})])
        return Reply(text="Ok.")

    def boss_after_tool(call: Call) -> Reply:
        listed = json.loads(call.text) if call.text.startswith("[") else None
        if listed:
            return Reply(tool_calls=[("cancel_task", {"task_id": listed[0]["task_id"]})])
        return Reply(text="Done.")

    script.behaviours["Boss"] = boss
    script.behaviours["Boss:tool"] = boss_after_tool
    script.behaviours["Boss/sub"] = lambda call: Reply(text="Never.", delay=30)
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            first = await tell(server.client, boss_id, "Start.")
            await stream.wait_for(turn_ended(first))
            second = await tell(server.client, boss_id, "Stop it.")
            event = await stream.wait_for(task_ended())
            await stream.wait_for(turn_ended(second))
        assert event.data["task"]["status"] == "cancelled"
        assert event.data["task"]["error"] == "Cancelled by its parent."
        assert event.data["task"]["error_code"] == "task_cancelled_by_parent"
        messages = await session(server.client, boss_id)
        (listing,) = tool_results(messages, "list_tasks")
        assert json.loads(listing["content"]) == [
            {
                "task_id": event.data["task"]["id"],
                "title": "Slow work.",
                "mode": "async",
                "status": "in_progress",
                "waiting_for_your_answer": False,
            }
        ]
        (cancel,) = tool_results(messages, "cancel_task")
        assert json.loads(cancel["content"])["status"] == "cancelled"


async def test_a_failing_sub_kin_fails_its_task_and_tells_the_parent(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: (
        spawn(task_description="Do it.") if call.text.startswith("[Nico") else Reply(text="Pity.")
    )
    script.behaviours["Boss/sub"] = lambda call: Reply(
        status=503, error_message="The model is overloaded."
    )
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Try it.")
            failure = await wait_for_task_message(stream, boss_id, "task_failed")
            await stream.wait_for(turn_ended(failure["id"]))
        task_id = failure["task_id"]
        found = await task_of(server.client, task_id)
        assert found["task"]["status"] == "failed"
        assert "overloaded" in found["task"]["error"]
        # The UI words the failure from the turn's code; the provider's words are the detail.
        assert found["task"]["error_code"] == "provider_failed"
        assert found["task"]["error_detail"] == "The model is overloaded."
        assert failure["content"] == f"Task {task_id} failed: {found['task']['error']}"
        # In await mode the failure started a turn of the parent.
        assert script.turns_of("Boss")[-1].startswith(f"[Task Do it.] Task {task_id} failed:")


class Veto:
    """A plugin refusing spawns whose description mentions money."""

    @hookimpl
    def on_task_spawn(self, kin: Any, task: Any) -> None:
        if "money" in task.description:
            raise HookVeto("no spending")


async def test_on_task_spawn_may_refuse(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: spawn(task_description="Spend money.")
    async with serve_with_openai(data_dir, fake_llm, plugins=(Veto(),)) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            turn = await tell(server.client, boss_id, "Buy it.")
            await stream.wait_for(turn_ended(turn))
        (refused,) = tool_results(await session(server.client, boss_id), "spawn_self")
        assert refused["is_error"]
        assert refused["content"] == "Refused (test_plugin_0): no spending"
        assert (await server.client.get("/api/tasks")).json()["tasks"] == []


async def test_tasks_in_flight_resume_or_fail_after_a_restart(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    script.behaviours["Boss"] = lambda call: (
        Reply(
            tool_calls=[
                ("spawn_self", {"task_description": "Half done", "mode": "async"}),
                ("spawn_self", {"task_description": "Not begun", "mode": "async"}),
                ("spawn_self", {"task_description": "Still pending", "mode": "async"}),
            ]
        )
        if call.text.startswith("[Nico")
        else Reply(text="Ok.")
    )
    # "Half done" runs a tool, then hangs; "Not begun" hangs on its first call.
    script.behaviours["Boss/sub"] = lambda call: (
        Reply(tool_calls=[("list_tasks", {})])
        if call.text.endswith("Half done")
        else Reply(text="Never.", delay=30)
    )
    script.behaviours["Boss/sub:tool"] = lambda call: Reply(text="Never.", delay=30)
    settings: dict[str, Any] = {"task_max_concurrent": 2, "shutdown_grace_seconds": 0.2}
    async with serve_with_openai(data_dir, fake_llm, **settings) as server:
        boss_id = await make_kin(server.client, "Boss")
        async with sse_stream(server.client) as stream:
            turn = await tell(server.client, boss_id, "Three jobs.")
            await stream.wait_for(turn_ended(turn))
            await stream.wait_for(
                lambda e: (
                    e.type == "kin.tool"
                    and e.data["name"] == "list_tasks"
                    and e.data["status"] == "done"
                )
            )
        before = {
            t["description"]: t for t in (await server.client.get("/api/tasks")).json()["tasks"]
        }
        assert [before[d]["status"] for d in ("Half done", "Not begun", "Still pending")] == [
            "in_progress",
            "in_progress",
            "pending",
        ]

    # After the restart the models answer at once.
    script.behaviours["Boss/sub"] = lambda call: Reply(
        text=f"Finished: {call.text.split('] ', 1)[1]}"
    )
    script.behaviours["Boss/sub:tool"] = lambda call: Reply(text="Finished after a tool.")
    async with serve_with_openai(data_dir, fake_llm, first_start=False, **settings) as server:
        # Recovery ran before the server answered: poll, the events may be gone already.
        async with asyncio.timeout(20):
            while True:
                listed = (await server.client.get("/api/tasks")).json()["tasks"]
                after = {t["description"]: t for t in listed}
                delivered = from_tasks(await session(server.client, boss_id))
                if all(t["ended_at"] for t in listed) and len(delivered) == 3:
                    break
                await asyncio.sleep(0.05)
        assert after["Half done"]["status"] == "failed"
        assert after["Half done"]["error"] == RESTART_FAILURE
        assert after["Half done"]["error_code"] == "task_restarted"
        assert after["Not begun"]["error_code"] is None
        assert after["Not begun"]["status"] == "completed"
        assert after["Not begun"]["result"] == "Finished: Not begun"
        assert after["Still pending"]["status"] == "completed"
        notes = [m["content"] for m in from_tasks(await session(server.client, boss_id))]
        assert f"Task {before['Half done']['id']} failed: {RESTART_FAILURE}" in notes
        assert len(notes) == 3


async def test_spawn_kin_takes_the_other_kins_identity_and_dies_with_its_parent(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = Script()
    fake_llm.responder = script
    ids: dict[str, str] = {}
    script.behaviours["Boss"] = lambda call: (
        spawn("spawn_kin", kin_id=ids["Chef"], task_description="Plan a menu.", mode="async")
        if call.text.startswith("[Nico")
        else Reply(text="Ok.")
    )
    script.behaviours["Chef/sub"] = lambda call: Reply(text="Still thinking.", delay=30)
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss_id = await make_kin(server.client, "Boss")
        ids["Chef"] = await make_kin(server.client, "Chef")
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss_id, "Ask Chef for a menu.")
            await stream.wait_for(
                lambda e: (
                    e.type == "kin.state"
                    and e.data["state"] == "thinking"
                    and e.data["kin_id"] not in (boss_id, ids["Chef"])
                )
            )
        (task,) = (await server.client.get("/api/tasks")).json()["tasks"]
        assert (task["kin_id"], task["parent_kin_id"]) == (ids["Chef"], boss_id)
        async with asyncio.timeout(10):
            while True:  # the model call follows the state change
                if script.of("Chef/sub"):
                    break
                await asyncio.sleep(0.02)
        (first,) = script.of("Chef/sub")
        assert (
            "You are Chef, Helper, working as an ephemeral sub-Kin"
            in (first.request.body["messages"][0]["content"])
        )
        # Deleting the parent takes its tasks and their sub-Kins with it.
        assert (await server.client.delete(f"/api/kins/{boss_id}")).status_code == 204
        assert (await server.client.get("/api/tasks")).json()["tasks"] == []
        assert (
            await server.client.get(f"/api/kins/{task['session_kin_id']}/messages")
        ).status_code == 404
        kins = (await server.client.get("/api/kins")).json()["kins"]
        assert [k["name"] for k in kins] == ["Chef"]

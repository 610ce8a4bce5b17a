"""Scheduled crons over real HTTP and SSE, with a fake OpenAI server standing in for the model:
firing on the platform's clock without a turn of the Kin, a Kin's proposal waiting for a
user's confirmation, missed runs across a restart, the limits, the veto hook, bad input."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from pydantic import ValidationError

from hookspecs import HookVeto
from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.crons import Author, Clock
from kinbot_core.crons.run_records import MISSED_SKIP_REASON
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import make_kin, serve_with_openai, session
from tests.support.server import RunningServer
from tests.support.sse import SseEvent, sse_stream

#: A Monday morning, in UTC (the zone the tests schedule in).
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
NINE = MONDAY.replace(hour=9)


def at(day: int, hour: int, minute: int = 0, second: float = 0.0) -> datetime:
    """A time of the test's week (day 0 is Monday)."""
    return MONDAY.replace(hour=hour, minute=minute) + timedelta(days=day, seconds=second)


@dataclass(frozen=True)
class Call:
    """One chat request of the fake model: which Kin (``Alpha/sub`` for a sub-Kin)."""

    kin: str
    last: dict[str, Any]
    request: RecordedRequest

    @property
    def tool_names(self) -> set[str]:
        return {tool["function"]["name"] for tool in self.request.body.get("tools", [])}


class Script:
    """Answers each chat request with the behaviour of the Kin (or sub-Kin) calling; after a
    tool result, a short closing text."""

    def __init__(self) -> None:
        self.behaviours: dict[str, Callable[[Call], Reply]] = {}
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
            return Reply(text="Done.")
        return self.behaviours[kin](call)

    def of(self, kin: str) -> list[Call]:
        return [call for call in self.calls if call.kin == kin]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def clock() -> Clock:
    clock = Clock()
    clock.set(MONDAY)
    return clock


async def create_cron(client: httpx.AsyncClient, kin_id: str, **fields: Any) -> dict[str, Any]:
    body = {
        "name": "Morning news",
        "schedule": "0 9 * * *",
        "task_description": "Summarise the news in one line.",
        "kin_id": kin_id,
        **fields,
    }
    response = await client.post("/api/crons", json=body)
    assert response.status_code == 201, response.text
    cron: dict[str, Any] = response.json()["cron"]
    return cron


async def cron_and_runs(
    client: httpx.AsyncClient, cron_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    response = await client.get(f"/api/crons/{cron_id}")
    assert response.status_code == 200, response.text
    body = response.json()
    return body["cron"], body["runs"]


def serve(
    data_dir: Path, fake: FakeOpenAI, clock: Clock, **options: Any
) -> AbstractAsyncContextManager[RunningServer]:
    """The platform on the test's clock, cron schedules in UTC unless said otherwise."""
    options.setdefault("cron_timezone", "UTC")
    return serve_with_openai(data_dir, fake, clock=clock, **options)


def cron_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["source"] == "cron"]


def run_ended(cron_id: str) -> Callable[[SseEvent], bool]:
    return lambda e: e.type == "cron.execution.completed" and e.data["cron_id"] == cron_id


async def wait_for_runs(
    client: httpx.AsyncClient, cron_id: str, done: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """Poll the cron's runs until ``done`` says so (for work started before a stream could
    be opened: at start-up)."""
    async with asyncio.timeout(20):
        while True:
            _, runs = await cron_and_runs(client, cron_id)
            if done(runs):
                return runs
            await asyncio.sleep(0.05)


class CronEvents:
    """A plugin recording the cron events of the bus."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    @hookimpl
    def register_events(self, subscribe: Any) -> None:
        subscribe("cron.*", lambda event: self.seen.append((event.type, event.payload())))


# -- firing ----------------------------------------------------------------------------------


async def test_a_cron_fires_on_the_clock_and_its_result_lands_without_a_turn(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script, events = Script(), CronEvents()
    script.behaviours["Alpha/sub"] = lambda call: Reply(text="Headlines: all quiet.")
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock, plugins=(events,)) as server:
        alpha = await make_kin(server.client, "Alpha")
        cron = await create_cron(server.client, alpha)
        assert cron["state"] == "active" and cron["active"] is True
        assert cron["next_run_at"] == NINE.timestamp()
        assert cron["created_by_user_id"] and cron["confirmed_by"]

        async with sse_stream(server.client) as stream:
            clock.set(at(0, 8, 59, 59.5))  # half a second before nine
            ended = await stream.wait_for(run_ended(cron["id"]))
            triggered = [e.data for e in stream.of_type("cron.triggered")]
        assert ended.data["status"] == "completed"
        assert triggered == [
            {"cron_id": cron["id"], "kin_id": alpha, "scheduled_for": NINE.timestamp()}
        ]

        messages = await session(server.client, alpha)
        (result,) = cron_messages(messages)
        assert result["role"] == "user" and result["status"] == "done"
        assert result["sender_name"] == "Morning news"
        assert "Headlines: all quiet." in result["content"]
        # No turn of Alpha: the only model calls are its sub-Kin's, and nothing answered.
        assert [m for m in messages if m["role"] == "assistant"] == []
        assert script.of("Alpha") == []
        (sub_call,) = script.of("Alpha/sub")
        assert "Summarise the news in one line." in str(sub_call.request.body["messages"])
        assert not sub_call.tool_names & {"create_cron", "update_cron", "list_crons"}

        cron, runs = await cron_and_runs(server.client, cron["id"])
        (run,) = runs
        assert run["scheduled_for"] == NINE.timestamp() and run["status"] == "completed"
        assert run["missed"] is False and run["task_id"] == cron["last_task_id"]
        assert cron["last_run_status"] == "completed"
        assert cron["last_scheduled_for"] == NINE.timestamp()
        assert cron["next_run_at"] == at(1, 9).timestamp()
        task = await server.client.get(f"/api/tasks/{run['task_id']}")
        assert task.status_code == 200, task.text
        assert task.json()["task"]["cron_id"] == cron["id"]
    # The bus delivered everything before the platform stopped.
    assert [kind for kind, _ in events.seen] == [
        "cron.created",
        "cron.triggered",
        "cron.execution.completed",
    ]
    assert events.seen[2][1] == {
        "cron_id": cron["id"],
        "task_id": run["task_id"],
        "status": "completed",
    }


async def test_a_kin_proposed_cron_stays_inactive_until_a_user_confirms_it(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script = Script()
    proposal = {
        "name": "Plants",
        "schedule": "0 9 * * *",
        "task_description": "Remind me which plants to water today.",
    }
    script.behaviours["Alpha"] = lambda call: Reply(tool_calls=[("create_cron", proposal)])
    script.behaviours["Alpha/sub"] = lambda call: Reply(text="Water the fern.")
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        async with sse_stream(server.client) as stream:
            sent = await server.client.post(
                f"/api/kins/{alpha}/messages", json={"content": "Remind me daily."}
            )
            turn = sent.json()["message"]["id"]
            await stream.wait_for(
                lambda e: (
                    e.type == "message.status"
                    and e.data.get("id") == turn
                    and e.data.get("status") == "done"
                )
            )
            created = [e.data["cron"] for e in stream.of_type("cron.created")]
        assert "create_cron" in script.of("Alpha")[0].tool_names
        (listed,) = (await server.client.get("/api/crons", params={"kin_id": alpha})).json()[
            "crons"
        ]
        assert [c["id"] for c in created] == [listed["id"]]
        assert listed["state"] == "awaiting_confirmation" and listed["active"] is False
        assert listed["created_by_kin_id"] == alpha and listed["created_by_user_id"] is None
        assert listed["next_run_at"] is None  # no timer armed
        tool_result = [m for m in await session(server.client, alpha) if m["role"] == "tool"]
        assert "must confirm" in tool_result[0]["content"]

        confirmed = await server.client.post(f"/api/crons/{listed['id']}/confirm")
        assert confirmed.status_code == 200, confirmed.text
        cron = confirmed.json()["cron"]
        assert cron["state"] == "active" and cron["confirmed_by"] is not None
        assert cron["next_run_at"] == NINE.timestamp()
        again = await server.client.post(f"/api/crons/{listed['id']}/confirm")
        assert again.status_code == 409

        async with sse_stream(server.client) as stream:
            clock.set(at(0, 8, 59, 59.5))
            await stream.wait_for(run_ended(cron["id"]))
        (result,) = cron_messages(await session(server.client, alpha))
        assert result["sender_name"] == "Plants" and "Water the fern." in result["content"]
        assert len(script.of("Alpha")) == 2  # the proposal turn only (call, then closing)


# -- missed runs -------------------------------------------------------------------------------


async def test_a_run_missed_while_down_runs_once_at_start_up(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script = Script()
    script.behaviours["Alpha/sub"] = lambda call: Reply(text="Caught up.")
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        cron = await create_cron(server.client, alpha)
    # Down through Monday's and Tuesday's nine o'clock.
    clock.set(at(1, 9, 30))
    async with serve(data_dir, fake_llm, clock, first_start=False) as server:
        runs = await wait_for_runs(
            server.client, cron["id"], lambda runs: bool(runs) and runs[0]["status"] != "starting"
        )
        assert len(runs) == 1
        (run,) = runs
        assert run["scheduled_for"] == at(1, 9).timestamp() and run["missed"] is True
        runs = await wait_for_runs(
            server.client, cron["id"], lambda runs: runs[0]["status"] == "completed"
        )
        # The same scheduled time is never handled twice.
        again = await server.platform.crons.scheduler.fire(cron["id"], at(1, 9).timestamp())
        assert again is None
        assert len(cron_messages(await session(server.client, alpha))) == 1
    async with serve(data_dir, fake_llm, clock, first_start=False) as server:
        # A third start has nothing missed: the last run was for the latest time.
        _, runs = await cron_and_runs(server.client, cron["id"])
        assert len(runs) == 1
        cron_now, _ = await cron_and_runs(server.client, cron["id"])
        assert cron_now["next_run_at"] == at(2, 9).timestamp()
    assert len(script.of("Alpha/sub")) == 1 and script.of("Alpha") == []


async def test_with_the_skip_policy_a_missed_run_is_recorded_not_run(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script = Script()
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        cron = await create_cron(server.client, alpha)
    clock.set(at(1, 9, 30))
    async with serve(
        data_dir, fake_llm, clock, first_start=False, cron_missed_run_policy="skip"
    ) as server:
        cron, runs = await cron_and_runs(server.client, cron["id"])
        (run,) = runs
        assert run["status"] == "skipped" and run["missed"] is True
        assert run["scheduled_for"] == at(1, 9).timestamp()
        assert run["skip_reason"] == MISSED_SKIP_REASON
        assert cron["last_skip_reason"] == MISSED_SKIP_REASON
        assert cron["last_run_at"] is None
        assert cron_messages(await session(server.client, alpha)) == []
    assert script.calls == []


async def test_a_run_in_flight_at_a_restart_ends_with_its_task(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script, gate = Script(), Gate()
    script.behaviours["Alpha/sub"] = gate.reply
    fake_llm.responder = script
    try:
        async with serve(data_dir, fake_llm, clock, shutdown_grace_seconds=0.2) as server:
            alpha = await make_kin(server.client, "Alpha")
            cron = await create_cron(server.client, alpha)
            async with sse_stream(server.client) as stream:
                clock.set(at(0, 8, 59, 59.5))
                # The sub-Kin's model call is held: the run is in flight when KinBot stops.
                await stream.wait_for(lambda e: e.type == "cron.triggered")
                await stream.wait_for(
                    lambda e: (
                        e.type == "cron.updated" and e.data["cron"]["last_run_status"] == "running"
                    )
                )
            _, runs = await cron_and_runs(server.client, cron["id"])
            assert [r["status"] for r in runs] == ["running"]
    finally:
        gate.event.set()
    async with serve(data_dir, fake_llm, clock, first_start=False) as server:
        runs = await wait_for_runs(
            server.client, cron["id"], lambda runs: runs[0]["status"] not in ("running",)
        )
        (run,) = runs
        task = (await server.client.get(f"/api/tasks/{run['task_id']}")).json()["task"]
        # Resumed and completed, or failed with the reason: never left hanging.
        assert run["status"] == task["status"] and run["status"] in ("completed", "failed")
        cron_now, _ = await cron_and_runs(server.client, cron["id"])
        assert cron_now["last_run_status"] == run["status"]
        # Nine o'clock was handled before the restart: it is not a missed run.
        assert cron_now["next_run_at"] == at(1, 9).timestamp()


# -- limits ------------------------------------------------------------------------------------


async def test_active_crons_are_limited(data_dir: Path, fake_llm: FakeOpenAI, clock: Clock) -> None:
    async with serve(data_dir, fake_llm, clock, cron_max_active=1) as server:
        alpha = await make_kin(server.client, "Alpha")
        await create_cron(server.client, alpha)
        body = {
            "name": "Evening",
            "schedule": "0 18 * * *",
            "task_description": "Plan tomorrow.",
            "kin_id": alpha,
        }
        refused = await server.client.post("/api/crons", json=body)
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "cron_limit"
        assert "cron_max_active" in refused.json()["error"]["message"]
        paused = await create_cron(server.client, alpha, active=False)
        assert paused["state"] == "inactive" and paused["next_run_at"] is None
        activate = await server.client.patch(f"/api/crons/{paused['id']}", json={"active": True})
        assert activate.status_code == 409
        # A Kin's proposal can be made, but not confirmed past the limit.
        proposal = await server.platform.crons.create(
            {"name": "P", "schedule": "0 7 * * *", "task_description": "Stretch."},
            Author("kin", alpha),
        )
        confirm = await server.client.post(f"/api/crons/{proposal.id}/confirm")
        assert confirm.status_code == 409
        listed = (await server.client.get("/api/crons")).json()["crons"]
        assert [c["state"] for c in listed] == ["active", "inactive", "awaiting_confirmation"]


class Gate:
    """Holds the sub-Kins' model calls until opened, so that runs stay in progress."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def reply(self, call: Call) -> Reply:
        self.event.wait(20)
        return Reply(text="Finished.")


async def test_a_cron_never_overlaps_itself_and_concurrent_runs_are_limited(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script, gate = Script(), Gate()
    script.behaviours["Alpha/sub"] = gate.reply
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock, cron_max_concurrent_runs=1) as server:
        scheduler = server.platform.crons.scheduler
        try:
            alpha = await make_kin(server.client, "Alpha")
            first = await create_cron(server.client, alpha)
            second = await create_cron(server.client, alpha, name="Second")
            async with sse_stream(server.client) as stream:
                assert await scheduler.fire(first["id"], at(0, 9).timestamp()) is not None
                # Its run is in progress (held): the next time of the same cron is skipped…
                assert await scheduler.fire(first["id"], at(1, 9).timestamp()) is None
                # …and another cron's run is skipped too: one run at a time platform-wide.
                assert await scheduler.fire(second["id"], at(0, 9).timestamp()) is None
                await stream.wait_for(
                    lambda e: e.type == "cron.skipped" and e.data["cron_id"] == second["id"]
                )
                skipped = [e.data for e in stream.of_type("cron.skipped")]
                gate.event.set()
                await stream.wait_for(run_ended(first["id"]))
        finally:
            gate.event.set()
        assert [s["cron_id"] for s in skipped] == [first["id"], second["id"]]
        cron, runs = await cron_and_runs(server.client, first["id"])
        assert [(r["status"], r["skip_reason"]) for r in runs] == [
            ("skipped", "Its previous run was still going."),
            ("completed", None),
        ]
        assert cron["last_skip_reason"] == "Its previous run was still going."
        cron, runs = await cron_and_runs(server.client, second["id"])
        (run,) = runs
        assert run["status"] == "skipped"
        assert "cron_max_concurrent_runs" in run["skip_reason"]
        assert "cron_max_concurrent_runs" in cron["last_skip_reason"]
        # Once the run ended, the cron runs again.
        assert await scheduler.fire(second["id"], at(2, 9).timestamp()) is not None


# -- the veto hook -----------------------------------------------------------------------------


class QuietMornings:
    """Vetoes every cron run."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    @hookimpl
    def on_cron_trigger(self, kin: Any, cron: Any) -> None:
        self.seen.append((kin.name, cron.name, cron.schedule))
        raise HookVeto("quiet mornings")


async def test_on_cron_trigger_can_skip_a_run_and_the_reason_is_recorded(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script, veto = Script(), QuietMornings()
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock, plugins=(veto,)) as server:
        alpha = await make_kin(server.client, "Alpha")
        cron = await create_cron(server.client, alpha)
        async with sse_stream(server.client) as stream:
            clock.set(at(0, 8, 59, 59.5))
            skipped = await stream.wait_for(lambda e: e.type == "cron.skipped")
            await stream.wait_for(
                lambda e: (
                    e.type == "cron.updated" and e.data["cron"]["last_skip_reason"] is not None
                )
            )
        reason = "Vetoed by test_plugin_0: quiet mornings"
        assert skipped.data == {"cron_id": cron["id"], "kin_id": alpha, "reason": reason}
        assert veto.seen == [("Alpha", "Morning news", "0 9 * * *")]
        cron, runs = await cron_and_runs(server.client, cron["id"])
        assert cron["last_skip_reason"] == reason and cron["last_run_at"] is None
        assert [(r["status"], r["skip_reason"]) for r in runs] == [("skipped", reason)]
        assert cron["next_run_at"] == at(1, 9).timestamp()
    assert script.calls == []


# -- zones and bad input -----------------------------------------------------------------------


async def test_a_cron_schedules_in_its_own_time_zone(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        tokyo = await create_cron(server.client, alpha, timezone="Asia/Tokyo")
        # Monday 08:00 UTC is 17:00 in Tokyo: the next 9:00 there is Tuesday's.
        expected = datetime(2026, 3, 3, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo")).timestamp()
        assert tokyo["next_run_at"] == expected
        back = await server.client.patch(f"/api/crons/{tokyo['id']}", json={"timezone": None})
        assert back.json()["cron"]["timezone"] is None
        assert back.json()["cron"]["next_run_at"] == NINE.timestamp()
        seconds = await create_cron(server.client, alpha, schedule="30 0 9 * * *")
        assert seconds["next_run_at"] == NINE.timestamp() + 30


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"schedule": "every morning"}, 400, "5 fields"),
        ({"schedule": "61 9 * * *"}, 400, "not valid"),
        ({"schedule": "0 9 * * * * *"}, 400, "5 fields"),
        ({"timezone": "Mars/Olympus_Mons"}, 400, "Unknown time zone"),
        ({"kin_id": "no-such-kin"}, 404, "No such Kin"),
        ({"model": "Nowhere/some-model"}, 400, "Nowhere/some-model"),
        ({"name": ""}, 400, "not valid"),
    ],
)
async def test_bad_input_is_refused_with_a_clear_message(
    data_dir: Path,
    fake_llm: FakeOpenAI,
    clock: Clock,
    change: dict[str, Any],
    status: int,
    words: str,
) -> None:
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        body = {
            "name": "Morning news",
            "schedule": "0 9 * * *",
            "task_description": "Summarise the news.",
            "kin_id": alpha,
            **change,
        }
        response = await server.client.post("/api/crons", json=body)
        assert response.status_code == status, response.text
        assert words in response.json()["error"]["message"]
        cron = await create_cron(server.client, alpha)
        patched = await server.client.patch(f"/api/crons/{cron['id']}", json=change)
        assert patched.status_code == (400 if change == {"name": ""} else status), patched.text
        assert (await server.client.get("/api/crons")).json()["crons"][0]["schedule"] == (
            "0 9 * * *"
        )


async def test_unknown_crons_and_strangers_are_refused(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    async with serve(data_dir, fake_llm, clock) as server:
        alpha = await make_kin(server.client, "Alpha")
        cron = await create_cron(server.client, alpha)
        for method, path in [
            ("GET", "/api/crons/nope"),
            ("PATCH", "/api/crons/nope"),
            ("DELETE", "/api/crons/nope"),
            ("POST", "/api/crons/nope/confirm"),
        ]:
            response = await server.client.request(method, path, json={"name": "x"})
            assert response.status_code == 404, (method, path, response.text)
        unknown = await server.client.patch(f"/api/crons/{cron['id']}", json={"colour": "red"})
        assert unknown.status_code == 400
        async with server.new_client() as stranger:
            for method, path in [
                ("GET", "/api/crons"),
                ("POST", "/api/crons"),
                ("PATCH", f"/api/crons/{cron['id']}"),
                ("DELETE", f"/api/crons/{cron['id']}"),
            ]:
                response = await stranger.request(method, path, json={})
                assert response.status_code in (401, 403), (method, path)
        deleted = await server.client.delete(f"/api/crons/{cron['id']}")
        assert deleted.status_code == 204
        assert (await server.client.get("/api/crons")).json()["crons"] == []
        assert server.platform.crons.scheduler.next_run_at(cron["id"]) is None
        # A Kin's crons go with it.
        beta = await make_kin(server.client, "Beta")
        betas = await create_cron(server.client, beta)
        assert server.platform.crons.scheduler.next_run_at(betas["id"]) is not None
        async with sse_stream(server.client) as stream:
            assert (await server.client.delete(f"/api/kins/{beta}")).status_code == 204
            await stream.wait_for(
                lambda e: e.type == "cron.deleted" and e.data["cron_id"] == betas["id"]
            )
        assert server.platform.crons.scheduler.next_run_at(betas["id"]) is None
        assert (await server.client.get("/api/crons")).json()["crons"] == []


# -- what a Kin may do -------------------------------------------------------------------------


def tool_call_in(call: Call) -> Reply:
    """The user's message says which tool to call: ``CALL <name> <json arguments>``."""
    found = re.search(r"CALL (\w+) (\{.*\})", call.last["content"])
    assert found, call.last["content"]
    return Reply(tool_calls=[(found.group(1), json.loads(found.group(2)))])


async def test_a_kin_manages_only_its_crons_and_its_changes_need_confirmation(
    data_dir: Path, fake_llm: FakeOpenAI, clock: Clock
) -> None:
    script = Script()
    script.behaviours["Alpha"] = tool_call_in
    fake_llm.responder = script
    async with serve(data_dir, fake_llm, clock) as server:
        alpha, beta = await make_kin(server.client, "Alpha"), await make_kin(server.client, "Beta")
        mine = await create_cron(server.client, alpha)
        theirs = await create_cron(server.client, beta, name="Beta's")

        async def ask(tool: str, **arguments: Any) -> dict[str, Any]:
            async with sse_stream(server.client) as stream:
                sent = await server.client.post(
                    f"/api/kins/{alpha}/messages",
                    json={"content": f"CALL {tool} {json.dumps(arguments)}"},
                )
                turn = sent.json()["message"]["id"]
                await stream.wait_for(
                    lambda e: (
                        e.type == "message.status"
                        and e.data.get("id") == turn
                        and e.data.get("status") in ("done", "failed")
                    )
                )
            (result,) = [
                m
                for m in await session(server.client, alpha)
                if m["role"] == "tool" and m["turn_of"] == turn
            ]
            return result

        listed = await ask("list_crons")
        assert mine["id"] in listed["content"] and theirs["id"] not in listed["content"]

        # Renaming needs no confirmation; a new schedule does.
        await ask("update_cron", cron_id=mine["id"], name="News")
        cron, _ = await cron_and_runs(server.client, mine["id"])
        assert (cron["name"], cron["state"]) == ("News", "active")
        await ask("update_cron", cron_id=mine["id"], schedule="0 8 * * *")
        cron, _ = await cron_and_runs(server.client, mine["id"])
        assert cron["state"] == "awaiting_confirmation" and cron["schedule"] == "0 8 * * *"
        assert cron["next_run_at"] is None
        confirmed = await server.client.post(f"/api/crons/{mine['id']}/confirm")
        assert confirmed.json()["cron"]["next_run_at"] == at(1, 8).timestamp()

        # Pausing is free; resuming is a proposal again.
        await ask("update_cron", cron_id=mine["id"], active=False)
        cron, _ = await cron_and_runs(server.client, mine["id"])
        assert cron["state"] == "inactive"
        await ask("update_cron", cron_id=mine["id"], active=True)
        cron, _ = await cron_and_runs(server.client, mine["id"])
        assert cron["state"] == "awaiting_confirmation"

        # Beta's cron is not Alpha's to touch.
        for tool, arguments in [
            ("update_cron", {"cron_id": theirs["id"], "active": False}),
            ("delete_cron", {"cron_id": theirs["id"]}),
        ]:
            refused = await ask(tool, **arguments)
            assert refused["is_error"] and "only manage the crons" in refused["content"]
        cron, _ = await cron_and_runs(server.client, theirs["id"])
        assert cron["state"] == "active"

        bad = await ask("create_cron", name="X", schedule="daily", task_description="Y")
        assert bad["is_error"] and "5 fields" in bad["content"]
        deleted = await ask("delete_cron", cron_id=mine["id"])
        assert not deleted["is_error"]
        remaining = (await server.client.get("/api/crons")).json()["crons"]
        assert [c["id"] for c in remaining] == [theirs["id"]]


def test_the_cron_settings_are_validated(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir, cron_timezone=" Europe/Paris ")
    assert settings.cron_timezone == "Europe/Paris"
    assert settings.cron_missed_run_policy == "run_once"
    with pytest.raises(ValidationError, match="unknown time zone"):
        load_settings(data_dir=data_dir, cron_timezone="Nowhere/Land")
    with pytest.raises(ValidationError, match="cron_missed_run_policy"):
        load_settings(data_dir=data_dir, cron_missed_run_policy="twice")

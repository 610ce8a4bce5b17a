"""The platform's own time per turn, and how well Kins answer in parallel.

1. One Kin with 10,000 messages in its session (compacted, as it would be in use) and 200
   contacts, a fake LLM answering at once. For each of 100 turns: from the HTTP POST of the
   message to the moment the platform hands the call to the provider layer (``before_chat``),
   and from the provider layer's return (``after_chat``, after the last byte) to the
   turn-done event on SSE. Targets: p50 under 20 ms, p99 under 100 ms.
   Then the same session served by ``kinbot serve`` in its own process: its CPU time per
   turn (user and system, every thread, background work after the turn included), for
   1,000 / 10,000 / 100,000 messages in the session and 10 / 200 / 2,000 contacts. Target:
   5 ms, flat as the session grows. The cases' servers run side by side with the stack
   alone (``benchmarks.turn_floor``: Quart, hypercorn and the provider call, without
   KinBot: the floor under KinBot's figures), one turn of each after the other, so that the
   host's phase of the moment weighs on every figure alike. With ``--profile DIR``, py-spy
   samples each server during the measured turns (``DIR/<case>.txt``: the functions with
   the most samples).
2. 50 Kins each answering one message at once against a fake LLM with 200 ms latency, the
   wall time divided by one Kin's (median of several rounds). Target: 2.0 or below on this
   machine. KinBot runs as ``kinbot serve`` in its own process here and is driven over HTTP
   and SSE by a lean client, as browsers would; its CPU time per turn is printed too
   (``--profile DIR``: py-spy's samples in ``DIR/parallel.txt``).

The fake LLM runs in its own process. Run: ``.venv/bin/python -m benchmarks.turn_overhead``
(``--only cpu`` for the CPU-per-turn grid alone, ``--only cpu1`` for its first case).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchmarks import turn_floor
from benchmarks.fake_process import fake_in_subprocess
from benchmarks.server_process import Ask, ServerProcess, asking, kinbot_in_subprocess
from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.db.models import ContactRecord, MessageRecord
from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend as memory_backend
from kinbot_plugins.memory_extraction.records import ExtractionState
from kinbot_plugins.providers.openai_provider import make_client
from kinbot_web.server import settle_garbage_collector
from tests.support.accounts import set_up_admin
from tests.support.server import running_server
from tests.support.sse import sse_stream

SESSION_MESSAGES = 10_000
CONTACTS = 200
TURNS = 100
#: (messages in the session, contacts) of the CPU-per-turn grid.
GRID = ((10_000, 200), (1_000, 200), (100_000, 200), (10_000, 10), (10_000, 2_000))
CPU_TURNS = 200
PARALLEL_KINS = 50
ROUNDS = 5


class Stopwatch:
    """A plugin noting when each turn reaches and leaves the provider layer."""

    def __init__(self) -> None:
        self.before: list[float] = []
        self.after: list[float] = []

    @hookimpl
    def before_chat(self) -> None:
        self.before.append(time.perf_counter())

    @hookimpl
    def after_chat(self) -> None:
        self.after.append(time.perf_counter())


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def add_provider(client: httpx.AsyncClient, base_url: str) -> None:
    response = await client.post(
        "/api/providers",
        json={"type": "openai", "name": "OpenAI",
              "config": {"api_key": "sk-bench", "base_url": f"{base_url}/v1"}},
    )  # fmt: skip
    assert response.status_code == 201, response.text


async def new_kin(client: httpx.AsyncClient, name: str) -> str:
    response = await client.post("/api/kins", json={"name": name, "model": "gpt-4o"})
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def fill_session(
    platform: Platform, kin_id: str, messages: int = SESSION_MESSAGES, contacts: int = CONTACTS
) -> None:
    def insert() -> None:
        now = time.time()
        rows: list[dict[str, Any]] = []
        for n in range(messages):
            user = n % 2 == 0
            rows.append({
                "kin": kin_id, "role": "user" if user else "assistant",
                "source": "user" if user else "kin", "sender_name": "Nico" if user else "Chef",
                "content": f"message number {n} about recipes and groceries",
                "status": "done", "priority": 0, "position": n + 1, "created_at": now,
            })  # fmt: skip
        for start in range(0, len(rows), 500):
            MessageRecord.insert_many(rows[start : start + 500]).execute()
        # Mined for memories already, as a session in use would be (else the first compacting
        # would mine the whole backlog).
        ExtractionState.insert(kin=kin_id, last_position=messages, updated_at=now).execute()
        ContactRecord.insert_many([
            {"id": uuid.uuid4().hex, "kin": kin_id, "name": f"Contact {n:03d}", "type": "human",
             "created_at": now, "updated_at": now}
            for n in range(contacts)
        ]).execute()  # fmt: skip

    await platform.db.write(insert)


def done(message_id: int) -> Callable[[Any], bool]:
    return lambda e: (
        e.type == "message.status" and e.data["id"] == message_id and e.data["status"] == "done"
    )


async def in_use(
    platform: Platform, client: httpx.AsyncClient, base_url: str, messages: int, contacts: int
) -> str:
    """A Kin with ``messages`` in its session and ``contacts``, brought to where it would be
    in use: compacted (the originals all stay) and its history indexed for search. Returns
    its id; ``client`` is signed in as the administrator."""
    await set_up_admin(client)
    await add_provider(client, base_url)
    kin_id = await new_kin(client, "Chef")
    await fill_session(platform, kin_id, messages, contacts)
    while await platform.compacting.compact(kin_id) is not None:
        pass
    await memory_backend.indexer(platform).catch_up()
    return kin_id


async def overhead(data_dir: Path) -> None:
    stopwatch = Stopwatch()
    platform = Platform(load_settings(data_dir=data_dir, log_level="WARNING"))
    platform.plugins.register(stopwatch, "stopwatch")
    with fake_in_subprocess("openai", 5) as base_url:
        async with running_server(platform) as server:
            kin_id = await in_use(platform, server.client, base_url, SESSION_MESSAGES, CONTACTS)
            settle_garbage_collector()  # as `kinbot serve` does once started
            before_provider: list[float] = []
            after_provider: list[float] = []
            async with sse_stream(server.client) as stream:
                for n in range(TURNS + 5):
                    sent = time.perf_counter()
                    response = await server.client.post(
                        f"/api/kins/{kin_id}/messages", json={"content": f"question {n}"}
                    )
                    message_id = response.json()["message"]["id"]
                    await stream.wait_for(done(message_id))
                    finished = time.perf_counter()
                    if n >= 5:  # warm-up
                        before_provider.append(stopwatch.before[-1] - sent)
                        after_provider.append(finished - stopwatch.after[-1])
    print(
        f"One Kin, {SESSION_MESSAGES} messages in its session, {CONTACTS} contacts, {TURNS} turns"
    )
    for label, values in (
        ("POST -> call handed to the provider", before_provider),
        ("provider returned -> turn done on SSE", after_provider),
    ):
        print(
            f"  {label:<40} p50 {percentile(values, 0.5) * 1000:6.1f} ms   "
            f"p99 {percentile(values, 0.99) * 1000:6.1f} ms   (targets 20 / 100)"
        )


@dataclass(frozen=True)
class Measured:
    """One server of the CPU grid, with the Kin its turns go to; ``data_dir`` is ``None`` for
    the stack alone, which embeds nothing in the background."""

    label: str
    server: ServerProcess
    ask: Ask
    kin_id: str
    data_dir: Path | None


async def kin_in_use(
    data_dir: Path, base_url: str, messages: int, contacts: int
) -> tuple[str, dict[str, str]]:
    """Prepare, in ``data_dir``, the Kin in use of a grid case (``in_use``), for a server
    started on it afterwards; returns its id and the administrator's cookies."""
    platform = Platform(load_settings(data_dir=data_dir, log_level="WARNING"))
    async with running_server(platform) as prepared:
        kin_id = await in_use(platform, prepared.client, base_url, messages, contacts)
        return kin_id, dict(prepared.client.cookies)


async def cpu_per_turn(measured: list[Measured], profile: Path | None) -> list[tuple[float, float]]:
    """The user and system CPU time (ms) each server spends per turn, over ``CPU_TURNS`` turns
    each, one turn of each server after the other: a busy minute of the host weighs on every
    case alike. Each server's whole CPU time from the first measured turn until the last
    turn's messages are embedded counts (every thread, its background work included). With
    ``profile``, py-spy samples each KinBot server (``<case>.txt``)."""
    for n in range(10):  # warm-up (and the compacting the first turns start)
        for case in measured:
            await case.ask(case.kin_id, f"warm-up {n}")
    for case in measured:
        await embedded(case.data_dir)
    samplers = [
        py_spy(case.server.pid, profile / f"{case.data_dir.name}.txt")
        for case in measured
        if profile is not None and case.data_dir is not None
    ]
    before = [case.server.cpu_split() for case in measured]
    for n in range(CPU_TURNS):
        for case in measured:
            await case.ask(case.kin_id, f"question {n}")
    for case in measured:  # the turns' messages are embedded in the background
        await embedded(case.data_dir)
    after = [case.server.cpu_split() for case in measured]
    for sampler in samplers:
        sampler.send_signal(signal.SIGINT)  # py-spy writes its output then
        sampler.wait(timeout=60)
    return [
        ((user - user_before) / CPU_TURNS * 1000, (system - system_before) / CPU_TURNS * 1000)
        for (user_before, system_before), (user, system) in zip(before, after, strict=True)
    ]


async def embedded(data_dir: Path | None) -> None:
    """Wait until the server's history indexer has embedded every message (its queue is
    empty), reading its database file beside it (at once for ``None``: no database)."""
    if data_dir is None:
        return
    uri = f"file:{data_dir / 'kinbot.db'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as database:
        queued = "select count(*) from message_embedding_queue"
        while database.execute(queued).fetchone()[0]:  # noqa: ASYNC110 (another process)
            await asyncio.sleep(0.05)


def py_spy(pid: int, output: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling ``pid`` (every thread, idle ones left out) until terminated; its
    collapsed stacks go to ``output``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    binary = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [str(binary), "record", "--pid", str(pid), "--format", "raw", "--rate", "250",
         "--output", str(output), "--nonblocking"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


async def grid(profile: Path | None, cases: int) -> None:
    print(
        f"kinbot serve's CPU time per turn ({CPU_TURNS} turns each, one of each case after the "
        "other; target 5 ms)"
    )
    with (
        tempfile.TemporaryDirectory() as root,
        fake_in_subprocess("openai", 5) as base_url,
        contextlib.ExitStack() as processes,
    ):
        async with contextlib.AsyncExitStack() as clients:
            prepared = []
            for messages, contacts in GRID[:cases]:
                data_dir = Path(root) / f"{messages}-{contacts}"
                kin_id, cookies = await kin_in_use(data_dir, base_url, messages, contacts)
                label = f"{messages:>7} messages, {contacts:>5} contacts"
                prepared.append((label, data_dir, kin_id, cookies))
            measured = []  # started once all are prepared: none waits idle meanwhile
            for label, data_dir, kin_id, cookies in prepared:
                server = processes.enter_context(kinbot_in_subprocess(data_dir))
                ask = await clients.enter_async_context(asking(server.url, cookies))
                measured.append(Measured(label, server, ask, kin_id, data_dir))
            # The floor under KinBot's figures, in the same minutes (benchmarks.turn_floor).
            bare = processes.enter_context(turn_floor.bare_in_subprocess(base_url, "kinbot"))
            ask = await clients.enter_async_context(asking(bare.url))
            measured.append(Measured(turn_floor.label("kinbot"), bare, ask, "chef", None))
            figures = await cpu_per_turn(measured, profile)
    for case, (user, system) in zip(measured, figures, strict=True):
        print(
            f"  {case.label}: {user + system:5.1f} ms per turn "
            f"(user {user:4.1f}, system {system:4.1f})",
            flush=True,
        )


async def parallel(data_dir: Path, profile: Path | None) -> None:
    with (
        fake_in_subprocess("openai", 5, delay=0.2) as base_url,
        kinbot_in_subprocess(data_dir) as server,
    ):
        url = server.url
        async with httpx.AsyncClient(base_url=url, timeout=30) as setup:
            await set_up_admin(setup)
            await add_provider(setup, base_url)
            kins = [await new_kin(setup, f"Kin {n}") for n in range(PARALLEL_KINS)]
            cookies = dict(setup.cookies)
        async with asking(url, cookies) as ask:
            await asyncio.gather(*(ask(kin_id, "warm-up") for kin_id in kins))
            sampler = py_spy(server.pid, profile / "parallel.txt") if profile else None
            alone, together, cpu = [], [], []
            for _round in range(ROUNDS):
                started = time.perf_counter()
                await ask(kins[0], "alone")
                alone.append(time.perf_counter() - started)
                started, cpu_before = time.perf_counter(), server.cpu_seconds()
                await asyncio.gather(*(ask(kin_id, "all together") for kin_id in kins))
                together.append(time.perf_counter() - started)
                cpu.append((server.cpu_seconds() - cpu_before) / PARALLEL_KINS)
            if sampler is not None:
                sampler.send_signal(signal.SIGINT)
                sampler.wait(timeout=60)
    one, many = statistics.median(alone), statistics.median(together)
    print(f"{PARALLEL_KINS} Kins at once against a 200 ms LLM (median of {ROUNDS} rounds)")
    print(
        f"  one Kin {one * 1000:.0f} ms, {PARALLEL_KINS} Kins {many * 1000:.0f} ms, "
        f"ratio {many / one:.2f} (target 2.0 or below)"
    )
    print(
        f"  KinBot's CPU time per turn in the 50-Kin rounds: {statistics.median(cpu) * 1000:.1f} ms"
    )


async def bare_sdk_baseline() -> None:
    """The same 50-at-once ratio for bare SDK streams (on the transport KinBot gives the
    SDK), for comparison."""
    with fake_in_subprocess("openai", 5, delay=0.2) as base_url:
        client = make_client({"api_key": "sk-bench", "base_url": f"{base_url}/v1"}, 60, None)

        async def one() -> None:
            stream = await client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            async for _chunk in stream:
                pass

        await one()
        started = time.perf_counter()
        await one()
        single = time.perf_counter() - started
        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(PARALLEL_KINS)))
        many = time.perf_counter() - started
        await client.close()
    print(
        f"  for comparison, the bare openai SDK: one stream {single * 1000:.0f} ms, "
        f"{PARALLEL_KINS} at once {many * 1000:.0f} ms, ratio {many / single:.2f}"
    )


async def main(only: str | None, profile: Path | None) -> None:
    if only in (None, "latency"):
        with tempfile.TemporaryDirectory() as first:
            await overhead(Path(first))
    if only in (None, "cpu", "cpu1"):
        await grid(profile, 1 if only == "cpu1" else len(GRID))
    if only in (None, "parallel"):
        with tempfile.TemporaryDirectory() as second:
            await parallel(Path(second), profile)
        await bare_sdk_baseline()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("latency", "cpu", "cpu1", "parallel"))
    parser.add_argument("--profile", type=Path, help="py-spy samples of the server go here")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.only, arguments.profile))

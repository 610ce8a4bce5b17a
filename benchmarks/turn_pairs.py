"""The CPU per turn of two versions of KinBot, measured side by side so that both see the same
host.

On a shared host, two runs of ``turn_overhead`` a few minutes apart differ by more than most
changes worth making (the same code gave 6.5 to 11.7 ms a turn within half an hour). Here two
``kinbot serve`` processes run at once, each from its own source tree, on copies of the same
prepared data (the Kin in use of ``turn_overhead``: 10,000 messages, compacted and indexed,
200 contacts), both pinned to the same CPU and the client to another (``--unpinned``: all
free, as in ``turn_overhead``); their turns alternate,
one of each in turn, so that a busy minute of the host weighs on both alike.

Run, with a checkout of the earlier version in ``../before`` (a ``git worktree``, say)::

    .venv/bin/python -m benchmarks.turn_pairs ../before .

The data is prepared by this checkout: the earlier tree must read the same schema (across a
migration, compare with two checkouts of the same schema). Each version's CPU time per turn is
printed: the whole process's (every thread, the background work after the turns included),
and the median and tenth percentile of each turn's own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import tempfile
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path
from typing import Any

import aiohttp

from benchmarks.fake_process import fake_in_subprocess
from benchmarks.server_process import ServerProcess, kinbot_in_subprocess, sse_events
from benchmarks.turn_overhead import embedded, in_use
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.server import running_server

WARM_UP_TURNS = 10


def thread_cpu_ms(pid: int) -> float:
    """CPU time (ms) every thread of ``pid`` has run so far (``/proc/<pid>/task/*/schedstat``:
    nanoseconds, finer than the clock ticks of ``/proc/<pid>/stat``)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except OSError:  # a thread that ended meanwhile
            continue
    return total / 1e6


def pin(pid: int, cpu: int) -> None:
    """Run every thread of ``pid`` (and the threads they start) on ``cpu`` alone, when this
    machine has more than one."""
    if (os.cpu_count() or 1) < 2:
        return
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task), {cpu})


async def compare(trees: dict[str, Path], turns: int, pinned: bool) -> None:
    with (
        tempfile.TemporaryDirectory() as root,
        fake_in_subprocess("openai", 5) as base_url,
        ExitStack() as servers_stack,
    ):
        prepared_dir = Path(root) / "prepared"
        platform = Platform(load_settings(data_dir=prepared_dir, log_level="WARNING"))
        async with running_server(platform) as prepared:
            kin_id = await in_use(platform, prepared.client, base_url, 10_000, 200)
            cookies = dict(prepared.client.cookies)
        servers: dict[str, tuple[ServerProcess, Path]] = {}
        for name, tree in trees.items():
            data_dir = Path(root) / name
            shutil.copytree(prepared_dir, data_dir)
            server = servers_stack.enter_context(kinbot_in_subprocess(data_dir, tree))
            if pinned:
                pin(server.pid, 1)
            servers[name] = (server, data_dir)
        if pinned:
            pin(os.getpid(), 0)
        done: dict[str, dict[int, asyncio.Event]] = {name: {} for name in servers}
        async with AsyncExitStack() as stack:
            sessions = {}
            for name, (server, _) in servers.items():
                jar = aiohttp.CookieJar(unsafe=True)
                session = aiohttp.ClientSession(cookie_jar=jar, cookies=cookies)
                sessions[name] = await stack.enter_async_context(session)

                def on_event(kind: str, data: Any, name: str = name) -> None:
                    if kind == "message.status" and data["status"] == "done":
                        done[name].setdefault(data["id"], asyncio.Event()).set()

                await stack.enter_async_context(sse_events(session, server.url, on_event))

            async def ask(name: str, text: str) -> float:
                server = servers[name][0]
                before = thread_cpu_ms(server.pid)
                url = f"{server.url}/api/kins/{kin_id}/messages"
                async with sessions[name].post(url, json={"content": text}) as response:
                    message_id = (await response.json())["message"]["id"]
                await asyncio.wait_for(done[name].setdefault(message_id, asyncio.Event()).wait(),
                                       120)  # fmt: skip
                return thread_cpu_ms(server.pid) - before

            for n in range(WARM_UP_TURNS):
                for name in servers:
                    await ask(name, f"warm-up {n}")
            for _, data_dir in servers.values():
                await embedded(data_dir)
            start = {name: thread_cpu_ms(server.pid) for name, (server, _) in servers.items()}
            each: dict[str, list[float]] = {name: [] for name in servers}
            for n in range(turns):
                for name in servers:
                    each[name].append(await ask(name, f"question {n}"))
            for _, data_dir in servers.values():
                await embedded(data_dir)
            for name, (server, _) in servers.items():
                whole = (thread_cpu_ms(server.pid) - start[name]) / turns
                own = sorted(each[name])
                print(
                    f"  {name:<7} {trees[name]}: {whole:5.2f} ms a turn with its background "
                    f"work; each turn's own: median {statistics.median(own):5.2f}, "
                    f"p10 {own[turns // 10]:5.2f} ms",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="source tree of the earlier version")
    parser.add_argument("after", type=Path, help="source tree of the later version")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument(
        "--unpinned",
        action="store_true",
        help="leave the servers and the client on every CPU, as turn_overhead does",
    )
    arguments = parser.parse_args()
    print(f"CPU per turn, the two versions' turns alternating ({arguments.turns} turns each)")
    trees = {"before": arguments.before, "after": arguments.after}
    asyncio.run(compare(trees, arguments.turns, pinned=not arguments.unpinned))


if __name__ == "__main__":
    main()

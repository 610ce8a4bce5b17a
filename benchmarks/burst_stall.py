"""The turn right after a burst: 50 Kins answer one message each at once, then one Kin
answers one message alone, at once after the burst. Before the fix that single turn often
took seconds instead of about 0.25 s (see docs/benchmarks.md, ``burst_stall``).

KinBot runs as ``kinbot serve`` in its own process against a fake LLM with 200 ms latency (own
process too). Printed per round: the wall time of the burst and of the turn after it, and the
server's CPU time during that turn. With ``--profile FILE``, py-spy samples the server's
Python code (``--gil``) during each turn after a burst (``FILE.<round>``).

    .venv/bin/python -m benchmarks.burst_stall [--rounds 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from benchmarks.fake_process import fake_in_subprocess
from benchmarks.server_process import kinbot_in_subprocess, sse_events
from benchmarks.turn_overhead import PARALLEL_KINS, add_provider, new_kin
from tests.support.accounts import set_up_admin


async def rounds(data_dir: Path, count: int, profile: Path | None) -> None:
    with (
        fake_in_subprocess("openai", 5, delay=0.2) as base_url,
        kinbot_in_subprocess(data_dir) as server,
    ):
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as setup:
            await set_up_admin(setup)
            await add_provider(setup, base_url)
            kins = [await new_kin(setup, f"Kin {n}") for n in range(PARALLEL_KINS)]
            cookies = dict(setup.cookies)
        finished: dict[int, asyncio.Event] = {}

        def on_event(kind: str, data: Any) -> None:
            if kind == "message.status" and data["status"] == "done":
                finished.setdefault(data["id"], asyncio.Event()).set()

        jar = aiohttp.CookieJar(unsafe=True)
        async with (
            aiohttp.ClientSession(cookie_jar=jar, cookies=cookies) as browser,
            sse_events(browser, server.url, on_event),
        ):

            async def ask(kin_id: str, text: str) -> None:
                async with browser.post(
                    f"{server.url}/api/kins/{kin_id}/messages", json={"content": text}
                ) as response:
                    message_id = (await response.json())["message"]["id"]
                event = finished.setdefault(message_id, asyncio.Event())
                await asyncio.wait_for(event.wait(), 120)

            await asyncio.gather(*(ask(kin_id, "warm-up") for kin_id in kins))
            after: list[float] = []
            for n in range(count):
                started = time.perf_counter()
                await asyncio.gather(*(ask(kin_id, f"burst {n}") for kin_id in kins))
                burst = time.perf_counter() - started
                sampler = py_spy(server.pid, profile, n) if profile is not None else None
                started, cpu = time.perf_counter(), server.cpu_seconds()
                await ask(kins[n % len(kins)], f"alone after burst {n}")
                alone = time.perf_counter() - started
                if sampler is not None:
                    sampler.send_signal(signal.SIGINT)
                    sampler.wait(timeout=60)
                after.append(alone)
                print(
                    f"  round {n + 1}: burst {burst * 1000:5.0f} ms, the turn after it "
                    f"{alone * 1000:5.0f} ms (server CPU {1000 * (server.cpu_seconds() - cpu):4.0f}"
                    " ms)",
                    flush=True,
                )
    print(f"  the turn after a burst: median {statistics.median(after) * 1000:.0f} ms, "
          f"worst {max(after) * 1000:.0f} ms")  # fmt: skip


def py_spy(pid: int, profile: Path, round_number: int) -> subprocess.Popen[bytes]:
    """py-spy sampling where the GIL holder spends its time (``--gil``: the CPU of Python
    code) until interrupted, into ``<profile>.<round>``."""
    binary = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [str(binary), "record", "--pid", str(pid), "--format", "raw", "--threads", "--gil",
         "--rate", "250", "--nonblocking", "--output", f"{profile}.{round_number + 1}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path)
    arguments = parser.parse_args()
    print(f"{PARALLEL_KINS} Kins at once, then one Kin alone (200 ms LLM)")
    with tempfile.TemporaryDirectory() as data_dir:
        asyncio.run(rounds(Path(data_dir), arguments.rounds, arguments.profile))


if __name__ == "__main__":
    main()

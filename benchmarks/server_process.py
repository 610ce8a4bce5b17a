"""KinBot as users run it, for the benchmarks: ``kinbot serve`` in its own process, and a
lean client that talks to it the way a browser does (REST in, SSE out).

Running the server in its own process keeps the benchmark's client out of the measured
process, as a browser is in real use.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

RUNNING = "KinBot is running on "


@dataclass(frozen=True)
class ServerProcess:
    """A running ``kinbot serve``: its base URL and process id."""

    url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time (user and system, every thread) the process has used so far (Linux)."""
        return sum(self.cpu_split())

    def cpu_split(self) -> tuple[float, float]:
        """The user and the system (kernel) CPU time of ``cpu_seconds``."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick


@contextmanager
def kinbot_in_subprocess(data_dir: Path, source: Path | None = None) -> Iterator[ServerProcess]:
    """Start ``kinbot serve`` on a free loopback port with its data in ``data_dir``; yield
    it once it listens; stop it (SIGTERM) afterwards. With ``source``, the server runs the
    code of that source tree (first on its path, started from the data directory so that
    the current one is not) with this one's dependencies."""
    environment = {**os.environ, "KINBOT_DATA_DIR": str(data_dir), "KINBOT_LOG_LEVEL": "WARNING"}
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve())
    child = subprocess.Popen(
        [sys.executable, "-m", "kinbot_web.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        env=environment,
        cwd=data_dir if source is not None else None,
        text=True,
    )
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.startswith(RUNNING):
                yield ServerProcess(line[len(RUNNING) :].strip(), child.pid)
                break
        else:
            raise RuntimeError(f"kinbot serve exited with {child.wait()} before listening")
    finally:
        child.terminate()
        child.wait(timeout=60)


@asynccontextmanager
async def sse_events(
    session: aiohttp.ClientSession, url: str, on_event: Callable[[str, Any], None]
) -> AsyncIterator[None]:
    """Read ``GET /api/events`` in the background, calling ``on_event(type, data)`` for each
    event, until the block ends."""
    opened = asyncio.Event()

    async def read() -> None:
        endless = aiohttp.ClientTimeout(total=None, sock_read=None)  # a stream has no end
        async with session.get(f"{url}/api/events", timeout=endless) as response:
            response.raise_for_status()
            opened.set()
            kind, data = "message", ""
            async for raw in response.content:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
                elif not line and data:
                    on_event(kind, json.loads(data))
                    kind, data = "message", ""

    task = asyncio.create_task(read())
    waiter = asyncio.create_task(opened.wait())
    await asyncio.wait([task, waiter], timeout=10, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if task.done():
        task.result()
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


#: ``ask(kin_id, text)``: send a message, return once SSE says it is done.
Ask = Callable[[str, str], Awaitable[None]]


@asynccontextmanager
async def asking(url: str, cookies: dict[str, str] | None = None) -> AsyncIterator[Ask]:
    """A lean browser of the server at ``url`` (signed in with ``cookies``): yields ``ask``,
    which posts a message to a Kin and waits for the ``done`` status on the event stream."""
    finished: dict[int, asyncio.Event] = {}

    def on_event(kind: str, data: Any) -> None:
        if kind == "message.status" and data["status"] == "done":
            finished.setdefault(data["id"], asyncio.Event()).set()

    jar = aiohttp.CookieJar(unsafe=True)  # cookies of 127.0.0.1
    async with (
        aiohttp.ClientSession(cookie_jar=jar, cookies=cookies) as browser,
        sse_events(browser, url, on_event),
    ):

        async def ask(kin_id: str, text: str) -> None:
            async with browser.post(
                f"{url}/api/kins/{kin_id}/messages", json={"content": text}
            ) as response:
                assert response.status < 300, await response.text()
                message_id = (await response.json())["message"]["id"]
            await asyncio.wait_for(finished.setdefault(message_id, asyncio.Event()).wait(), 120)

        yield ask

"""SIGTERM with browsers connected: their event streams end first, the process exits at
once, and the log stays clean."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import httpx

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_web.blueprints.events import close_streams
from tests.support.accounts import NICOLAS, set_up_admin
from tests.support.serve_process import kinbot_serve
from tests.support.server import running_server
from tests.support.sse import sse_stream

STREAMS = 3


async def read_stream(client: httpx.AsyncClient, opened: asyncio.Event) -> bytes:
    """Read ``/api/events`` to its end; raises if the server cuts it instead of ending it."""
    received = bytearray()
    async with client.stream("GET", "/api/events", timeout=None) as response:
        assert response.status_code == 200
        async for chunk in response.aiter_bytes():
            received.extend(chunk)
            opened.set()
    return bytes(received)


async def test_sigterm_ends_open_streams_and_exits_promptly(tmp_path: Path) -> None:
    with kinbot_serve(tmp_path / "data", tmp_path / "serve.log") as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as admin:
            created = await admin.post("/api/onboarding/identity", json=NICOLAS)
            assert created.status_code == 201, created.text
            browsers = [
                httpx.AsyncClient(base_url=server.url, cookies=admin.cookies)
                for _ in range(STREAMS)
            ]
            try:
                opened = [asyncio.Event() for _ in browsers]
                streams = [
                    asyncio.create_task(read_stream(browser, event))
                    for browser, event in zip(browsers, opened, strict=True)
                ]
                async with asyncio.timeout(20):
                    await asyncio.gather(*(event.wait() for event in opened))

                started = time.monotonic()
                server.process.send_signal(signal.SIGTERM)
                code = await asyncio.to_thread(server.process.wait, 10)
                elapsed = time.monotonic() - started
                print(
                    f"\nkinbot serve exited {elapsed:.2f} s after SIGTERM, {STREAMS} streams open"
                )
                assert code == 0
                async with asyncio.timeout(10):
                    bodies = await asyncio.gather(*streams)  # each ended, none cut off
            finally:
                for browser in browsers:
                    await browser.aclose()
        assert all(body.startswith(b"retry: 3000\n\n") for body in bodies)
        log = server.log_text()
        assert "Traceback" not in log, log
        assert " ERROR " not in log, log
        assert "KinBot stopped" in log


async def test_closing_the_streams_ends_open_ones_and_refuses_new_ones(data_dir: Path) -> None:
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        await set_up_admin(server.client)
        async with sse_stream(server.client) as reader:
            close_streams(server.app)
            await reader.wait_closed()
        late = await server.client.get("/api/events")
        assert late.status_code == 503
        assert late.json()["error"]["code"] == "server_stopping"
        assert (await server.client.get("/api/me")).status_code == 200  # the rest still answers

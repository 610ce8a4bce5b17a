"""Kept-alive connections: a request refused before its body is read leaves the connection
usable for the next one, as a browser reusing it expects."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypercorn.asyncio import serve as hypercorn_serve
from quart import Quart

from kinbot_core.config import Settings, load_settings
from kinbot_core.platform import Platform
from kinbot_web.blueprints.uploads import MULTIPART_SLACK
from kinbot_web.keep_alive import DRAIN_MAX_BYTES
from kinbot_web.server import bind_socket, hypercorn_config
from tests.support.raw_http import RawConnection, raw_connection
from tests.support.server import RunningServer, running_server

UPLOAD_MAX = 1000


@pytest.fixture
async def server(data_dir: Path) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, upload_max_bytes=UPLOAD_MAX)
    async with running_server(Platform(settings)) as server:
        yield server


def host_of(server: RunningServer) -> str:
    return urlsplit(server.url).netloc


async def assert_next_request_is_answered(connection: RawConnection, host: str) -> None:
    connection.next_cycle()
    health = await connection.request("GET", "/api/health", host)
    assert health.status == 200, health.body
    assert b"sqlite_vec_version" in health.body


async def test_a_request_refused_before_its_body_arrives_keeps_the_connection(
    server: RunningServer,
) -> None:
    body = b'{"name": "Chef", "role": "cook"}' * 100
    async with raw_connection(server.url) as connection:
        # The head only: the server refuses (no session) before a byte of the body exists.
        await connection.send_head(
            "POST",
            "/api/kins",
            host_of(server),
            {"Content-Type": "application/json", "Content-Length": str(len(body))},
        )
        refused = await connection.response()
        assert refused.status == 401
        assert "connection" not in refused.headers
        await connection.send_body(body)
        await assert_next_request_is_answered(connection, host_of(server))


async def test_a_body_too_large_is_refused_and_the_connection_goes_on(
    server: RunningServer,
) -> None:
    body = b"x" * (UPLOAD_MAX + MULTIPART_SLACK + 5000)
    async with raw_connection(server.url) as connection:
        await connection.send_head(
            "POST",
            "/api/auth/login",
            host_of(server),
            {"Content-Type": "application/json", "Content-Length": str(len(body))},
        )
        refused = await connection.response()
        assert refused.status == 413
        await connection.send_body(body)
        await assert_next_request_is_answered(connection, host_of(server))


async def test_a_foreign_host_refused_with_a_body_keeps_the_connection(
    server: RunningServer,
) -> None:
    body = b'{"email": "a@example.org", "password": "x"}'
    async with raw_connection(server.url) as connection:
        await connection.send_head(
            "POST",
            "/api/auth/login",
            "rebound.example.net",
            {"Content-Type": "application/json", "Content-Length": str(len(body))},
        )
        refused = await connection.response()
        assert refused.status == 421
        await connection.send_body(body)
        await assert_next_request_is_answered(connection, host_of(server))


async def test_a_whole_refused_request_then_the_next_on_the_same_connection(
    server: RunningServer,
) -> None:
    async with raw_connection(server.url) as connection:
        for _ in range(3):
            refused = await connection.request(
                "PATCH", "/api/me", host_of(server), b'{"pseudonym": "Nico"}'
            )
            assert refused.status == 401
            await assert_next_request_is_answered(connection, host_of(server))
            connection.next_cycle()


async def test_a_body_too_large_to_wait_for_closes_the_connection_explicitly(
    server: RunningServer,
) -> None:
    async with raw_connection(server.url) as connection:
        await connection.send_head(
            "POST",
            "/api/auth/login",
            host_of(server),
            {"Content-Type": "application/json", "Content-Length": str(DRAIN_MAX_BYTES * 2)},
        )
        refused = await connection.response()
        assert refused.status == 413
        # The client is told not to reuse the connection rather than having it cut.
        assert refused.headers["connection"] == "close"


def test_the_keep_alive_timeout_is_the_setting(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir)
    assert settings.keep_alive_timeout_seconds > 15  # aiohttp's client keeps 15 s
    bound = bind_socket("127.0.0.1", 0)
    try:
        config = hypercorn_config(bound, settings)
        assert config.keep_alive_timeout == settings.keep_alive_timeout_seconds
    finally:
        os.close(bound.fd)


@asynccontextmanager
async def reference_server(settings: Settings) -> AsyncIterator[str]:
    """A bare Quart app under hypercorn, configured by ``hypercorn_config`` from ``settings``:
    a clock for how long hypercorn keeps an idle connection under them."""
    app = Quart("reference")
    app.add_url_rule("/", "ok", lambda: "ok")
    bound = bind_socket("127.0.0.1", 0)
    stop = asyncio.Event()
    task = asyncio.create_task(
        hypercorn_serve(app, hypercorn_config(bound, settings), shutdown_trigger=stop.wait)
    )
    try:
        yield bound.url
    finally:
        stop.set()
        await task


async def test_a_connection_idle_longer_than_the_old_five_seconds_is_still_answered(
    server: RunningServer, tmp_path: Path
) -> None:
    """The connection to KinBot goes idle first; a reference server configured with the old
    five-second timeout then closes its own idle connection, which opened later: by then the
    KinBot connection has been idle longer than five seconds by the servers' own clock, and it
    must still carry a request. This waits for the reference's close (a state, not a sleep):
    about five seconds, the shortest idle time that tells the two settings apart."""
    old = load_settings(data_dir=tmp_path / "reference", keep_alive_timeout_seconds=5.0)
    async with raw_connection(server.url) as kept:
        first = await kept.request("GET", "/api/health", host_of(server))
        assert first.status == 200
        async with reference_server(old) as url, raw_connection(url) as reference:
            answered = await reference.request("GET", "/", urlsplit(url).netloc)
            assert answered.status == 200
            async with asyncio.timeout(60):
                assert await reference.reader.read() == b""  # closed by the server, idle
        await assert_next_request_is_answered(kept, host_of(server))

"""MCP servers against real servers nobody here wrote, started by the tests: ``mcp-server-time``
(PyPI) over stdio and the reference "everything" server (npm) over stdio and Streamable HTTP.
A Kin's turn calls their tools through the fake LLM; a server killed mid-call and a slow
tool come back to the model as tool errors."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from aiohttp import web
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from kinbot_core import KinRef
from kinbot_core.config import load_settings
from kinbot_core.db.models import TaskRecord
from kinbot_core.platform import Platform
from kinbot_plugins.mcp.failures import explained, health_status_of
from kinbot_plugins.mcp.store import ServerConfig
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.loopback import https_site, self_signed
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server

ROOT = Path(__file__).resolve().parents[1]
EVERYTHING = (
    ROOT / "tests/mcp_servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")


def everything_script() -> str:
    if not EVERYTHING.is_file():
        pytest.fail(
            "The npm MCP test server is not installed: run `make unit` (or "
            "`npm ci --prefix tests/mcp_servers`)."
        )
    return str(EVERYTHING)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def serve(data_dir: Path, fake_llm: FakeOpenAI, **settings: Any) -> Any:
    values = {"llm_max_retries": 0, "llm_timeout_seconds": 20, **settings}
    platform = Platform(load_settings(data_dir=data_dir, **values))
    return running_server(platform)


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with await serve(
        data_dir, fake_llm, mcp_call_timeout_seconds=3, mcp_health_interval_seconds=60
    ) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def add_server(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/api/mcp-servers", json=body)
    assert response.status_code == 201, response.text
    server: dict[str, Any] = response.json()["server"]
    return server


async def wait_connected(client: httpx.AsyncClient, server_id: str, attempts: int = 1) -> Any:
    """The server's view once connected (at least ``attempts`` connection attempts made)."""
    async with asyncio.timeout(60):
        while True:
            view = (await client.get(f"/api/mcp-servers/{server_id}")).json()["server"]
            status = view["status"]
            if status["state"] == "connected" and status["attempts"] >= attempts:
                return view
            await asyncio.sleep(0.1)


async def make_kin(client: httpx.AsyncClient, server_ids: list[str]) -> str:
    body = {"name": "Clockwork", "role": "Time keeper", "model": "gpt-4o"}
    response = await client.post("/api/kins", json=body)
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    response = await client.put(f"/api/kins/{kin_id}/mcp-servers", json={"server_ids": server_ids})
    assert response.status_code == 200, response.text
    assert response.json()["server_ids"] == server_ids
    return kin_id


async def run_turn(client: httpx.AsyncClient, kin_id: str, text: str) -> list[dict[str, Any]]:
    """Send a message, wait for its turn to end, return the messages of that turn."""
    response = await client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message_id = response.json()["message"]["id"]
    async with asyncio.timeout(60):
        while True:
            messages = (await client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
            mine = next(m for m in messages if m["id"] == message_id)
            if mine["status"] in ("done", "failed"):
                return [m for m in messages if m.get("turn_of") == message_id]
            await asyncio.sleep(0.1)


def tool_results(turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in turn if m["role"] == "tool"]


def offered_tools(fake: FakeOpenAI) -> dict[str, Any]:
    request = fake.requests_to("chat")[-1]
    return {t["function"]["name"]: t["function"] for t in request.body.get("tools", [])}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def everything_http() -> Iterator[str]:
    """The "everything" server over Streamable HTTP on a free loopback port."""
    port = free_port()
    process = subprocess.Popen(
        ["node", everything_script(), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail("the everything server did not start")
                subprocess.run(["sleep", "0.05"], check=True)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_a_kin_calls_the_time_server_from_pypi_over_stdio(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    created = await add_server(
        server.client,
        name="time",
        transport="stdio",
        command=TIME_SERVER,
        args=["--local-timezone", "Europe/Paris"],
    )
    view = await wait_connected(server.client, created["id"])
    assert {t["name"] for t in view["status"]["tools"]} >= {"get_current_time", "convert_time"}
    kin_id = await make_kin(server.client, [created["id"]])
    fake_llm.enqueue(
        Reply(tool_calls=[("time__get_current_time", {"timezone": "Asia/Tokyo"})]),
        Reply(text="It is morning in Tokyo."),
    )
    turn = await run_turn(server.client, kin_id, "What time is it in Tokyo?")
    [result] = tool_results(turn)
    assert not result["is_error"]
    assert '"timezone": "Asia/Tokyo"' in result["content"] and "day_of_week" in result["content"]
    assert turn[-1]["content"] == "It is morning in Tokyo."
    offered = offered_tools(fake_llm)
    schema = offered["time__get_current_time"]["parameters"]
    assert schema["required"] == ["timezone"] and "timezone" in schema["properties"]
    assert "[MCP server time]" in offered["time__get_current_time"]["description"]


async def test_the_everything_server_over_stdio_and_http_namespaced(
    server: RunningServer, fake_llm: FakeOpenAI, everything_http: str
) -> None:
    stdio = await add_server(
        server.client,
        name="ev",
        transport="stdio",
        command="node",
        args=[everything_script(), "stdio"],
    )
    http = await add_server(server.client, name="evhttp", transport="http", url=everything_http)
    for created in (stdio, http):
        view = await wait_connected(server.client, created["id"])
        assert "echo" in {t["name"] for t in view["status"]["tools"]}
    kin_id = await make_kin(server.client, [stdio["id"], http["id"]])
    fake_llm.enqueue(
        Reply(
            tool_calls=[
                ("ev__echo", {"message": "over stdio"}),
                ("evhttp__echo", {"message": "over http"}),
                ("evhttp__get-sum", {"a": 2, "b": 40}),
            ]
        ),
        Reply(text="Both answered."),
    )
    turn = await run_turn(server.client, kin_id, "Echo twice.")
    results = [(r["sender_name"], r["content"], r["is_error"]) for r in tool_results(turn)]
    assert results[0] == ("ev__echo", "Echo: over stdio", False)
    assert results[1] == ("evhttp__echo", "Echo: over http", False)
    assert results[2][0] == "evhttp__get-sum" and "42" in results[2][1]
    offered = offered_tools(fake_llm)
    assert {"ev__echo", "evhttp__echo"} <= set(offered)  # the same tool, once per server
    # A Kin without the assignment is not offered them.
    other = await make_kin(server.client, [])
    fake_llm.enqueue(Reply(text="No tools."))
    await run_turn(server.client, other, "Hello")
    assert not any(name.startswith(("ev__", "evhttp__")) for name in offered_tools(fake_llm))


async def test_a_server_killed_mid_call_is_a_tool_error_and_reconnects(
    server: RunningServer, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    created = await add_server(
        server.client,
        name="fragile",
        transport="stdio",
        command="sh",
        args=["-c", f'echo $$ > "{pid_file}"; exec node "{everything_script()}" stdio'],
    )
    await wait_connected(server.client, created["id"])
    kin_id = await make_kin(server.client, [created["id"]])
    fake_llm.enqueue(
        Reply(
            tool_calls=[("fragile__trigger-long-running-operation", {"duration": 2, "steps": 2})]
        ),
        Reply(text="It crashed, sorry."),
    )
    killer_started = asyncio.Event()

    async def kill_once_running() -> None:
        # The call is in flight once the fake LLM has answered with it: kill the server.
        async with asyncio.timeout(30):
            while not fake_llm.requests_to("chat"):  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
        killer_started.set()

    # A 2-second operation outlives the kill; the call timeout (3 s) is not what ends it.
    killer = asyncio.create_task(kill_once_running())
    turn = await run_turn(server.client, kin_id, "Run the long operation.")
    await killer
    [result] = tool_results(turn)
    assert result["is_error"]
    assert "closed the connection" in result["content"]
    assert turn[-1]["content"] == "It crashed, sorry."
    view = await wait_connected(server.client, created["id"], attempts=2)
    assert "echo" in {t["name"] for t in view["status"]["tools"]}


async def test_a_slow_tool_hits_the_call_timeout(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    created = await add_server(
        server.client,
        name="slow",
        transport="stdio",
        command="node",
        args=[everything_script(), "stdio"],
    )
    await wait_connected(server.client, created["id"])
    kin_id = await make_kin(server.client, [created["id"]])
    fake_llm.enqueue(
        Reply(tool_calls=[("slow__trigger-long-running-operation", {"duration": 30, "steps": 3})]),
        Reply(text="Too slow."),
    )
    turn = await run_turn(server.client, kin_id, "Run the long operation.")
    [result] = tool_results(turn)
    assert result["is_error"] and "did not answer within 3 seconds" in result["content"]
    assert turn[-1]["content"] == "Too slow."
    # The server is still usable afterwards.
    fake_llm.enqueue(
        Reply(tool_calls=[("slow__echo", {"message": "still here"})]), Reply(text="ok")
    )
    turn = await run_turn(server.client, kin_id, "Echo.")
    assert tool_results(turn)[0]["content"] == "Echo: still here"


async def test_environment_from_the_vault_and_masked_secrets(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    response = await server.client.post(
        "/api/vault", json={"key": "MCP_TOKEN", "value": "tok-7f3a9c21e5"}
    )
    assert response.status_code == 201, response.text
    created = await add_server(
        server.client,
        name="envy",
        transport="stdio",
        command="node",
        args=[everything_script(), "stdio"],
        env={"KINBOT_MCP_TOKEN": "${vault:MCP_TOKEN}", "KINBOT_PLAIN": "plain-s3cret-value"},
    )
    assert created["config"]["env"] == {
        "KINBOT_MCP_TOKEN": "${vault:MCP_TOKEN}",
        "KINBOT_PLAIN": "********",
    }
    await wait_connected(server.client, created["id"])
    listed = (await server.client.get("/api/mcp-servers")).text
    assert "plain-s3cret-value" not in listed and "tok-7f3a9c21e5" not in listed
    kin_id = await make_kin(server.client, [created["id"]])
    fake_llm.enqueue(Reply(tool_calls=[("envy__get-env", {})]), Reply(text="done"))
    turn = await run_turn(server.client, kin_id, "Show your environment.")
    content = tool_results(turn)[0]["content"]
    assert "KINBOT_PLAIN" in content and "KINBOT_MCP_TOKEN" in content
    # A masked value sent back keeps the stored one; the server reconnects with it.
    response = await server.client.patch(
        f"/api/mcp-servers/{created['id']}",
        json={"env": {"KINBOT_PLAIN": "********", "KINBOT_NEW": "x"}},
    )
    assert response.status_code == 200, response.text
    assert response.json()["server"]["config"]["env"] == {
        "KINBOT_PLAIN": "********",
        "KINBOT_NEW": "********",
    }
    await wait_connected(server.client, created["id"])


async def test_admin_only_configuration_and_clear_errors(server: RunningServer) -> None:
    refused = [
        ({"name": "bad name!", "transport": "stdio", "command": "x"}, "name"),
        ({"name": "nocmd", "transport": "stdio"}, "command"),
        ({"name": "nourl", "transport": "http", "url": "ftp://x"}, "URL"),
        ({"name": "badenv", "transport": "stdio", "command": "x", "env": {"A B": "1"}}, "A B"),
    ]
    for body, word in refused:
        response = await server.client.post("/api/mcp-servers", json=body)
        assert response.status_code == 400, body
        assert word in response.json()["error"]["message"]
    created = await add_server(
        server.client, name="broken", transport="stdio", command="/nonexistent/mcp-server"
    )
    response = await server.client.post(
        "/api/mcp-servers", json={"name": "BROKEN", "transport": "stdio", "command": "x"}
    )
    assert response.status_code == 409 and "already named" in response.text
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("mcp_server_name_taken", {"name": "BROKEN"})
    async with asyncio.timeout(30):
        while True:
            status = (await server.client.get(f"/api/mcp-servers/{created['id']}")).json()
            current = status["server"]["status"]
            if current["state"] == "failed" and current["attempts"] >= 2:
                break
            await asyncio.sleep(0.05)
    # Retried after a back-off, with the reason and the time of the next attempt shown.
    assert "nonexistent" in current["error"] or "No such file" in current["error"]
    # The interface words it from a code, with the command as typed, not the system's words.
    assert current["error_code"] == "mcp_command_not_found"
    assert current["error_params"] == {"command": "/nonexistent/mcp-server"}
    assert current["next_attempt_at"] is not None
    response = await server.client.put(
        "/api/kins/nope/mcp-servers", json={"server_ids": [created["id"]]}
    )
    assert response.status_code == 404
    async with server.new_client() as member:
        await register(server.client, member, MARIE)
        listed = (await member.get("/api/mcp-servers")).json()["servers"]
        assert [s["name"] for s in listed] == ["broken"] and "config" not in listed[0]
        response = await member.post(
            "/api/mcp-servers", json={"name": "mine", "transport": "stdio", "command": "x"}
        )
        assert response.status_code == 403
        assert (await member.delete(f"/api/mcp-servers/{created['id']}")).status_code == 403
    assert (await server.client.delete(f"/api/mcp-servers/{created['id']}")).status_code == 204
    assert (await server.client.get(f"/api/mcp-servers/{created['id']}")).status_code == 404


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_disabling_the_plugin_stops_the_servers_and_enabling_restarts_them(
    server: RunningServer, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    created = await add_server(
        server.client,
        name="ev",
        transport="stdio",
        command="sh",
        args=["-c", f'echo $$ > "{pid_file}"; exec node "{everything_script()}" stdio'],
    )
    await wait_connected(server.client, created["id"])
    first_pid = int(pid_file.read_text())
    kin_id = await make_kin(server.client, [created["id"]])
    response = await server.client.patch("/api/plugins/mcp", json={"enabled": False})
    assert response.status_code == 200, response.text
    async with asyncio.timeout(30):
        while process_alive(first_pid):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    assert (await server.client.get("/api/mcp-servers")).status_code == 503
    fake_llm.enqueue(Reply(text="No MCP."))
    await run_turn(server.client, kin_id, "Hello")
    assert not any(name.startswith("ev__") for name in offered_tools(fake_llm))
    response = await server.client.patch("/api/plugins/mcp", json={"enabled": True})
    assert response.status_code == 200, response.text
    await wait_connected(server.client, created["id"])
    assert int(pid_file.read_text()) != first_pid
    fake_llm.enqueue(Reply(tool_calls=[("ev__echo", {"message": "back"})]), Reply(text="ok"))
    turn = await run_turn(server.client, kin_id, "Echo")
    assert tool_results(turn)[0]["content"] == "Echo: back"


async def test_a_sub_kin_gets_the_servers_of_the_kin_it_embodies(
    server: RunningServer,
) -> None:
    created = await add_server(
        server.client, name="ev", transport="stdio", command="node",
        args=[everything_script(), "stdio"],
    )  # fmt: skip
    await wait_connected(server.client, created["id"])
    kin_id = await make_kin(server.client, [created["id"]])
    other_id = await make_kin(server.client, [])
    platform = server.platform

    def add_task() -> str:
        TaskRecord.insert(
            id="task-1", parent_kin=other_id, kin=kin_id, title="t", description="d",
            mode="await", model="gpt-4o", status="in_progress", depth=1,
        ).execute()  # fmt: skip
        return "task-1"

    task_id = await platform.db.write(add_task)
    sub_kin = KinRef(id=other_id, name="Clockwork", model="gpt-4o", task_id=task_id)
    contributed = await platform.hooks.call("tools_for_kin", kin=sub_kin)
    names = {tool.name for tools in contributed for tool in tools}
    assert "ev__echo" in names
    alone = await platform.hooks.call("tools_for_kin", kin=KinRef(other_id, "Other", "gpt-4o"))
    assert not any(tool.name.startswith("ev__") for tools in alone for tool in tools)


async def test_a_server_dying_while_idle_is_noticed_and_restarted(
    data_dir: Path, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    async with await serve(data_dir, fake_llm, mcp_health_interval_seconds=0.3) as server:
        await set_up_admin(server.client)
        created = await add_server(
            server.client,
            name="ev",
            transport="stdio",
            command="sh",
            args=["-c", f'echo $$ > "{pid_file}"; exec node "{everything_script()}" stdio'],
        )
        await wait_connected(server.client, created["id"])
        first_pid = int(pid_file.read_text())
        os.kill(first_pid, signal.SIGKILL)
        view = await wait_connected(server.client, created["id"], attempts=2)
        assert int(pid_file.read_text()) != first_pid
        assert view["status"]["error"] is None


async def test_http_secrets_stay_out_of_responses_even_in_errors(server: RunningServer) -> None:
    port = free_port()  # nothing listens there
    created = await add_server(
        server.client,
        name="remote",
        transport="http",
        url=f"http://127.0.0.1:{port}/mcp?key=sekrit-qwerty",
        headers={"Authorization": "Bearer sekrit-abcdef"},
    )
    assert created["config"]["headers"] == {"Authorization": "********"}
    async with asyncio.timeout(30):
        while True:
            response = await server.client.get(f"/api/mcp-servers/{created['id']}")
            if response.json()["server"]["status"]["state"] == "failed":
                break
            await asyncio.sleep(0.05)
    status = response.json()["server"]["status"]
    assert status["error"] and "sekrit" not in status["error"]
    assert (status["error_code"], status["error_params"]) == ("mcp_unreachable", {})
    assert "sekrit-abcdef" not in (await server.client.get("/api/mcp-servers")).text


@asynccontextmanager
async def refusing_site() -> AsyncIterator[str]:
    """An HTTP site on 127.0.0.1 answering 401 at ``/private`` and 404 anywhere else."""

    async def refuse(request: web.Request) -> web.Response:
        return web.Response(status=401 if request.path == "/private" else 404)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", refuse)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


async def wait_failed(client: httpx.AsyncClient, server_id: str) -> Any:
    """The server's status once a connection attempt has failed."""
    async with asyncio.timeout(30):
        while True:
            status = (await client.get(f"/api/mcp-servers/{server_id}")).json()["server"]["status"]
            if status["state"] == "failed":
                return status
            await asyncio.sleep(0.05)


async def test_common_failures_have_their_own_code_without_the_systems_words(
    server: RunningServer, tmp_path: Path
) -> None:
    not_runnable = tmp_path / "mcp-server"
    not_runnable.write_text("#!/bin/sh\n")  # without the execute permission
    server_tls, _ = self_signed(tmp_path)
    async with refusing_site() as refusing, https_site(server_tls) as tls_port:
        cases: dict[str, tuple[dict[str, Any], tuple[str, dict[str, str]]]] = {
            "missing": (
                {"transport": "stdio", "command": "nosuchcmd-kinbot"},
                ("mcp_command_not_found", {"command": "nosuchcmd-kinbot"}),
            ),
            "notrunnable": (
                {"transport": "stdio", "command": str(not_runnable)},
                ("mcp_command_not_runnable", {"command": str(not_runnable)}),
            ),
            "private": (
                {"transport": "http", "url": f"{refusing}/private", "headers": {"X-Key": "wrong"}},
                ("mcp_unauthorized", {}),
            ),
            "nowhere": ({"transport": "http", "url": f"{refusing}/mcp"}, ("mcp_not_found", {})),
            "selfsigned": (
                {"transport": "http", "url": f"https://127.0.0.1:{tls_port}/mcp"},
                ("mcp_tls_failed", {}),
            ),
        }
        created = {}
        for name, (body, _) in cases.items():
            created[name] = (await add_server(server.client, name=name, **body))["id"]
        for name, (_, expected) in cases.items():
            status = await wait_failed(server.client, created[name])
            assert (status["error_code"], status["error_params"]) == expected, name
            assert status["error"], name  # still there in English for API clients


def test_a_failed_health_check_is_worded_like_a_failed_connection() -> None:
    config = ServerConfig(
        id="s", name="remote", transport="http", url="http://127.0.0.1:9/mcp",
        headers={"Authorization": "Bearer sekrit-abcdef"},
    )  # fmt: skip
    request = httpx2.Request("POST", "http://127.0.0.1:9/mcp")

    def refused(status: int) -> httpx2.HTTPStatusError:
        response = httpx2.Response(status, request=request)
        return httpx2.HTTPStatusError("refused", request=request, response=response)

    # The SDK makes a refused message an MCP error; a 404 then is an ended session.
    ended = MCPError(INVALID_REQUEST, "Session terminated")
    assert health_status_of(explained(ended, refused(404)), config) == (
        "mcp_health_failed",
        {"detail": "Session terminated"},
    )
    stand_in = MCPError(INTERNAL_ERROR, "Server returned an error response")
    assert health_status_of(explained(stand_in, refused(403)), config) == ("mcp_unauthorized", {})
    down = ExceptionGroup("task group", [httpx2.ConnectError("All connection attempts failed")])
    assert health_status_of(down, config) == ("mcp_unreachable", {})
    said = MCPError(INTERNAL_ERROR, "Bearer sekrit-abcdef expired")
    assert health_status_of(said, config) == ("mcp_health_failed", {"detail": "******** expired"})
    assert health_status_of(RuntimeError("[Errno 32] Broken pipe"), config) == (
        "mcp_health_failed",
        {},
    )

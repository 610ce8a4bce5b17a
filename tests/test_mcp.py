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
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core import KinRef
from kinbot_core.config import load_settings
from kinbot_core.db.models import TaskRecord
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
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
    # The interface words it from a code; the server's own words come without a class name.
    assert current["error_code"] == "mcp_failed"
    detail = current["error_params"]["detail"]
    assert "nonexistent" in detail or "No such file" in detail
    assert "Error:" not in detail
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
    error = response.json()["server"]["status"]["error"]
    assert error and "sekrit" not in error
    assert "sekrit-abcdef" not in (await server.client.get("/api/mcp-servers")).text

"""Custom tools: a Kin's scripts registered as its own tools, run confined to its workspace
(bubblewrap where it works), over a real platform, real processes and real HTTP."""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tasks import TaskSpec
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.custom_tools import runtime_of
from kinbot_plugins.custom_tools import sandbox as sandbox_module
from kinbot_plugins.custom_tools.confinement import Limits
from kinbot_plugins.custom_tools.sandbox import Sandbox
from kinbot_plugins.custom_tools.tools import TOOLS as CUSTOM_TOOLS
from kinbot_plugins.tools.workspace_tools import TOOLS as WORKSPACE_TOOLS
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import reply_to
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

ALL_TOOLS: list[Any] = [*CUSTOM_TOOLS, *WORKSPACE_TOOLS]
TOOL: dict[str, Any] = {tool.name: tool for tool in ALL_TOOLS}
SERVER_SECRET = "sk-server-only-5f3a9c"
needs_bubblewrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (make debian-packages)"
)

ECHO = """\
import json, sys
args = json.load(sys.stdin)
print(json.dumps({"echo": args}))
"""


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@asynccontextmanager
async def started(data_dir: Path, fake_llm: FakeOpenAI, **settings: Any) -> AsyncIterator[Platform]:
    platform = Platform(load_settings(data_dir=data_dir, **settings))
    await platform.start()
    try:
        await platform.providers.add(
            "ai", "openai", "OpenAI", {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
        )
        yield platform
    finally:
        await platform.stop()


@pytest.fixture
async def platform(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[Platform]:
    async with started(
        data_dir, fake_llm, custom_tool_timeout_seconds=2, custom_tool_output_max_bytes=4096
    ) as platform:
        yield platform


async def new_context(platform: Platform, name: str = "Chef") -> ToolContext:
    kin = await platform.kins.create({"name": name, "model": "OpenAI/gpt-4o"})
    return ToolContext(platform, kin.id, kin.name)


@pytest.fixture
async def context(platform: Platform) -> ToolContext:
    return await new_context(platform)


async def call(context: ToolContext, tool: str, /, **arguments: Any) -> Any:
    return await TOOL[tool].run(context, arguments)


async def script(context: ToolContext, path: str, source: str) -> None:
    await call(context, "write_file", path=path, content=source)


async def register(context: ToolContext, name: str, path: str, **extra: Any) -> Any:
    return await call(
        context, "register_tool", name=name, description=f"The {name} tool.", path=path, **extra
    )


async def workspace(context: ToolContext) -> Path:
    return Path((await context.platform.kins.get(context.kin_id)).workspace)


# -- registering, listing, changing, running ---------------------------------------------------


async def test_register_run_list_update_and_delete(context: ToolContext) -> None:
    await script(context, "tools/echo.py", ECHO)
    schema = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
    registered = await register(context, "echo", "tools/echo.py", parameters=schema)
    assert registered["registered"]["path"] == "tools/echo.py"
    result = await call(context, "run_custom_tool", tool_name="echo", args={"word": "risotto"})
    assert result["exit_code"] == 0 and json.loads(result["stdout"]) == {
        "echo": {"word": "risotto"}
    }
    with pytest.raises(ToolError, match="Wrong arguments for echo: 'word' is a required"):
        await call(context, "run_custom_tool", tool_name="echo", args={})
    listed = await call(context, "list_custom_tools")
    assert [t["name"] for t in listed["tools"]] == ["echo"]
    assert listed["sandbox"] in ("bubblewrap", "landlock")
    await script(context, "tools/shout.sh", 'read -r line; echo "${line^^}"\n')
    updated = await call(
        context, "update_custom_tool", name="echo", path="tools/shout.sh", description="Shouts."
    )
    assert updated["updated"]["path"] == "tools/shout.sh"
    shouted = await call(context, "run_custom_tool", tool_name="echo", args={"word": "hi"})
    assert shouted["stdout"] == '{"WORD": "HI"}\n'
    with pytest.raises(ToolError, match="already have a custom tool named 'echo'"):
        await register(context, "echo", "tools/echo.py")
    assert (await call(context, "delete_custom_tool", name="echo"))["deleted"] == "echo"
    with pytest.raises(ToolError, match="no custom tool named 'echo'"):
        await call(context, "run_custom_tool", tool_name="echo", args={})
    assert (await workspace(context) / "tools" / "shout.sh").exists()


async def test_a_failing_script_and_bad_registrations_are_explained(context: ToolContext) -> None:
    await script(context, "fail.py", "import sys\nprint('half done')\nsys.exit(3)\n")
    await register(context, "fail", "fail.py")
    with pytest.raises(ToolError, match=r"failed \(exit code 3\).*half done"):
        await call(context, "run_custom_tool", tool_name="fail")
    await script(context, "notes.txt", "just text")
    with pytest.raises(ToolError, match="cannot be run"):
        await register(context, "notes", "notes.txt")
    with pytest.raises(ToolError, match=r"no file 'missing\.py'"):
        await register(context, "missing", "missing.py")
    with pytest.raises(ToolError, match="name of a platform tool"):
        await register(context, "read_file", "fail.py")
    with pytest.raises(ToolError, match="lower-case letters"):
        await register(context, "Bad Name", "fail.py")
    with pytest.raises(ToolError, match="not a valid JSON Schema"):
        await register(
            context, "bad_schema", "fail.py", parameters={"type": "object", "properties": 3}
        )


async def test_an_executable_file_runs_as_is(context: ToolContext) -> None:
    await call(
        context,
        "write_file",
        path="hello",
        content="#!/bin/sh\necho hello from $(pwd)\n",
        executable=True,
    )
    await register(context, "hello", "hello")
    result = await call(context, "run_custom_tool", tool_name="hello")
    mode = (await call(context, "list_custom_tools"))["sandbox"]
    where = "/workspace" if mode == "bubblewrap" else str((await workspace(context)).resolve())
    assert result["stdout"] == f"hello from {where}\n"


# -- confinement ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("../outside.py", "outside your workspace"),
        ("tools/../../outside.py", "outside your workspace"),
        ("/tmp/outside.py", "absolute path"),
    ],
)
async def test_scripts_outside_the_workspace_cannot_be_registered(
    context: ToolContext, path: str, words: str
) -> None:
    (await workspace(context)).parent.joinpath("outside.py").write_text("print('escaped')")
    with pytest.raises(ToolError, match=words):
        await register(context, "escape", path)
    assert (await call(context, "list_custom_tools"))["tools"] == []


async def test_a_symbolic_link_pointing_out_is_refused_at_registration_and_at_run(
    context: ToolContext, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("print('escaped')")
    root = await workspace(context)
    os.symlink(outside, root / "link.py")
    with pytest.raises(ToolError, match="outside your workspace"):
        await register(context, "linked", "link.py")
    # Registered while harmless, then swapped for a link out: refused when run.
    await script(context, "tool.py", "print('inside')")
    await register(context, "swapped", "tool.py")
    (root / "tool.py").unlink()
    os.symlink(outside, root / "tool.py")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "run_custom_tool", tool_name="swapped")


@needs_bubblewrap
async def test_a_script_cannot_read_etc_passwd_nor_the_data_directory(
    context: ToolContext,
) -> None:
    platform = context.platform
    database = str(platform.settings.database_path.resolve())
    probe = """\
import json, sys
found = {}
for path in json.load(sys.stdin)["paths"]:
    try:
        with open(path) as f:
            found[path] = f.read(200)
    except OSError as exc:
        found[path] = type(exc).__name__
print(json.dumps(found))
"""
    await script(context, "probe.py", probe)
    await register(context, "probe", "probe.py")
    outside_workspace = str((await workspace(context)).parent)
    paths = ["/etc/passwd", "/etc/shadow", database, outside_workspace, "/root/.bashrc"]
    result = await call(context, "run_custom_tool", tool_name="probe", args={"paths": paths})
    found = json.loads(result["stdout"])
    assert (await call(context, "list_custom_tools"))["sandbox"] == "bubblewrap"
    assert found == {path: "FileNotFoundError" for path in paths}


@needs_bubblewrap
async def test_the_system_is_read_only_and_the_workspace_writable(context: ToolContext) -> None:
    await script(
        context,
        "write.sh",
        "echo made > made.txt; touch /usr/planted 2>/dev/null && echo PLANTED; echo done\n",
    )
    await register(context, "write", "write.sh")
    result = await call(context, "run_custom_tool", tool_name="write")
    assert result["stdout"] == "done\n"
    made = await workspace(context) / "made.txt"
    assert made.read_text() == "made\n"
    assert not Path("/usr/planted").exists()  # noqa: ASYNC240


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_a_script_sees_no_server_secret_in_its_environment(
    data_dir: Path, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    monkeypatch.setenv("KINBOT_SECRET_KEY", SERVER_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_SECRET)
    async with started(data_dir, fake_llm, custom_tool_sandbox=sandbox) as platform:
        context = await new_context(platform)
        await script(
            context,
            "env.py",
            "import json, os\nprint(json.dumps({'env': dict(os.environ), "
            "'key': os.environ.get('KINBOT_SECRET_KEY')}))\n",
        )
        await register(context, "env", "env.py")
        result = await call(context, "run_custom_tool", tool_name="env")
    seen = json.loads(result["stdout"])
    assert seen["key"] is None
    assert set(seen["env"]) <= {"PATH", "LANG", "HOME", "PWD", "TMPDIR"}
    assert SERVER_SECRET not in result["stdout"]


@needs_bubblewrap
async def test_a_script_cannot_read_the_server_process_environment(
    context: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_SECRET)
    await script(
        context,
        "peek.py",
        "import json, sys\npid = json.load(sys.stdin)['pid']\n"
        "try:\n    print(open(f'/proc/{pid}/environ').read())\n"
        "except OSError as exc:\n    print(type(exc).__name__)\n",
    )
    await register(context, "peek", "peek.py")
    result = await call(context, "run_custom_tool", tool_name="peek", args={"pid": os.getpid()})
    assert result["stdout"] == "FileNotFoundError\n"


# -- time and output bounds ---------------------------------------------------------------------


def running_with(marker: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    return True
            except OSError:
                continue
    return False


async def processes_gone(marker: str) -> bool:
    import asyncio

    for _ in range(100):
        if not running_with(marker):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_a_script_past_its_time_is_killed_with_its_children(
    data_dir: Path, fake_llm: FakeOpenAI, sandbox: str
) -> None:
    marker = "987.654321"
    async with started(
        data_dir, fake_llm, custom_tool_timeout_seconds=1, custom_tool_sandbox=sandbox
    ) as platform:
        context = await new_context(platform)
        await script(
            context,
            "slow.sh",
            f"echo started\nsleep {marker} &\nsleep {marker}\necho never\n",
        )
        await register(context, "slow", "slow.sh")
        with pytest.raises(ToolError, match=r"longer than 1 seconds.*started") as raised:
            await call(context, "run_custom_tool", tool_name="slow")
    assert "never" not in str(raised.value)
    assert await processes_gone(marker)


async def test_output_is_cut_at_the_limit(context: ToolContext) -> None:
    await script(
        context,
        "chatty.py",
        "import sys\nsys.stdout.write('x' * 100_000)\nsys.stderr.write('e' * 10)\n",
    )
    await register(context, "chatty", "chatty.py")
    result = await call(context, "run_custom_tool", tool_name="chatty")
    assert result["stdout"] == "x" * 4096 and result["stderr"] == "e" * 10
    assert result["truncated"] == ["stdout"]


# -- a Kin's turn, and the API -----------------------------------------------------------------


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    platform = Platform(load_settings(data_dir=data_dir))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def make_kin(client: httpx.AsyncClient, name: str) -> str:
    response = await client.post("/api/kins", json={"name": name, "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def turn(server: RunningServer, kin_id: str, text: str) -> list[dict[str, Any]]:
    """Send ``text``, wait for the final reply; the turn's messages."""
    async with sse_stream(server.client) as stream:
        sent = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
        message_id = sent.json()["message"]["id"]
        await stream.wait_for(reply_to(message_id))
    history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    return [m for m in history if m["turn_of"] == message_id]


def offered_tools(request: Any) -> set[str]:
    return {tool["function"]["name"] for tool in request.body["tools"]}


async def test_a_kin_writes_registers_and_calls_its_own_tool(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    chef = await make_kin(server.client, "Chef")
    scout = await make_kin(server.client, "Scout")
    source = "import json, sys\nn = json.load(sys.stdin)['n']\nprint(n * 2)\n"
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    fake_llm.enqueue(
        Reply(tool_calls=[("write_file", {"path": "tools/double.py", "content": source})]),
        Reply(
            tool_calls=[
                (
                    "register_tool",
                    {
                        "name": "double",
                        "description": "Doubles a number.",
                        "parameters": schema,
                        "path": "tools/double.py",
                    },
                )
            ]
        ),
        Reply(tool_calls=[("run_custom_tool", {"tool_name": "double", "args": {"n": 21}})]),
        Reply(text="Made a doubling tool: 21 doubled is 42."),
    )
    first = await turn(server, chef, "Make yourself a tool that doubles numbers.")
    results = [m["content"] for m in first if m["role"] == "tool"]
    assert len(results) == 3 and all(not m["is_error"] for m in first if m["role"] == "tool")
    assert json.loads(results[2])["stdout"] == "42\n"
    fake_llm.enqueue(
        Reply(tool_calls=[("double", {"n": 50})]),
        Reply(text="100."),
    )
    second = await turn(server, chef, "Double 50 with your tool.")
    tool_result = next(m for m in second if m["role"] == "tool")
    assert not tool_result["is_error"] and json.loads(tool_result["content"])["stdout"] == "100\n"
    requests = fake_llm.requests_to("chat")
    assert "double" not in offered_tools(requests[0])
    assert {"double", "run_custom_tool", "register_tool"} <= offered_tools(requests[-1])
    described = next(t for t in requests[-1].body["tools"] if t["function"]["name"] == "double")
    assert described["function"]["parameters"] == schema
    system = requests[-1].body["messages"][0]["content"]
    assert "- double: Doubles a number. (your custom tool: tools/double.py)" in system
    assert "- double:" not in requests[0].body["messages"][0]["content"]
    # Another Kin is not offered Chef's tool, and cannot run it.
    fake_llm.enqueue(
        Reply(tool_calls=[("run_custom_tool", {"tool_name": "double", "args": {"n": 1}})]),
        Reply(text="I have no such tool."),
    )
    other = await turn(server, scout, "Double 1.")
    refused = next(m for m in other if m["role"] == "tool")
    assert refused["is_error"] and "no custom tool named 'double'" in refused["content"]
    assert "double" not in offered_tools(fake_llm.requests_to("chat")[-1])


async def test_the_api_lists_a_kins_tools_and_its_sandbox(server: RunningServer) -> None:
    kin_id = await make_kin(server.client, "Chef")
    context = ToolContext(server.platform, kin_id, "Chef")
    await script(context, "echo.py", ECHO)
    await register(context, "echo", "echo.py")
    listed = (await server.client.get(f"/api/kins/{kin_id}/custom-tools")).json()
    state = await runtime_of(server.platform).sandbox_state()
    assert state.mode in ("bubblewrap", "landlock") and listed["sandbox"] == state.mode
    assert listed["network"] == "off"
    assert [(t["name"], t["path"]) for t in listed["tools"]] == [("echo", "echo.py")]
    async with server.new_client() as stranger:
        assert (await stranger.get(f"/api/kins/{kin_id}/custom-tools")).status_code == 401
        assert (await stranger.delete(f"/api/kins/{kin_id}/custom-tools/echo")).status_code == 401
    missing = await server.client.get("/api/kins/nope/custom-tools")
    assert missing.status_code == 404
    assert (await server.client.delete(f"/api/kins/{kin_id}/custom-tools/echo")).status_code == 204
    assert (await server.client.delete(f"/api/kins/{kin_id}/custom-tools/echo")).status_code == 404
    assert (await server.client.get(f"/api/kins/{kin_id}/custom-tools")).json()["tools"] == []


async def test_without_a_sandbox_the_api_and_the_log_say_so(
    data_dir: Path, fake_llm: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="kinbot_plugins.custom_tools.sandbox")
    platform = Platform(load_settings(data_dir=data_dir, custom_tool_sandbox="none"))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        kin_id = await make_kin(server.client, "Chef")
        listed = (await server.client.get(f"/api/kins/{kin_id}/custom-tools")).json()
    assert listed == {"sandbox": "none", "network": "off", "tools": []}
    assert any("WITHOUT a sandbox" in record.getMessage() for record in caplog.records)


async def test_a_sub_kin_uses_the_workspace_and_tools_of_the_kin_it_works_as(
    context: ToolContext,
) -> None:
    platform = context.platform
    await script(context, "tools/echo.py", ECHO)
    await register(context, "echo", "tools/echo.py")
    task = await platform.tasks.spawn(
        TaskSpec(parent_kin_id=context.kin_id, kin_id=context.kin_id, description="Echo 'hi'.")
    )
    assert task.session_kin_id is not None and task.session_kin_id != context.kin_id
    sub_kin = ToolContext(platform, task.session_kin_id, "Chef")
    listed = await call(sub_kin, "list_custom_tools")
    assert [tool["name"] for tool in listed["tools"]] == ["echo"]
    result = await call(sub_kin, "run_custom_tool", tool_name="echo", args={"word": "hi"})
    assert json.loads(result["stdout"]) == {"echo": {"word": "hi"}}
    read = await call(sub_kin, "read_file", path="tools/echo.py")
    assert read["content"] == ECHO


async def test_a_probe_that_fails_unexpectedly_refuses_scripts_once_with_why(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A probe that fails in a way nobody planned (an event loop whose pipes are not
    asyncio's, say) refuses Kin code — it never runs unconfined — and is not tried again at
    every turn."""
    attempts: list[list[str]] = []

    async def broken(argv: list[str], *args: Any) -> Any:
        attempts.append(argv)
        raise RuntimeError("pipes of another kind")

    monkeypatch.setattr(sandbox_module, "run_process", broken)
    sandbox = Sandbox("auto", Limits(10, 256 * 2**20, 64, 2**24, 64))
    with caplog.at_level(logging.ERROR):
        first = await sandbox.state()
    assert first.mode == "refused"
    assert first.problem is not None
    assert "probing it failed (RuntimeError: pipes of another kind)" in first.problem
    tried = len(attempts)
    assert tried >= 1
    assert await sandbox.state() is first
    assert len(attempts) == tried
    assert "custom tools are refused" in caplog.text

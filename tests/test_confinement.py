"""Kin code is confined in every mode, or does not run: a Kin's script, run through the real
tool path, tries to read the data directory (``secret.key``, the database and its WAL,
another Kin's workspace), ``/etc/passwd``, and to reach a loopback listener over TCP and UDP.
Under bubblewrap and under Landlock every attempt fails; where neither works (a server
started under a seccomp filter that refuses user namespaces and Landlock, as an unprivileged
container on an older kernel would), custom tools are refused with the documented error.
Also: the rlimits, the per-Kin network setting, and the prompt's description of the sandbox.
"""

from __future__ import annotations

import asyncio
import base64
import ctypes
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.custom_tools import confinement, runtime_of
from kinbot_plugins.custom_tools.scratch import SCRATCH
from kinbot_plugins.custom_tools.tools import TOOLS as CUSTOM_TOOLS
from kinbot_plugins.tools.workspace_tools import TOOLS as WORKSPACE_TOOLS
from tests.support.accounts import NICOLAS, person, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import reply_to
from tests.support.page_server import page_server
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

TOOL: dict[str, Any] = {tool.name: tool for tool in [*CUSTOM_TOOLS, *WORKSPACE_TOOLS]}
JAIL = Path(__file__).parent / "support" / "jail.py"
REFUSED = "Custom tools are disabled on this server: "
HOW_TO_FIX = 'or set custom_tool_sandbox = "none" to run them unconfined'

#: Tries every way out it is given; prints what each attempt gave.
ESCAPE = """\
import json, os, socket, sys
request = json.load(sys.stdin)
found = {}
for path in request["read"]:
    try:
        with open(path, "rb") as f:
            found[path] = "read " + f.read(64).hex()
    except OSError as exc:
        found[path] = type(exc).__name__
for path in request["list"]:
    try:
        found[path] = "listed " + ",".join(os.listdir(path))
    except OSError as exc:
        found[path] = type(exc).__name__
def attempt(name, action):
    try:
        action()
        found[name] = "reached"
    except OSError as exc:
        found[name] = type(exc).__name__
def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"escaped", ("127.0.0.1", request["udp"]))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", request["tcp"]), timeout=5).close())
attempt("udp", udp)
print(json.dumps(found))
"""


# -- what this machine has -------------------------------------------------------------------


def bubblewrap_missing() -> str | None:
    """Why bubblewrap cannot work on this machine at all, or ``None``."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    tried = subprocess.run(
        [bwrap, "--unshare-user", "--ro-bind", "/", "/", "true"], capture_output=True, text=True
    )
    return None if tried.returncode == 0 else f"no user namespaces here: {tried.stderr.strip()}"


def landlock_missing() -> str | None:
    """Why Landlock cannot work on this machine at all, or ``None``."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_long(0), ctypes.c_long(1))
    return None if abi >= 1 else "this kernel has no Landlock"


MISSING: dict[str, Callable[[], str | None]] = {
    "bubblewrap": bubblewrap_missing,
    "landlock": landlock_missing,
}


# -- an in-process platform --------------------------------------------------------------------


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@asynccontextmanager
async def started(data_dir: Path, fake_llm: FakeOpenAI, **settings: Any) -> AsyncIterator[Platform]:
    """A platform whose custom tools run in ``custom_tool_sandbox``, which must work: the
    test is skipped only when this machine lacks the facility itself."""
    mode = settings.get("custom_tool_sandbox", "auto")
    missing = MISSING[mode]() if mode in MISSING else None
    if missing:
        pytest.skip(f"{mode}: {missing}")
    platform = Platform(
        load_settings(data_dir=data_dir, custom_tool_timeout_seconds=20, **settings)
    )
    await platform.start()
    try:
        await platform.providers.add(
            "ai", "openai", "OpenAI", {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
        )
        state = await runtime_of(platform).sandbox_state()
        assert state.mode != "refused", state.problem
        yield platform
    finally:
        await platform.stop()


async def new_context(platform: Platform, name: str) -> ToolContext:
    kin = await platform.kins.create({"name": name, "model": "OpenAI/gpt-4o"})
    return ToolContext(platform, kin.id, kin.name)


async def call(context: ToolContext, tool: str, /, **arguments: Any) -> Any:
    return await TOOL[tool].run(context, arguments)


async def script_tool(context: ToolContext, name: str, source: str) -> None:
    """Write ``source`` as ``<name>.py`` and register it as the tool ``name``."""
    await call(context, "write_file", path=f"{name}.py", content=source)
    await call(
        context, "register_tool", name=name, description=f"The {name} tool.", path=f"{name}.py"
    )


@pytest.fixture
def listeners() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A TCP listener and a UDP socket on loopback, for Kin code to try to reach."""
    with socket.socket() as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        udp.bind(("127.0.0.1", 0))
        tcp.setblocking(False)
        udp.setblocking(False)
        yield tcp, udp


def nothing_arrived(tcp: socket.socket, udp: socket.socket) -> bool:
    """Whether no connection waits on ``tcp`` and no datagram on ``udp`` (a connect or a
    send on loopback is there before the call that made it returns)."""
    for receive in (tcp.accept, lambda: udp.recvfrom(100)):
        try:
            receive()
        except BlockingIOError:
            continue
        return False
    return True


# -- every way out fails -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock"])
async def test_kin_code_reads_nothing_of_the_server_and_reaches_no_listener(
    data_dir: Path,
    fake_llm: FakeOpenAI,
    listeners: tuple[socket.socket, socket.socket],
    mode: str,
) -> None:
    tcp, udp = listeners
    async with started(data_dir, fake_llm, custom_tool_sandbox=mode) as platform:
        chef, scout = await new_context(platform, "Chef"), await new_context(platform, "Scout")
        await call(scout, "write_file", path="diary.txt", content="Scout's private notes")
        scout_workspace = Path((await platform.kins.get(scout.kin_id)).workspace)
        secrets = [
            data_dir / "secret.key",
            platform.settings.database_path,
            Path(f"{platform.settings.database_path}-wal"),
            scout_workspace / "diary.txt",
            Path("/etc/passwd"),
        ]
        assert all(path.exists() for path in secrets)
        await script_tool(chef, "escape", ESCAPE)
        await call(chef, "write_file", path="mine.txt", content="my own file")
        request = {
            "read": [str(path) for path in secrets] + ["mine.txt", "/usr/bin/env"],
            # Where other runs have their private /tmp.
            "list": [str(data_dir), str(scout_workspace), str(SCRATCH.root())],
            "tcp": tcp.getsockname()[1],
            "udp": udp.getsockname()[1],
        }
        result = await call(chef, "run_custom_tool", tool_name="escape", args=request)
        listed = await call(chef, "list_custom_tools")
    found = json.loads(result["stdout"])
    assert listed["sandbox"] == mode
    assert found.pop("mine.txt") == "read " + b"my own file".hex()  # the script did run
    assert found.pop("/usr/bin/env").startswith("read 7f454c46")  # the system is readable
    denied = "FileNotFoundError" if mode == "bubblewrap" else "PermissionError"
    expected = {path: denied for path in request["read"][:-2] + request["list"]}
    assert found == {**expected, "tcp": found["tcp"], "udp": "PermissionError"}
    assert found["tcp"] in ("ConnectionRefusedError", "PermissionError")
    assert nothing_arrived(tcp, udp)


async def test_under_landlock_the_workspace_is_writable_and_the_system_is_not(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with started(data_dir, fake_llm, custom_tool_sandbox="landlock") as platform:
        chef = await new_context(platform, "Chef")
        await call(
            chef,
            "write_file",
            path="write.sh",
            content="mkdir -p a b && echo made > a/made.txt && mv a/made.txt b/ "
            "&& echo temp > $TMPDIR/t && cat $TMPDIR/t\n"
            "touch /usr/planted 2>/dev/null && echo PLANTED\n"
            "stat -c %a write.sh > before; chmod 777 write.sh; stat -c %a write.sh > after\n"
            "touch /tmp/planted 2>/dev/null && echo PLANTED\n"
            "sleep 1000 & echo done\n",
        )
        await call(chef, "register_tool", name="write", description="Writes.", path="write.sh")
        result = await call(chef, "run_custom_tool", tool_name="write")
        workspace = Path((await platform.kins.get(chef.kin_id)).workspace)
    assert result["stdout"] == "temp\ndone\n"
    assert (workspace / "b" / "made.txt").read_text() == "made\n"
    # A mode change by path does nothing under Landlock (it cannot check one).
    assert (workspace / "after").read_text() == (workspace / "before").read_text() != "777\n"


# -- refused where neither works ----------------------------------------------------------------


def serve(
    data_dir: Path, log: Path, *jail: str, **settings: str
) -> tuple[subprocess.Popen[str], str]:
    """A ``kinbot serve`` process on ``data_dir`` (under ``jail.py`` with ``jail``'s options
    when given), with ``settings`` as ``KINBOT_*`` variables; its process and URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    env.update({f"KINBOT_{name.upper()}": value for name, value in settings.items()})
    command = [sys.executable, "-m", "kinbot_web.cli", "serve", "--port", "0"]
    command += ["--data-dir", str(data_dir)]
    if jail:
        command = [sys.executable, str(JAIL), *jail, "--", *command]
    with log.open("a") as log_file:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env
        )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("KinBot is running on"):
        process.kill()
        raise AssertionError(log.read_text())
    return process, line.rsplit(" ", 1)[1].strip()


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=30)


def wait_until(condition: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def turn(client: httpx.Client, kin_id: str, text: str) -> list[dict[str, Any]]:
    """Send ``text`` and wait until it is answered; the tool results of its turn."""
    sent = client.post(f"/api/kins/{kin_id}/messages", json={"content": text}).json()["message"]

    def answered() -> list[dict[str, Any]] | None:
        messages = client.get(f"/api/kins/{kin_id}/messages?limit=200").json()["messages"]
        mine = next(m for m in messages if m["id"] == sent["id"])
        return (
            [m for m in messages if m["turn_of"] == sent["id"]]
            if mine["status"] == "done"
            else None
        )

    return [m for m in wait_until(answered) if m["role"] == "tool"]


def sign_in(url: str, fake: FakeOpenAI) -> httpx.Client:
    """The first administrator's client; the fake provider added unless it was already."""
    client = httpx.Client(base_url=url, timeout=10)
    assert client.post("/api/onboarding/identity", json=NICOLAS).status_code == 201
    if client.get("/api/providers").json()["providers"]:
        return client
    provider = {"type": "openai", "name": "OpenAI",
                "config": {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}}  # fmt: skip
    assert client.post("/api/providers", json=provider).status_code == 201
    return client


PEEK = "import base64\nprint(base64.b64encode(open({key!r}, 'rb').read()).decode())\n"


async def test_where_neither_sandbox_works_custom_tools_are_refused_with_what_to_do(
    data_dir: Path, tmp_path: Path, fake_llm: FakeOpenAI
) -> None:
    log = tmp_path / "server.log"
    peek = PEEK.format(key=str(data_dir / "secret.key"))
    # Registered while a sandbox worked here...
    async with started(data_dir, fake_llm) as platform:
        chef = await new_context(platform, "Chef")
        await script_tool(chef, "peek", peek)
    kin_id = chef.kin_id
    key = base64.b64encode((data_dir / "secret.key").read_bytes()).decode()
    # ... then the server runs where user namespaces are refused and Landlock is missing.
    process, url = await asyncio.to_thread(serve, data_dir, log, "--no-namespaces", "--no-landlock")
    try:
        client = await asyncio.to_thread(sign_in, url, fake_llm)
        listed = await asyncio.to_thread(client.get, f"/api/kins/{kin_id}/custom-tools")
        listed = listed.json()
        fake_llm.enqueue(
            Reply(tool_calls=[("run_custom_tool", {"tool_name": "peek"})]),
            Reply(
                tool_calls=[
                    ("register_tool", {"name": "again", "description": "Peeks.", "path": "peek.py"})
                ]
            ),
            Reply(text="I cannot."),
        )
        results = await asyncio.to_thread(turn, client, kin_id, "Peek, please.")
        messages = await asyncio.to_thread(client.get, f"/api/kins/{kin_id}/messages?limit=200")
    finally:
        await asyncio.to_thread(stop, process)
    assert listed == {"sandbox": "refused", "network": "off", "tools": listed["tools"]}
    assert [tool["name"] for tool in listed["tools"]] == ["peek"]
    assert [m["is_error"] for m in results] == [True, True]
    for result in results:
        assert REFUSED + "no sandbox works on this machine (bubblewrap: " in result["content"]
        assert "landlock: this kernel has no Landlock" in result["content"]
        assert "install bubblewrap" in result["content"] and HOW_TO_FIX in result["content"]
    assert key not in messages.text
    system = fake_llm.requests_to("chat")[-1].body["messages"][0]
    assert "Custom tools are disabled on this server" in system["content"]
    logged = log.read_text()
    assert "custom tools are refused: no sandbox works on this machine" in logged


def test_an_explicit_sandbox_that_does_not_work_here_is_refused_with_its_reason(
    tmp_path: Path, fake_llm: FakeOpenAI
) -> None:
    process, url = serve(
        tmp_path / "data", tmp_path / "log", "--no-namespaces", custom_tool_sandbox="bubblewrap"
    )
    try:
        client = sign_in(url, fake_llm)
        kin_id = client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"}).json()["kin"][
            "id"
        ]
        listed = client.get(f"/api/kins/{kin_id}/custom-tools").json()
        fake_llm.enqueue(
            Reply(tool_calls=[("write_file", {"path": "t.py", "content": "print(1)"})]),
            Reply(
                tool_calls=[
                    ("register_tool", {"name": "tally", "description": "T.", "path": "t.py"})
                ]
            ),
            Reply(text="I cannot."),
        )
        results = turn(client, kin_id, "Make a tool.")
    finally:
        stop(process)
    assert listed["sandbox"] == "refused"
    refusal = results[1]["content"]
    assert results[1]["is_error"]
    assert REFUSED + "custom_tool_sandbox = bubblewrap, but bubblewrap: " in refusal
    assert (
        "No permissions to create new namespace" in refusal or "Operation not permitted" in refusal
    )
    assert HOW_TO_FIX in refusal


@pytest.fixture
def open_data_dir() -> Iterator[Path]:
    """A data directory made beforehand where every user may pass, as the Docker image's
    ``/data`` (the workspaces of a server running as root are then reachable by nobody)."""
    parent = Path(tempfile.mkdtemp(prefix="kinbot-test-"))
    parent.chmod(0o755)
    (parent / "data").mkdir(mode=0o755)
    yield parent / "data"
    shutil.rmtree(parent)


def test_in_a_container_refusing_namespaces_auto_confines_with_landlock(
    open_data_dir: Path,
    tmp_path: Path,
    fake_llm: FakeOpenAI,
    listeners: tuple[socket.socket, socket.socket],
) -> None:
    """The incident: bubblewrap installed but unable to work. Now Landlock confines."""
    if landlock_missing():
        pytest.skip(f"landlock: {landlock_missing()}")
    data_dir = open_data_dir
    tcp, udp = listeners
    process, url = serve(data_dir, tmp_path / "log", "--no-namespaces")
    try:
        client = sign_in(url, fake_llm)
        kin_id = client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"}).json()["kin"][
            "id"
        ]
        request = {
            "read": [str(data_dir / "secret.key"), str(data_dir / "kinbot.db"), "/etc/passwd"],
            "list": [str(data_dir)],
            "tcp": tcp.getsockname()[1],
            "udp": udp.getsockname()[1],
        }
        fake_llm.enqueue(
            Reply(tool_calls=[("write_file", {"path": "escape.py", "content": ESCAPE})]),
            Reply(
                tool_calls=[
                    ("register_tool", {"name": "escape", "description": "E.", "path": "escape.py"})
                ]
            ),
            Reply(tool_calls=[("run_custom_tool", {"tool_name": "escape", "args": request})]),
            Reply(text="Done."),
        )
        results = turn(client, kin_id, "Try to escape.")
        listed = client.get(f"/api/kins/{kin_id}/custom-tools").json()
    finally:
        stop(process)
    assert listed["sandbox"] == "landlock"
    assert not any(m["is_error"] for m in results), results
    found = json.loads(json.loads(results[2]["content"])["stdout"])
    assert found == {
        **{path: "PermissionError" for path in request["read"] + request["list"]},
        "tcp": "PermissionError",
        "udp": "PermissionError",
    }
    assert nothing_arrived(tcp, udp)


# -- rlimits -------------------------------------------------------------------------------------

BIG_ALLOCATION = "b = bytearray(512 * 1024 * 1024)\nprint('allocated')\n"
BIG_FILE = "open('big.bin', 'wb').write(b'x' * 8 * 1024 * 1024)\nprint('written')\n"
FORK_BOMB = """\
import os, time
children = 0
try:
    for _ in range(400):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    print("forked", children)
except OSError as exc:
    print("stopped", children, exc.strerror)
"""
BUSY = "while True:\n    pass\n"
LIMITS = {
    "custom_tool_memory_bytes": 128 * 1024 * 1024,
    "custom_tool_file_size_bytes": 1024 * 1024,
    "custom_tool_max_processes": 16,
    "custom_tool_cpu_seconds": 1,
}


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock", "none"])
async def test_memory_file_size_and_cpu_are_bounded_in_every_mode(
    data_dir: Path, fake_llm: FakeOpenAI, mode: str
) -> None:
    async with started(data_dir, fake_llm, custom_tool_sandbox=mode, **LIMITS) as platform:
        chef = await new_context(platform, "Chef")
        await script_tool(chef, "allocate", BIG_ALLOCATION)
        await script_tool(chef, "write", BIG_FILE)
        await script_tool(chef, "busy", BUSY)
        with pytest.raises(ToolError, match="MemoryError") as allocation:
            await call(chef, "run_custom_tool", tool_name="allocate")
        with pytest.raises(ToolError, match="File too large") as writing:
            await call(chef, "run_custom_tool", tool_name="write")
        # Killed by SIGXCPU (a negative code; under bubblewrap, its init reports 128 + 24).
        with pytest.raises(ToolError, match=r"busy failed \(exit code (-24, SIGXCPU|152)\)"):
            await call(chef, "run_custom_tool", tool_name="busy")
        workspace = Path((await platform.kins.get(chef.kin_id)).workspace)
    assert "allocated" not in str(allocation.value) and "written" not in str(writing.value)
    assert (workspace / "big.bin").stat().st_size == 1024 * 1024


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock"])
async def test_a_fork_bomb_is_stopped(data_dir: Path, fake_llm: FakeOpenAI, mode: str) -> None:
    async with started(data_dir, fake_llm, custom_tool_sandbox=mode, **LIMITS) as platform:
        chef = await new_context(platform, "Chef")
        await script_tool(chef, "bomb", FORK_BOMB)
        result = await call(chef, "run_custom_tool", tool_name="bomb")
    stopped, children, why = result["stdout"].split(" ", 2)
    assert stopped == "stopped" and why == "Resource temporarily unavailable\n"
    # Under bubblewrap the count is the sandbox's own; under Landlock it is nobody's, whose
    # other processes (another run's, on a shared machine) come and go meanwhile.
    assert int(children) <= 16 if mode == "bubblewrap" else int(children) < 400


# -- the network is each Kin's, off by default ---------------------------------------------------


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    if landlock_missing():
        pytest.skip(f"landlock: {landlock_missing()}")
    platform = Platform(load_settings(data_dir=data_dir, custom_tool_sandbox="landlock"))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def test_network_access_is_off_by_default_and_only_its_creator_or_an_admin_changes_it(
    server: RunningServer,
) -> None:
    admin = server.client
    async with server.new_client() as marie, server.new_client() as paul:
        await register(admin, marie)
        await register(admin, paul, person("Paul"))
        created = await marie.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})
        kin = created.json()["kin"]
        assert kin["network_access"] is False
        refused = await paul.patch(f"/api/kins/{kin['id']}", json={"network_access": True})
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
        assert (
            await paul.patch(f"/api/kins/{kin['id']}", json={"role": "Cook"})
        ).status_code == 200
        by_creator = await marie.patch(f"/api/kins/{kin['id']}", json={"network_access": True})
        assert by_creator.json()["kin"]["network_access"] is True
        by_admin = await admin.patch(f"/api/kins/{kin['id']}", json={"network_access": False})
        assert by_admin.json()["kin"]["network_access"] is False
        assert (await paul.get(f"/api/kins/{kin['id']}")).json()["kin"]["network_access"] is False
        wrong = await admin.patch(f"/api/kins/{kin['id']}", json={"network_access": "yes please"})
        assert wrong.status_code == 400


async def test_the_prompt_says_what_the_sandbox_in_force_allows(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    client = server.client
    kin_id = (await client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})).json()
    kin_id = kin_id["kin"]["id"]

    async def sandbox_section() -> str:
        fake_llm.enqueue(Reply(text="OK."))
        async with sse_stream(client) as stream:
            sent = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
            await stream.wait_for(reply_to(sent.json()["message"]["id"]))
        system = fake_llm.requests_to("chat")[-1].body["messages"][0]
        return str(system["content"]).split("## Your scripts' sandbox\n", 1)[1]

    section = await sandbox_section()
    as_nobody = " as user nobody (65534)" if os.geteuid() == 0 else ""
    assert section.startswith(f"Your scripts run confined by Landlock{as_nobody}: ")
    assert "Network: none (a user can allow it in your settings)" in section
    assert (await client.get(f"/api/kins/{kin_id}/custom-tools")).json()["network"] == "off"
    await client.patch(f"/api/kins/{kin_id}", json={"network_access": True})
    section = await sandbox_section()
    assert "Network: only HTTP and HTTPS through the proxy given in HTTP_PROXY" in section
    listed = (await client.get(f"/api/kins/{kin_id}/custom-tools")).json()
    assert listed["network"] == "proxy"


#: Fetches a page through the proxy its environment names, then tries to go around it.
FETCH = """import json, os, socket, sys, urllib.request
request = json.load(sys.stdin)
found = {"proxy": bool(os.environ.get("HTTPS_PROXY"))}
def attempt(name, action):
    try:
        found[name] = action()
    except OSError as exc:
        found[name] = type(exc).__name__ + (f" {exc.code}" if hasattr(exc, "code") else "")
attempt("page", lambda: urllib.request.urlopen(request["page"], timeout=10).read().decode())
attempt("closed_port", lambda: urllib.request.urlopen(request["closed"], timeout=10).read())
def direct():
    socket.create_connection(("127.0.0.1", request["tcp"]), timeout=5).close()
    return "reached"
attempt("direct", direct)
def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"escaped", ("127.0.0.1", request["udp"]))
    return "reached"
attempt("udp", udp)
print(json.dumps(found))
"""


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock"])
async def test_a_kin_allowed_the_network_reaches_it_only_through_the_egress_proxy(
    data_dir: Path,
    fake_llm: FakeOpenAI,
    listeners: tuple[socket.socket, socket.socket],
    mode: str,
) -> None:
    tcp, udp = listeners
    async with page_server() as site:
        port = int(site.rsplit(":", 1)[1])
        # The loopback site stands in for a public one: the proxy may reach it, on its port.
        settings = {"fetch_allowed_networks": "127.0.0.1", "egress_allowed_ports": str(port)}
        async with started(data_dir, fake_llm, custom_tool_sandbox=mode, **settings) as platform:
            chef, scout = await new_context(platform, "Chef"), await new_context(platform, "Scout")
            await platform.kins.update(chef.kin_id, {"network_access": True})
            request = {
                "page": f"{site}/text",
                "closed": f"http://127.0.0.1:{tcp.getsockname()[1]}/",
                "tcp": tcp.getsockname()[1],
                "udp": udp.getsockname()[1],
            }
            for context in (chef, scout):
                await script_tool(context, "fetch", FETCH)
            allowed = await call(chef, "run_custom_tool", tool_name="fetch", args=request)
            offline = await call(scout, "run_custom_tool", tool_name="fetch", args=request)
    denied = "PermissionError"
    assert json.loads(allowed["stdout"]) == {
        "proxy": True,
        "page": "plain words",
        "closed_port": "HTTPError 403",  # the proxy refuses a port it may not reach
        "direct": denied,
        "udp": denied,
    }
    found = json.loads(offline["stdout"])
    assert found.pop("proxy") is False
    assert found["udp"] == denied and found["direct"] in (denied, "ConnectionRefusedError")
    assert found["page"] in ("URLError", denied, "ConnectionRefusedError")
    assert nothing_arrived(tcp, udp)


def test_where_the_network_cannot_be_held_to_the_proxy_a_kins_code_stays_offline(
    tmp_path: Path, fake_llm: FakeOpenAI, listeners: tuple[socket.socket, socket.socket]
) -> None:
    """A kernel without Landlock: bubblewrap confines, but cannot limit TCP to the proxy."""
    if bubblewrap_missing():
        pytest.skip(f"bubblewrap: {bubblewrap_missing()}")
    tcp, udp = listeners
    process, url = serve(tmp_path / "data", tmp_path / "log", "--no-landlock")
    try:
        client = sign_in(url, fake_llm)
        created = client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})
        kin_id = created.json()["kin"]["id"]
        assert client.patch(f"/api/kins/{kin_id}", json={"network_access": True}).is_success
        listed = client.get(f"/api/kins/{kin_id}/custom-tools").json()
        request = {
            "page": "http://example.org/",
            "closed": "http://example.org/",
            "tcp": tcp.getsockname()[1],
            "udp": udp.getsockname()[1],
        }
        fake_llm.enqueue(
            Reply(tool_calls=[("write_file", {"path": "fetch.py", "content": FETCH})]),
            Reply(
                tool_calls=[
                    ("register_tool", {"name": "fetch", "description": "F.", "path": "fetch.py"})
                ]
            ),
            Reply(tool_calls=[("run_custom_tool", {"tool_name": "fetch", "args": request})]),
            Reply(text="Offline."),
        )
        results = turn(client, kin_id, "Fetch a page.")
    finally:
        stop(process)
    assert listed["sandbox"] == "bubblewrap" and listed["network"] == "unavailable"
    found = json.loads(json.loads(results[2]["content"])["stdout"])
    assert found["proxy"] is False
    assert found["direct"] in ("PermissionError", "ConnectionRefusedError")
    assert found["udp"] == "PermissionError"
    system = fake_llm.requests_to("chat")[-1].body["messages"][0]
    assert "Network: none (your network access is on, but this server cannot" in system["content"]
    assert nothing_arrived(tcp, udp)


# -- signals ------------------------------------------------------------------------------------

SIGNALS = """\
import json, os, subprocess, sys
server, group = json.loads(sys.argv[1])
found = {}
for name, target in (("server", server), ("its group", -group), ("everyone", -1)):
    try:
        os.kill(target, 0)
        found[name] = "signalled"
    except OSError as exc:
        found[name] = type(exc).__name__
child = subprocess.Popen(["sleep", "60"])
child.kill()
found["own child"] = child.wait()
print(json.dumps(found))
"""


def test_kin_code_cannot_signal_the_server_even_as_its_own_user() -> None:
    """Before Landlock ABI 6 scopes signals, Kin code running as the server's user (a non-root
    container) could stop it: the seccomp filter refuses those signals. The launcher runs
    here with that step alone, as this process's user, so nothing else could refuse them."""
    protect = [os.getpid(), -os.getpgrp()]
    policy = {"seccomp": {"sessions": True, "protect": protect}}
    command = [sys.executable, "-I", "-c", SIGNALS, json.dumps([os.getpid(), os.getpgrp()])]
    run = subprocess.run(
        confinement.launched(confinement.server_python(), policy, command),
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "server": "PermissionError",
        "its group": "PermissionError",
        "everyone": "PermissionError",
        "own child": -9,
    }


# -- a stopped turn ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock"])
async def test_a_run_whose_turn_is_stopped_leaves_no_process_behind(
    data_dir: Path, fake_llm: FakeOpenAI, mode: str
) -> None:
    marker = f"876.{secrets.randbelow(10**9):09d}"  # this run's own processes
    slow = f"sleep {marker} &\nsleep {marker}\n"
    async with started(data_dir, fake_llm, custom_tool_sandbox=mode) as platform:
        chef = await new_context(platform, "Chef")
        await call(chef, "write_file", path="slow.sh", content=slow)
        await call(chef, "register_tool", name="slow", description="Slow.", path="slow.sh")
        running = asyncio.create_task(call(chef, "run_custom_tool", tool_name="slow"))
        assert await until(lambda: count_running(marker) == 2)
        running.cancel()  # as when a user stops the Kin's turn
        with pytest.raises(asyncio.CancelledError):
            await running
    assert await until(lambda: count_running(marker) == 0)


UNTIL_SECONDS = 30.0


def count_running(marker: str) -> int:
    """How many live processes have ``marker`` in their command line."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += marker in (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
    return count


async def until(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` comes true within ``UNTIL_SECONDS`` (checked as it goes)."""
    deadline = time.monotonic() + UNTIL_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


# -- who Kin code runs as -----------------------------------------------------------------------

IDENTITY = """\
import ctypes, json, os, struct
libc = ctypes.CDLL(None, use_errno=True)
header = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
data = ctypes.create_string_buffer(24)
capget = {"x86_64": 125, "aarch64": 90}[os.uname().machine]
assert libc.syscall(capget, header, data) == 0
effective, permitted, _, effective_hi, permitted_hi, _ = struct.unpack("6I", data.raw)
print(json.dumps({
    "uid": os.getresuid(), "gid": os.getresgid(), "groups": os.getgroups(),
    "capabilities": [effective, permitted, effective_hi, permitted_hi],
    "no_new_privs": libc.prctl(39, 0, 0, 0, 0),
}))
"""


@pytest.mark.parametrize("mode", ["bubblewrap", "landlock"])
async def test_kin_code_has_no_privilege(data_dir: Path, fake_llm: FakeOpenAI, mode: str) -> None:
    """As root, the server runs Kin code as nobody; in any case without capabilities, and
    with no_new_privs (no set-user-ID program can give it more)."""
    async with started(data_dir, fake_llm, custom_tool_sandbox=mode) as platform:
        chef = await new_context(platform, "Chef")
        await script_tool(chef, "identity", IDENTITY)
        result = await call(chef, "run_custom_tool", tool_name="identity")
    seen = json.loads(result["stdout"])
    assert seen["capabilities"] == [0, 0, 0, 0] and seen["no_new_privs"] == 1
    if os.geteuid() == 0:
        nobody = [65534, 65534, 65534]
        assert (seen["uid"], seen["gid"]) == (nobody, nobody)
        assert seen["groups"] in ([], [65534])

"""Running a Kin's script confined to its workspace.

Every run: the script's real path must be inside the workspace; the process starts in the
workspace with a scrubbed environment (``PATH``, ``LANG``, ``HOME`` = the workspace, nothing
else from the server's environment), reads its arguments as JSON on stdin, is killed with
its whole process group after the timeout, and only the first bytes of its stdout and
stderr are kept.

With bubblewrap (``bwrap``), the script also runs in new namespaces: the system directories
read-only, ``/etc`` reduced to what programs need to run (no ``passwd``, no ``shadow``), a
private ``/tmp``, its own ``/proc``, the workspace as the only writable (and only visible)
data, mounted at ``/workspace``. Without it, the script sees the machine's filesystem
with the server's permissions: ``sandbox_mode`` says which, and a warning is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

logger = logging.getLogger(__name__)

SandboxMode = Literal["bubblewrap", "none"]
#: Where the workspace appears inside the bubblewrap sandbox.
SANDBOX_WORKSPACE = "/workspace"
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
#: What of /etc stays visible in the sandbox: dynamic linking, time zone, MIME types, TLS
#: certificates and name resolution. Not passwd, shadow, group or anything of the server.
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "mime.types",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
)
ETC_NETWORK_ENTRIES = ("resolv.conf", "hosts", "nsswitch.conf", "host.conf", "gai.conf")
ROOT_DIRECTORIES = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
PROBE_TIMEOUT = 10.0


class ScriptError(Exception):
    """The script cannot be run (not a runnable file, say); the message says why."""


@dataclass(frozen=True)
class ScriptRun:
    """How a run ended: exit code (``None`` when killed at the timeout) and its output."""

    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool


def python_interpreter() -> str:
    """The server's Python, its real binary (a virtualenv's is a link to it)."""
    return os.path.realpath(sys.executable)


def command_for(script: Path, relative: str) -> list[str]:
    """The command running ``script`` (its real path), ``relative`` to the workspace:
    ``.py`` with the server's Python, ``.sh`` with bash, any other executable file as is."""
    info = script.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ScriptError(f"'{relative}' is not a regular file.")
    target = "./" + relative
    suffix = script.suffix.lower()
    if suffix == ".py":
        return [python_interpreter(), "-E", "-s", target]
    if suffix == ".sh":
        return ["/bin/bash", target]
    if info.st_mode & stat.S_IXUSR:
        return [target]
    raise ScriptError(
        f"'{relative}' cannot be run: write a .py or .sh script, or make the file "
        "executable (write_file with executable=true)."
    )


def scrubbed_environment(home: str) -> dict[str, str]:
    """The only environment a script gets."""
    return {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "HOME": home}


def bubblewrap_arguments(workspace: Path, *, network: bool) -> list[str]:
    """The ``bwrap`` options confining a run to ``workspace`` (see the module docstring)."""
    arguments = [
        "bwrap",
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        "65534",
        "--gid",
        "65534",
    ]
    if network:
        arguments.append("--share-net")
    arguments += ["--ro-bind", "/usr", "/usr"]
    for name in ROOT_DIRECTORIES:
        path = Path("/", name)
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            arguments += ["--ro-bind", str(path), str(path)]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/") and prefix != "/usr":
        arguments += ["--ro-bind", prefix, prefix]  # a Python installed elsewhere (pyenv…)
    arguments += ["--dir", "/etc"]
    for name in ETC_ENTRIES + (ETC_NETWORK_ENTRIES if network else ()):
        arguments += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    arguments += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    arguments += ["--bind", str(workspace), SANDBOX_WORKSPACE, "--chdir", SANDBOX_WORKSPACE]
    arguments.append("--clearenv")
    for key, value in scrubbed_environment(SANDBOX_WORKSPACE).items():
        arguments += ["--setenv", key, value]
    arguments.append("--")
    return arguments


class Sandbox:
    """Runs scripts the way the ``custom_tool_sandbox`` setting asks, once it knows whether
    bubblewrap works on this machine (``probe``, at start-up)."""

    def __init__(self, setting: str, *, network: bool) -> None:
        self.setting = setting
        self.network = network
        self._mode: SandboxMode | None = None
        self._lock = asyncio.Lock()

    async def mode(self) -> SandboxMode:
        """``bubblewrap`` or ``none``, probed once."""
        async with self._lock:
            if self._mode is None:
                self._mode = await self._probe()
            return self._mode

    async def _probe(self) -> SandboxMode:
        if self.setting == "none":
            logger.warning(
                "custom tools run WITHOUT a sandbox (custom_tool_sandbox = none): only their "
                "paths, working directory and environment are confined"
            )
            return "none"
        problem = await _bubblewrap_problem(self.network)
        if problem is None:
            logger.info("custom tools run in a bubblewrap sandbox")
            return "bubblewrap"
        if self.setting == "bubblewrap":
            raise RuntimeError(f"custom_tool_sandbox = bubblewrap, but bubblewrap {problem}")
        logger.warning(
            "custom tools run WITHOUT a sandbox: bubblewrap %s (install the 'bubblewrap' "
            "package and allow user namespaces); only their paths, working directory and "
            "environment are confined",
            problem,
        )
        return "none"

    async def run(
        self,
        workspace: Path,
        command: list[str],
        arguments: dict[str, Any],
        *,
        time_limit: float,
        max_output: int,
    ) -> ScriptRun:
        """Run ``command`` (from ``command_for``) in ``workspace`` with ``arguments`` as JSON
        on stdin."""
        if await self.mode() == "bubblewrap":
            argv = bubblewrap_arguments(workspace, network=self.network) + command
            env: dict[str, str] = {"PATH": SAFE_PATH}
        else:
            argv, env = command, scrubbed_environment(str(workspace))
        return await run_process(
            argv, workspace, env, json.dumps(arguments).encode(), time_limit, max_output
        )


async def _bubblewrap_problem(network: bool) -> str | None:
    """Why bubblewrap cannot confine a script here, or ``None`` when it can."""
    with tempfile.TemporaryDirectory(prefix="kinbot-probe-") as directory:
        argv = bubblewrap_arguments(Path(directory), network=network)
        argv += [python_interpreter(), "-E", "-s", "-c", "pass"]
        try:
            run = await run_process(
                argv, Path(directory), {"PATH": SAFE_PATH}, b"", PROBE_TIMEOUT, 2000
            )
        except FileNotFoundError:
            return "is not installed"
    if run.exit_code == 0:
        return None
    return f"does not work here ({run.stderr.strip()[:300] or f'exit code {run.exit_code}'})"


async def run_process(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    stdin: bytes,
    time_limit: float,
    max_output: int,
) -> ScriptRun:
    """Run ``argv`` in its own session; kill its process group after ``time_limit`` seconds;
    keep the first ``max_output`` bytes of stdout and of stderr (the rest is read and dropped)."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdin and process.stdout and process.stderr
    stdout, stderr = _Output(max_output), _Output(max_output)
    readers = [
        asyncio.ensure_future(_feed(process.stdin, stdin)),
        asyncio.ensure_future(stdout.read(process.stdout)),
        asyncio.ensure_future(stderr.read(process.stderr)),
    ]
    timed_out = False
    try:
        async with asyncio.timeout(time_limit):
            await asyncio.gather(process.wait(), *readers[1:])
    except TimeoutError:
        timed_out = True
    finally:
        if timed_out or process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        # A descendant that left the process group may hold the pipes open: stop reading.
        _done, pending = await asyncio.wait(readers, timeout=2.0)
        for reader in pending:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    return ScriptRun(
        exit_code=None if timed_out else process.returncode,
        stdout=stdout.text(),
        stderr=stderr.text(),
        stdout_truncated=stdout.truncated,
        stderr_truncated=stderr.truncated,
        timed_out=timed_out,
    )


async def _feed(writer: asyncio.StreamWriter, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        writer.write(data)
        await writer.drain()
        writer.close()


class _Output:
    """The first ``limit`` bytes of a stream; the rest is read and dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    async def read(self, reader: asyncio.StreamReader) -> None:
        while chunk := await reader.read(65536):
            room = self.limit - len(self.kept)
            if len(chunk) > room:
                self.truncated = True
            self.kept += chunk[: max(room, 0)]

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")

"""``git_clone(url, path)``: the platform clones a public git repository into the Kin's
workspace, so Kin code needs no network for it.

The ``git`` binary (Debian package ``git``) runs with a scrubbed environment and an empty
``HOME``, no system or global configuration, only the http and https transports, every
connection through the egress proxy (so the private-address guard applies to each one,
redirects included), a shallow clone without submodules, hooks or symbolic links. It clones
into a private staging folder of the data directory (out of reach of Kin code), within
``git_clone_timeout_seconds`` and ``git_clone_max_bytes`` (its whole process group killed
past either); only a finished clone is moved to ``path``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kinbot_core.egress import ProxyAccess
from kinbot_core.net_guard import BlockedAddress, resolve_checked
from kinbot_core.tools import FunctionTool, ToolContext, ToolError, object_schema, required_text
from kinbot_plugins.tools.guarded_http import FetchError, checked_url, tool_address_policy
from kinbot_plugins.tools.workspace_output import move_folder_into, open_destination
from kinbot_plugins.tools.workspace_paths import confined, relative_name, workspace_of

#: How often the clone's size is measured while git runs (seconds).
SIZE_CHECK_INTERVAL = 0.25
#: Past their time limit by this much, a clone's leftover folder is removed (seconds).
STALE_MARGIN_SECONDS = 60.0
#: How much of git's error output is kept to explain a failure.
ERROR_TAIL_BYTES = 4096
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: ``git -c`` settings of every run: only http(s), no hooks, no symbolic links.
_GIT_SETTINGS = (
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.http.allow=always",
    "core.symlinks=false",
    "core.hooksPath=/dev/null",
    "submodule.recurse=false",
    "advice.detachedHead=false",
)


class CloneTooLarge(Exception):
    """The clone grew past its size limit."""


def git_environment(home: Path, proxy: ProxyAccess) -> dict[str, str]:
    """The whole environment git runs with. The proxy URL (it holds the Kin's credentials)
    is given as configuration in the environment, not on the command line other processes
    can read."""
    return {
        "PATH": _SYSTEM_PATH,
        "HOME": str(home),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "http.proxy",
        "GIT_CONFIG_VALUE_0": proxy.url,
        "GIT_CONFIG_KEY_1": "http.proxyAuthMethod",
        "GIT_CONFIG_VALUE_1": "basic",
    }


def clone_command(git: str, url: str, destination: Path) -> list[str]:
    """The ``git clone`` command line: shallow, no submodules, no hooks (empty template)."""
    settings = [argument for setting in _GIT_SETTINGS for argument in ("-c", setting)]
    return [
        git,
        *settings,
        "clone",
        "--quiet",
        "--depth=1",
        "--no-recurse-submodules",
        "--template=",
        "--config=core.symlinks=false",
        "--",
        url,
        str(destination),
    ]


def tree_size(path: Path) -> int:
    """Bytes of every file under ``path`` (links not followed)."""
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except FileNotFoundError:  # git removes its temporary files as it goes
                continue
    return total


async def _checked_target(context: ToolContext, url: str) -> str:
    """``url``, normalised; ``ToolError`` with the reason for a URL the egress proxy would
    refuse (the proxy still checks every connection git makes)."""
    try:
        parsed = checked_url(url)
    except FetchError as error:
        raise ToolError(str(error)) from None
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    settings = context.platform.settings
    if port not in settings.egress_allowed_ports:
        allowed = ", ".join(str(p) for p in settings.egress_allowed_ports)
        raise ToolError(f"Refused: port {port} is not allowed (only {allowed}).")
    try:
        await resolve_checked(tool_address_policy(settings), parsed.host or "", port)
    except BlockedAddress as blocked:
        raise ToolError(str(blocked)) from None
    except (socket.gaierror, UnicodeError):
        raise ToolError(f"{parsed.host} could not be resolved.") from None
    return str(parsed)


async def _run_git(command: list[str], env: dict[str, str], work: Path, max_bytes: int) -> None:
    """Run git until it exits, killing its process group once ``work`` grows past
    ``max_bytes`` (``CloneTooLarge``) or the caller's time limit cancels the run.
    ``ToolError`` with the end of git's error output when it fails."""
    process = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        cwd=work,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stderr is not None
    errors = asyncio.create_task(_tail(process.stderr))
    exited = asyncio.create_task(process.wait())
    try:
        while not exited.done():
            await asyncio.wait({exited}, timeout=SIZE_CHECK_INTERVAL)
            if await asyncio.to_thread(tree_size, work) > max_bytes:
                raise CloneTooLarge
        if process.returncode != 0:
            raise ToolError(f"git clone failed: {_last_lines(await errors, env)}")
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        await asyncio.gather(exited, return_exceptions=True)
        errors.cancel()
        await asyncio.gather(errors, return_exceptions=True)


def _new_work_folder(staging: Path, timeout: float) -> Path:
    """A new folder for one clone in ``staging``, after removing those of clones that can no
    longer be running (left by a server that stopped mid-clone)."""
    staging.mkdir(mode=0o700, parents=True, exist_ok=True)
    stale = time.time() - timeout - STALE_MARGIN_SECONDS
    for entry in os.scandir(staging):
        if entry.name.startswith("clone-") and entry.stat(follow_symlinks=False).st_mtime < stale:
            shutil.rmtree(entry.path, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix="clone-", dir=staging))


async def _tail(stream: asyncio.StreamReader) -> bytes:
    kept = b""
    while chunk := await stream.read(65536):
        kept = (kept + chunk)[-ERROR_TAIL_BYTES:]
    return kept


def _last_lines(errors: bytes, env: dict[str, str]) -> str:
    """The last lines git wrote, without the proxy's credentials should git quote them."""
    text = errors.decode(errors="replace")
    proxy = urlsplit(env["GIT_CONFIG_VALUE_0"])
    for secret in (env["GIT_CONFIG_VALUE_0"], proxy.password):
        if secret:
            text = text.replace(secret, "***")
    lines = [line.strip() for line in text.splitlines()]
    return " / ".join(line for line in lines[-5:] if line) or "no message"


async def _head_commit(git: str, repository: Path, env: dict[str, str]) -> str:
    process = await asyncio.create_subprocess_exec(
        git, "-C", str(repository), "rev-parse", "HEAD", env=env, stdout=-1, stderr=-3
    )
    out, _ = await process.communicate()
    return out.decode().strip()


async def _git_clone(context: ToolContext, arguments: dict[str, Any]) -> Any:
    url = required_text(arguments, "url")
    root = await workspace_of(context)
    target = confined(root, arguments.get("path", ""))
    if await asyncio.to_thread(os.path.lexists, target):
        raise ToolError(f"'{relative_name(root, target)}' already exists: choose a new path.")
    git = shutil.which("git", path=_SYSTEM_PATH)
    if git is None:
        raise ToolError("git is not installed on this server (Debian package 'git').")
    url = await _checked_target(context, url)
    settings = context.platform.settings
    proxy = await context.platform.egress.access_for(context.owner_id)
    work = await asyncio.to_thread(
        _new_work_folder, settings.data_dir / "staging", settings.git_clone_timeout_seconds
    )
    try:
        (work / "home").mkdir(mode=0o700)
        env = git_environment(work / "home", proxy)
        clone = work / "repository"
        limit = settings.git_clone_timeout_seconds
        try:
            async with asyncio.timeout(limit):
                await _run_git(
                    clone_command(git, url, clone), env, work, settings.git_clone_max_bytes
                )
        except TimeoutError:
            raise ToolError(f"git clone did not finish within {limit:g} seconds.") from None
        except CloneTooLarge:
            raise ToolError(
                f"The repository is larger than the clone limit of "
                f"{settings.git_clone_max_bytes} bytes; nothing was kept."
            ) from None
        size = await asyncio.to_thread(tree_size, clone)
        commit = await _head_commit(git, clone, env)
        folder = await asyncio.to_thread(open_destination, root, target)
        try:
            await asyncio.to_thread(move_folder_into, folder, target.name, clone)
        finally:
            os.close(folder)
    finally:
        await asyncio.to_thread(shutil.rmtree, work, True)
    return {"path": relative_name(root, target), "commit": commit, "size": size}


GIT_CLONE = FunctionTool(
    "git_clone",
    "Clone a public git repository (an https:// or http:// URL) into your workspace at "
    "'path', which must not exist yet: the latest commit only (shallow), without submodules. "
    "Private and local network addresses are refused. Bounded in size and time (by default "
    "200 MiB and 5 minutes); on failure nothing is kept. Returns the path, the commit and "
    "the size.",
    object_schema(
        {
            "url": {
                "type": "string",
                "description": "The repository's https:// (or http://) URL.",
            },
            "path": {
                "type": "string",
                "description": "The new folder for it, relative to your workspace (e.g. "
                "'src/project').",
            },
        },
        ["url", "path"],
    ),
    _git_clone,
)

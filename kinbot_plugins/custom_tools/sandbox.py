"""Running a Kin's script confined: bubblewrap where it works, else Landlock, else not at all.

The ``custom_tool_sandbox`` setting chooses: ``auto`` (bubblewrap, else Landlock, else
refused), ``bubblewrap`` or ``landlock`` (that one, else refused), or ``none`` (no
confinement, an administrator's explicit choice, logged as a warning). Which works is
probed once, on first need, by confining a real process the way runs are (``probe``).
Refused, custom tools cannot be registered nor run, and the error says what to install or
set. ``confinement`` says what a run may touch; ``launcher`` applies it in the child.

Every run, whatever the mode: the script's real path is inside the workspace; it starts in
the workspace with only ``PATH``, ``LANG``, ``HOME`` (and ``TMPDIR``, proxy variables) in
its environment, reads its arguments as JSON on stdin, has rlimits (CPU, memory, processes,
file size, open files), is killed with its whole process group when it ends or at the time
limit, and only the first bytes of its stdout and stderr are kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kinbot_core.egress import ProxyAccess
from kinbot_plugins.custom_tools import confinement, launcher
from kinbot_plugins.custom_tools.confinement import Limits
from kinbot_plugins.custom_tools.process import ScriptRun, run_process
from kinbot_plugins.custom_tools.scratch import SCRATCH

logger = logging.getLogger(__name__)

SandboxMode = Literal["bubblewrap", "landlock", "none", "refused"]
#: A bound for a broken sandbox that hangs: a probe takes a fraction of a second.
PROBE_TIMEOUT = 60.0
HOW_TO_FIX = (
    "To run custom tools, install bubblewrap (the 'bubblewrap' package) where user "
    "namespaces are allowed, or run KinBot on a Linux kernel with Landlock enabled (5.13 or "
    'later), or set custom_tool_sandbox = "none" to run them unconfined (dangerous: Kin code '
    "can then read everything the server can; see docs/configuration.md)."
)


class ScriptError(Exception):
    """The script cannot be run (not a runnable file, say); the message says why."""


class SandboxRefused(Exception):
    """Kin code cannot run here: no sandbox works (or the launcher could not confine a run).
    The message says why, and what an administrator can do."""


@dataclass(frozen=True)
class SandboxState:
    """How Kin code runs on this machine: the mode, why it is refused, the Landlock ABI."""

    mode: SandboxMode
    problem: str | None = None
    landlock_abi: int = 0

    @property
    def confined(self) -> bool:
        return self.mode in ("bubblewrap", "landlock")

    @property
    def network_possible(self) -> bool:
        """Whether a Kin's network opt-in can be honoured: TCP limited to the proxy needs
        Landlock's network rules (ABI 4)."""
        return self.mode == "none" or (self.confined and self.landlock_abi >= 4)


def command_for(script: Path, relative: str) -> list[str]:
    """The command running ``script`` (its real path), ``relative`` to the workspace:
    ``.py`` with Python (``kin_python``), ``.sh`` with bash, any other executable file as
    is."""
    info = script.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ScriptError(f"'{relative}' is not a regular file.")
    target = "./" + relative
    suffix = script.suffix.lower()
    if suffix == ".py":
        return [confinement.kin_python(), "-E", "-s", target]
    if suffix == ".sh":
        return ["/bin/bash", target]
    if info.st_mode & stat.S_IXUSR:
        return [target]
    raise ScriptError(
        f"'{relative}' cannot be run: write a .py or .sh script, or make the file "
        "executable (write_file with executable=true)."
    )


@dataclass
class _Launch:
    """One prepared run: its command, working directory, environment and what to remove."""

    argv: list[str]
    cwd: Path
    env: dict[str, str]
    leftovers: list[Path] = field(default_factory=list)


class Sandbox:
    """Runs Kin code the way ``custom_tool_sandbox`` asks, once it knows what works here."""

    def __init__(self, setting: str, limits: Limits) -> None:
        self.setting = setting
        self.limits = limits
        self._state: SandboxState | None = None
        self._lock = asyncio.Lock()

    async def state(self) -> SandboxState:
        """The mode in force, probed once."""
        async with self._lock:
            if self._state is None:
                self._state = await self._probe()
            return self._state

    async def _probe(self) -> SandboxState:
        abi = launcher.landlock_abi()
        if self.setting == "none":
            logger.warning(
                "custom tools run WITHOUT a sandbox (custom_tool_sandbox = none): Kin code "
                "can read everything the server can, secret.key and the database included"
            )
            return SandboxState("none", landlock_abi=abi)
        problems = []
        modes: tuple[SandboxMode, ...] = ("bubblewrap", "landlock")
        for mode in modes:
            if self.setting not in ("auto", mode):
                continue
            problem = await self._problem_with(mode)
            if problem is None:
                logger.info("custom tools run confined by %s", mode)
                return SandboxState(mode, landlock_abi=abi)
            problems.append(f"{mode}: {problem}")
        if self.setting == "auto":
            problem = f"no sandbox works on this machine ({'; '.join(problems)}). {HOW_TO_FIX}"
        else:
            problem = f"custom_tool_sandbox = {self.setting}, but {problems[0]}. {HOW_TO_FIX}"
        logger.error("custom tools are refused: %s", problem)
        return SandboxState("refused", problem, landlock_abi=abi)

    async def _problem_with(self, mode: SandboxMode) -> str | None:
        """Why ``mode`` cannot confine a run here (a real one, of Python), or ``None``."""
        workspace = await asyncio.to_thread(SCRATCH.directory, "probe-")
        try:
            launch = await self._prepare(mode, workspace, [confinement.kin_python(), "-c", ""])
            try:
                run = await run_process(
                    launch.argv, launch.cwd, launch.env, b"", PROBE_TIMEOUT, 2000
                )
            finally:
                await _remove(launch.leftovers)
        except (SandboxRefused, OSError) as exc:
            return str(exc)
        except Exception as exc:  # kept as a refusal: probing again at every run costs a process
            logger.exception("probing the %s sandbox failed", mode)
            return f"probing it failed ({type(exc).__name__}: {exc})"
        finally:
            await _remove([workspace])
        if run.exit_code == 0:
            return None
        if run.timed_out:
            return f"a confined Python did not finish within {PROBE_TIMEOUT:g} seconds"
        return run.stderr.strip().removeprefix(launcher.MARK)[:300] or f"exit code {run.exit_code}"

    async def run(
        self,
        workspace: Path,
        command: list[str],
        arguments: dict[str, Any],
        *,
        time_limit: float,
        max_output: int,
        proxy: ProxyAccess | None = None,
    ) -> ScriptRun:
        """Run ``command`` (from ``command_for``) in ``workspace`` with ``arguments`` as JSON
        on stdin; with ``proxy``, its network goes through that proxy and nowhere else.
        Raises ``SandboxRefused`` when Kin code cannot run confined here."""
        state = await self.state()
        if state.mode == "refused":
            raise SandboxRefused(state.problem or "")
        launch = await self._prepare(state.mode, workspace, command, proxy)
        try:
            run = await run_process(
                launch.argv,
                launch.cwd,
                launch.env,
                json.dumps(arguments).encode(),
                time_limit,
                max_output,
            )
        finally:
            await _remove(launch.leftovers)
        if run.exit_code == launcher.EXIT_CODE and run.stderr.startswith(launcher.MARK):
            problem = run.stderr.strip().removeprefix(launcher.MARK)
            raise SandboxRefused(f"the sandbox could not be set up: {problem}")
        return run

    async def _prepare(
        self,
        mode: SandboxMode,
        workspace: Path,
        command: list[str],
        proxy: ProxyAccess | None = None,
    ) -> _Launch:
        if mode == "bubblewrap":
            return await self._bubblewrap(workspace, command, proxy)
        if mode == "landlock":
            return await self._landlock(workspace, command, proxy)
        env = confinement.environment(str(workspace), None, proxy)
        argv = confinement.launched(confinement.server_python(), self.limits.policy(), command)
        return _Launch(argv, workspace, env)

    async def _landlock(
        self, workspace: Path, command: list[str], proxy: ProxyAccess | None
    ) -> _Launch:
        private_tmp = await asyncio.to_thread(SCRATCH.directory, "tmp-")
        visible, leftovers = workspace, [private_tmp]
        policy: dict[str, Any] = {}
        if confinement.running_as_root():
            await asyncio.to_thread(confinement.hand_over, private_tmp, confinement.NOBODY)
            visible, policy, staged = await _for_nobody(workspace)
            leftovers += staged
        policy |= confinement.landlock_policy(visible, private_tmp, self.limits, proxy)
        argv = confinement.launched(confinement.server_python(), policy, command)
        env = confinement.environment(str(visible), str(private_tmp), proxy)
        return _Launch(argv, workspace, env, leftovers)

    async def _bubblewrap(
        self, workspace: Path, command: list[str], proxy: ProxyAccess | None
    ) -> _Launch:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxRefused("bubblewrap is not installed (no bwrap on the PATH)")
        inner = confinement.launched(
            confinement.kin_python(), confinement.inner_policy(self.limits, proxy), command
        )
        env = {"PATH": confinement.SAFE_PATH}
        if not confinement.running_as_root():
            options = confinement.bubblewrap_options(bwrap, workspace, proxy)
            return _Launch(options + inner, workspace, env)
        # As root, bubblewrap runs as nobody, so that the process limit counts.
        visible, outer, leftovers = await _for_nobody(workspace)
        options = confinement.bubblewrap_options(bwrap, visible, proxy)
        argv = confinement.launched(confinement.server_python(), outer, options + inner)
        return _Launch(argv, workspace, env, leftovers)


async def _for_nobody(workspace: Path) -> tuple[Path, dict[str, Any], list[Path]]:
    """For a server running as root: the workspace given to nobody, where nobody reaches it
    (where it is, or mounted on a new directory when a parent is closed to other users),
    the launcher's policy steps for that, and the directories to remove after the run."""
    nobody = confinement.NOBODY
    await asyncio.to_thread(confinement.hand_over, workspace, nobody)
    if await asyncio.to_thread(confinement.reachable_by, workspace, nobody):
        return workspace, {"user": nobody}, []
    staging = await asyncio.to_thread(SCRATCH.directory, "workspace-")
    stage = {"source": str(workspace), "target": str(staging)}
    return staging, {"stage": stage, "user": nobody}, [staging]


async def _remove(paths: list[Path]) -> None:
    for path in paths:
        await asyncio.to_thread(confinement.remove_tree, path)

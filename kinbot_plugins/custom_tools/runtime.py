"""A platform's custom tools at work: the store, the sandbox and the running of one tool."""

from __future__ import annotations

import json
import logging
import signal
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kinbot_core.egress import ProxyAccess
from kinbot_core.kins.service import KinView
from kinbot_core.tools import ToolError
from kinbot_plugins.custom_tools.confinement import Limits, running_as_root
from kinbot_plugins.custom_tools.description import sandbox_note
from kinbot_plugins.custom_tools.process import ScriptRun
from kinbot_plugins.custom_tools.sandbox import (
    Sandbox,
    SandboxRefused,
    SandboxState,
    ScriptError,
    command_for,
)
from kinbot_plugins.custom_tools.store import CustomTool, CustomToolStore
from kinbot_plugins.tools.workspace_paths import confined, workspace_root


@dataclass(frozen=True)
class Network:
    """A Kin's code's network: ``off`` (its setting), ``unavailable`` (allowed, but this
    machine cannot limit it to the egress proxy, or there is no proxy) or ``proxy``."""

    state: Literal["off", "unavailable", "proxy"]
    proxy: ProxyAccess | None


logger = logging.getLogger(__name__)
_RUNTIMES: weakref.WeakKeyDictionary[Any, CustomToolsRuntime] = weakref.WeakKeyDictionary()


def runtime_of(platform: Any) -> CustomToolsRuntime:
    """The custom tools runtime of ``platform`` (one per running platform)."""
    runtime = _RUNTIMES.get(platform)
    if runtime is None:
        runtime = _RUNTIMES[platform] = CustomToolsRuntime(platform)
    return runtime


#: Kins whose owner is kept (``CustomToolsRuntime.owner``).
KEPT_OWNERS = 4096


class CustomToolsRuntime:
    """Registers, lists and runs the Kins' custom tools of one platform."""

    def __init__(self, platform: Any) -> None:
        self.platform = platform
        settings = platform.settings
        self.store = CustomToolStore(platform.db)
        self.sandbox = Sandbox(settings.custom_tool_sandbox, Limits.of(settings))
        #: Kin id → the id of the Kin whose tools it uses (asked every turn; a Kin's row says
        #: once and for all whether it is a sub-Kin, and whose).
        self._owners: dict[str, str] = {}

    async def sandbox_state(self) -> SandboxState:
        """How Kin code is confined on this machine (or why it is refused)."""
        return await self.sandbox.state()

    async def network_of(self, kin_id: str) -> Network:
        """What network the Kin's code has: its own setting (for a sub-Kin, that of the Kin
        it works as), what this machine can do, and the proxy it goes through."""
        owner = await self._owner_view(kin_id)
        state = await self.sandbox_state()
        if not owner.network_access:
            return Network("off", None)
        if not state.network_possible:
            return Network("unavailable", None)
        proxy = await self.proxy_for(owner.id)
        return Network("proxy", proxy) if proxy is not None else Network("unavailable", None)

    async def note(self, kin_id: str) -> str:
        """Where the Kin's scripts run, in words for its model (true of this machine, of
        the mode in force and of its network setting)."""
        state = await self.sandbox_state()
        network = await self.network_of(kin_id)
        settings = self.platform.settings
        return sandbox_note(
            state,
            network.state,
            self.sandbox.limits,
            settings.custom_tool_timeout_seconds,
            as_nobody=running_as_root(),
        )

    async def proxy_for(self, kin_id: str) -> ProxyAccess | None:
        """The Kin's access to the egress proxy (started on first use), ``None`` when the
        proxy cannot serve it (stopped, or ``fetch_allowed_networks`` misconfigured)."""
        try:
            access: ProxyAccess = await self.platform.egress.access_for(kin_id)
            return access
        except (ValueError, RuntimeError) as exc:
            logger.error("no egress proxy for Kin %s: %s", kin_id, exc)
            return None

    async def owner(self, kin_id: str) -> str:
        """Whose custom tools a Kin uses: its own, or for a sub-Kin (a hidden Kin row)
        those of the Kin it works as."""
        owner = self._owners.get(kin_id)
        if owner is None:
            owner = str((await self._owner_view(kin_id)).id)
            if len(self._owners) >= KEPT_OWNERS:
                self._owners.clear()
            self._owners[kin_id] = owner
        return owner

    async def _owner_view(self, kin_id: str) -> KinView:
        kins = self.platform.kins
        kin: KinView = await kins.get(kin_id, include_tasks=True)
        if kin.task_id is None:
            return kin
        task = await self.platform.tasks.of_session(kin_id)
        return kin if task is None else await kins.get(str(task.kin_id), include_tasks=True)

    async def workspace(self, kin_id: str) -> Path:
        """The real path of the Kin's workspace."""
        return await workspace_root(self.platform, kin_id)

    async def usable(self) -> SandboxState:
        """The sandbox state, or ``ToolError`` saying why custom tools cannot run here."""
        state = await self.sandbox_state()
        if state.mode == "refused":
            raise ToolError(f"Custom tools are disabled on this server: {state.problem}")
        return state

    async def checked_script(self, kin_id: str, relative: Any) -> str:
        """``relative`` as a runnable script inside the Kin's workspace, or ``ToolError``."""
        await self.usable()
        root = await self.workspace(kin_id)
        script = confined(root, relative)
        if not script.exists():
            raise ToolError(f"There is no file '{relative}' in your workspace: write it first.")
        try:
            command_for(script, script.relative_to(root).as_posix())
        except ScriptError as exc:
            raise ToolError(str(exc)) from None
        return script.relative_to(root).as_posix()

    async def run(self, kin_id: str, tool: CustomTool, arguments: Any) -> dict[str, Any]:
        """Run ``tool``'s script with ``arguments`` (checked against its schema)."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolError(f"{tool.name} takes an object of named arguments.")
        from jsonschema import Draft202012Validator  # by the first call, not at start-up

        problems = sorted(
            Draft202012Validator(tool.parameters).iter_errors(arguments), key=lambda e: e.path
        )
        if problems:
            raise ToolError(f"Wrong arguments for {tool.name}: {problems[0].message}")
        root = await self.workspace(kin_id)
        script = confined(root, tool.path)  # again: the path may have changed since
        relative = script.relative_to(root).as_posix()
        try:
            command = command_for(script, relative)
        except FileNotFoundError:
            raise ToolError(f"The script '{tool.path}' of {tool.name} is gone.") from None
        except ScriptError as exc:
            raise ToolError(str(exc)) from None
        await self.usable()
        network = await self.network_of(kin_id)
        settings = self.platform.settings
        try:
            run = await self.sandbox.run(
                root,
                command,
                arguments,
                time_limit=settings.custom_tool_timeout_seconds,
                max_output=settings.custom_tool_output_max_bytes,
                proxy=network.proxy,
            )
        except SandboxRefused as exc:
            raise ToolError(f"{tool.name} cannot run: {exc}") from None
        return _outcome(tool.name, run, settings.custom_tool_timeout_seconds)


def _outcome(name: str, run: ScriptRun, timeout: float) -> dict[str, Any]:
    result: dict[str, Any] = {
        "exit_code": run.exit_code,
        "stdout": run.stdout,
        "stderr": run.stderr,
    }
    if run.stdout_truncated or run.stderr_truncated:
        result["truncated"] = [
            stream
            for stream, cut in (("stdout", run.stdout_truncated), ("stderr", run.stderr_truncated))
            if cut
        ]
    if run.timed_out:
        raise ToolError(
            f"{name} took longer than {timeout:g} seconds and was stopped. "
            f"Output so far: {json.dumps(result)}"
        )
    if run.exit_code != 0:
        code = f"{run.exit_code}"
        if run.exit_code is not None and run.exit_code < 0:  # killed by a signal
            code += f", {signal.Signals(-run.exit_code).name}"
        raise ToolError(f"{name} failed (exit code {code}): {json.dumps(result)}")
    return result

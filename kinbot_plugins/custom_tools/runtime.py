"""A platform's custom tools at work: the store, the sandbox and the running of one tool."""

from __future__ import annotations

import json
import weakref
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from kinbot_core.tools import ToolError
from kinbot_plugins.custom_tools.sandbox import (
    Sandbox,
    SandboxMode,
    ScriptError,
    ScriptRun,
    command_for,
)
from kinbot_plugins.custom_tools.store import CustomTool, CustomToolStore
from kinbot_plugins.tools.workspace_paths import confined, workspace_root

_RUNTIMES: weakref.WeakKeyDictionary[Any, CustomToolsRuntime] = weakref.WeakKeyDictionary()


def runtime_of(platform: Any) -> CustomToolsRuntime:
    """The custom tools runtime of ``platform`` (one per running platform)."""
    runtime = _RUNTIMES.get(platform)
    if runtime is None:
        runtime = _RUNTIMES[platform] = CustomToolsRuntime(platform)
    return runtime


class CustomToolsRuntime:
    """Registers, lists and runs the Kins' custom tools of one platform."""

    def __init__(self, platform: Any) -> None:
        self.platform = platform
        settings = platform.settings
        self.store = CustomToolStore(platform.db)
        self.sandbox = Sandbox(settings.custom_tool_sandbox, network=settings.custom_tool_network)

    async def sandbox_mode(self) -> SandboxMode:
        """``bubblewrap`` or ``none``: how scripts are confined on this machine."""
        return await self.sandbox.mode()

    async def owner(self, kin_id: str) -> str:
        """Whose custom tools a Kin uses: its own, or for a sub-Kin (a hidden Kin row)
        those of the Kin it works as."""
        kin = await self.platform.kins.get(kin_id, include_tasks=True)
        if kin.task_id is None:
            return kin_id
        task = await self.platform.tasks.of_session(kin_id)
        return str(task.kin_id) if task is not None else kin_id

    async def workspace(self, kin_id: str) -> Path:
        """The real path of the Kin's workspace."""
        return await workspace_root(self.platform, kin_id)

    async def checked_script(self, kin_id: str, relative: Any) -> str:
        """``relative`` as a runnable script inside the Kin's workspace, or ``ToolError``."""
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
        settings = self.platform.settings
        run = await self.sandbox.run(
            root,
            command,
            arguments,
            time_limit=settings.custom_tool_timeout_seconds,
            max_output=settings.custom_tool_output_max_bytes,
        )
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
        raise ToolError(f"{name} failed (exit code {run.exit_code}): {json.dumps(result)}")
    return result

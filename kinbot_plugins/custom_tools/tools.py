"""The tools a Kin manages its custom tools with, and each registered script as a tool."""

from __future__ import annotations

from typing import Any

from kinbot_core.tools import FunctionTool, ToolContext, ToolError, object_schema
from kinbot_plugins.custom_tools.runtime import runtime_of
from kinbot_plugins.custom_tools.store import (
    CustomTool,
    checked_description,
    checked_name,
    checked_schema,
)


class ScriptTool:
    """One registered script offered to its Kin as a tool of its own."""

    prompt_hint = ""

    def __init__(self, tool: CustomTool) -> None:
        self.tool = tool
        self.name = tool.name
        self.description = f"{tool.description} (your custom tool: {tool.path})"
        self.parameters = tool.parameters

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        return await runtime_of(context.platform).run(context.kin_id, self.tool, arguments)


def _reserved(context: ToolContext, name: str) -> None:
    """Refuse a name a platform tool already has (the model could not call the script)."""
    taken = {tool.name for tool in context.platform.registries.tools}
    if name in taken:
        raise ToolError(f"{name!r} is the name of a platform tool: choose another name.")


async def _register(context: ToolContext, arguments: dict[str, Any]) -> Any:
    runtime = runtime_of(context.platform)
    name = checked_name(arguments.get("name"))
    _reserved(context, name)
    description = checked_description(arguments.get("description"))
    parameters = checked_schema(arguments.get("parameters"))
    path = await runtime.checked_script(context.kin_id, arguments.get("path"))
    owner = await runtime.owner(context.kin_id)
    tool = await runtime.store.add(owner, name, description, parameters, path)
    return {
        "registered": tool.to_dict(),
        "note": f"From your next turn on you can call {name} directly "
        f"(or now with run_custom_tool).",
    }


async def _update(context: ToolContext, arguments: dict[str, Any]) -> Any:
    runtime = runtime_of(context.platform)
    name = checked_name(arguments.get("name"))
    changes: dict[str, Any] = {}
    if arguments.get("description") is not None:
        changes["description"] = checked_description(arguments["description"])
    if arguments.get("parameters") is not None:
        changes["parameters"] = checked_schema(arguments["parameters"])
    if arguments.get("path") is not None:
        changes["path"] = await runtime.checked_script(context.kin_id, arguments["path"])
    if not changes:
        raise ToolError("Give at least one of description, parameters and path to change.")
    tool = await runtime.store.update(await runtime.owner(context.kin_id), name, changes)
    return {"updated": tool.to_dict()}


async def _delete(context: ToolContext, arguments: dict[str, Any]) -> Any:
    name = checked_name(arguments.get("name"))
    runtime = runtime_of(context.platform)
    if not await runtime.store.delete(await runtime.owner(context.kin_id), name):
        raise ToolError(f"You have no custom tool named {name!r}.")
    return {"deleted": name, "note": "Its script stays in your workspace."}


async def _list(context: ToolContext, arguments: dict[str, Any]) -> Any:
    runtime = runtime_of(context.platform)
    tools = await runtime.store.list(await runtime.owner(context.kin_id))
    state = await runtime.sandbox_state()
    return {
        "sandbox": state.mode,
        "sandbox_note": await runtime.note(context.kin_id),
        "tools": [tool.to_dict() for tool in tools],
    }


async def _run(context: ToolContext, arguments: dict[str, Any]) -> Any:
    runtime = runtime_of(context.platform)
    name = arguments.get("tool_name")
    if not isinstance(name, str) or not name:
        raise ToolError("'tool_name' is the name of one of your custom tools.")
    tool = await runtime.store.get(await runtime.owner(context.kin_id), name)
    return await runtime.run(context.kin_id, tool, arguments.get("args"))


HINT = (
    "You can make your own tools: write a script in your workspace (write_file, e.g. "
    "'tools/convert.py' or 'tools/fetch.sh'), then register it with register_tool. A script "
    "reads its arguments as a JSON object on stdin and answers on stdout; it starts in your "
    "workspace. Where it runs is described under 'Your scripts' sandbox'."
)
_NAME = {"type": "string", "description": "The tool's name (lower-case, digits, underscores)."}
_SCHEMA = {
    "type": "object",
    "description": 'JSON Schema of its arguments, e.g. {"type": "object", "properties": '
    '{"url": {"type": "string"}}, "required": ["url"]}.',
}
_PATH = {"type": "string", "description": "The script, relative to your workspace."}

TOOLS: tuple[FunctionTool, ...] = (
    FunctionTool(
        "register_tool",
        "Register a script of your workspace as one of your tools (.py, .sh or executable).",
        object_schema(
            {
                "name": _NAME,
                "description": {"type": "string", "description": "What the tool does."},
                "parameters": _SCHEMA,
                "path": _PATH,
            },
            ["name", "description", "path"],
        ),
        _register,
        HINT,
    ),
    FunctionTool(
        "run_custom_tool",
        "Run one of your custom tools with its arguments (in its sandbox).",
        object_schema(
            {
                "tool_name": {"type": "string"},
                "args": {"type": "object", "description": "Its arguments."},
            },
            ["tool_name"],
        ),
        _run,
    ),
    FunctionTool(
        "list_custom_tools",
        "List your custom tools, and what their sandbox lets them reach.",
        object_schema({}),
        _list,
    ),
    FunctionTool(
        "update_custom_tool",
        "Change the description, parameters or script of one of your custom tools.",
        object_schema(
            {
                "name": _NAME,
                "description": {"type": "string"},
                "parameters": _SCHEMA,
                "path": _PATH,
            },
            ["name"],
        ),
        _update,
    ),
    FunctionTool(
        "delete_custom_tool",
        "Delete one of your custom tools (its script stays in your workspace).",
        object_schema({"name": _NAME}, ["name"]),
        _delete,
    ),
)

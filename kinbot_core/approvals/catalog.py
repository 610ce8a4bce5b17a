"""The tools an administrator can mark as needing approval: those offered to one Kin, or to
any Kin (platform-wide), each with its description for the settings' lists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookspecs.types import KinRef
from kinbot_core.tools import Tool, offered_to

if TYPE_CHECKING:
    from kinbot_core.kins.service import KinView
    from kinbot_core.platform import Platform

#: Tools that act outside the Kin's own session or workspace, or destroy something: what
#: the settings suggest asking about first. Nothing asks by default.
SUGGESTED = frozenset(
    {
        "notify",
        "send_message",
        "run_custom_tool",
        "delete_file",
        "delete_cron",
        "delete_custom_tool",
        "forget",
        "git_clone",
        "download_file",
    }
)


def _entry(tool: Tool, source: str) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "source": source,
        "suggested": tool.name in SUGGESTED or source == "kin",
    }


async def tools_of(platform: Platform, kin: KinView) -> list[dict[str, Any]]:
    """The tools offered to the main session of ``kin``: registered ones (``native``), then
    those plugins add for it alone (``kin``: its MCP servers' and its custom tools)."""
    tools = [_entry(t, "native") for t in platform.registries.tools if offered_to(t, is_task=False)]
    names = {tool["name"] for tool in tools}
    ref = KinRef(id=kin.id, name=kin.name, model=kin.model)
    for contributed in await platform.hooks.call("tools_for_kin", kin=ref):
        for tool in contributed:
            if isinstance(tool, Tool) and tool.name not in names:
                tools.append(_entry(tool, "kin"))
                names.add(tool.name)
    return tools


async def all_tools(platform: Platform) -> list[dict[str, Any]]:
    """Every tool offered to some Kin's main session, each once."""
    seen: dict[str, dict[str, Any]] = {}
    for kin in await platform.kins.list_all():
        for tool in await tools_of(platform, kin):
            seen.setdefault(tool["name"], tool)
    if not seen:  # no Kin yet: the registered tools
        for tool in platform.registries.tools:
            if offered_to(tool, is_task=False):
                seen[tool.name] = _entry(tool, "native")
    return list(seen.values())

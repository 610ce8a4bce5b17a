"""The ``list_kins`` tool: which Kins the platform has, so a Kin knows whom it can talk to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.kins.access import shown_in
from kinbot_core.tools import Tool, ToolContext, ToolError


class ListKinsTool:
    """``list_kins()``: the Kins of the platform as ``{id, name, role}`` (those everyone who
    may use the calling Kin may use too)."""

    name = "list_kins"
    description = (
        "List the Kins of this platform, each with its id, name and role, to find one to talk "
        "to or ask for help."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> list[dict[str, str]]:
        """Return ``[{"id", "name", "role"}, ...]`` from ``platform.kins.list_all()``."""
        if arguments is not None and not isinstance(arguments, dict):
            raise ToolError("list_kins takes an object of named arguments (an empty one).")
        if arguments:
            raise ToolError(f"list_kins takes no arguments (got {', '.join(sorted(arguments))}).")
        kins = await context.platform.kins.list_all()
        # Only Kins whose name everyone reading this session may see (kinbot_core.kins.access).
        shown = [k for k in kins if shown_in(context.platform, context.kin_id, k.id)]
        return [{"id": kin.id, "name": kin.name, "role": kin.role} for kin in shown]


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    register(ListKinsTool())

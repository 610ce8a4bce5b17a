"""The memory tools: a Kin manages its long-term memory and searches its own history.

``recall``, ``memorize``, ``update_memory``, ``forget``, ``list_memories`` and
``search_history``, all through the platform's memory backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.memory import CATEGORIES, MemoryError
from kinbot_core.tools import FunctionTool, Tool, ToolContext, ToolError, object_schema


def _text(arguments: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = arguments.get(name, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ToolError(f"'{name}' must be a non-empty string.")
    return value


def _memory_id(arguments: dict[str, Any]) -> int:
    value = arguments.get("memory_id")
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolError("'memory_id' must be the number list_memories or recall gave.")
    return value


@dataclass
class MemoryTool(FunctionTool):
    """A memory tool: a ``MemoryError`` becomes the model's ``ToolError``."""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        try:
            return await self.runner(context, arguments)
        except MemoryError as exc:
            raise ToolError(str(exc)) from exc


async def _recall(context: ToolContext, arguments: dict[str, Any]) -> Any:
    found = await context.platform.memory.recall(context.owner_id, _text(arguments, "query"))
    context.platform.memory.note_recalled(context.owner_id, [m.id for m in found])
    return {"memories": [m.to_dict() for m in found]}


async def _memorize(context: ToolContext, arguments: dict[str, Any]) -> Any:
    category = _text(arguments, "category")
    if category not in CATEGORIES:
        raise ToolError(f"'category' is one of: {', '.join(CATEGORIES)}.")
    memory = await context.platform.memory.memorize(
        context.owner_id,
        _text(arguments, "content"),
        category,
        _text(arguments, "subject", required=False),
    )
    return {"memory": memory.to_dict()}


async def _update(context: ToolContext, arguments: dict[str, Any]) -> Any:
    memory = await context.platform.memory.update(
        context.owner_id, _memory_id(arguments), _text(arguments, "new_content")
    )
    return {"memory": memory.to_dict()}


async def _forget(context: ToolContext, arguments: dict[str, Any]) -> Any:
    memory_id = _memory_id(arguments)
    await context.platform.memory.forget(context.owner_id, memory_id)
    return {"forgotten": memory_id}


async def _list(context: ToolContext, arguments: dict[str, Any]) -> Any:
    subject = arguments.get("subject") or None
    category = arguments.get("category") or None
    found = await context.platform.memory.memories(
        context.owner_id, subject=subject, category=category
    )
    return {"memories": [m.to_dict() for m in found[:100]]}


async def _search_history(context: ToolContext, arguments: dict[str, Any]) -> Any:
    hits = await context.platform.memory.search_history(context.owner_id, _text(arguments, "query"))
    return {"messages": [hit.to_dict() for hit in hits]}


HINT = (
    "Your long-term memory outlives this conversation. When you learn something durable "
    "(a fact about someone, a preference, a decision, knowledge of your domain), store it "
    "with memorize; correct it with update_memory and remove what became wrong with forget. "
    "Use recall before answering questions about people or past decisions, and "
    "search_history to find what was said earlier in this session. Never store secrets."
)

TOOLS: tuple[MemoryTool, ...] = (
    MemoryTool(
        "recall",
        "Search your long-term memory (by meaning and by keywords).",
        object_schema({"query": {"type": "string", "description": "What to look for."}}, ["query"]),
        _recall,
        HINT,
    ),
    MemoryTool(
        "memorize",
        "Store a durable memory now.",
        object_schema(
            {
                "content": {"type": "string"},
                "category": {"type": "string", "enum": list(CATEGORIES)},
                "subject": {"type": "string", "description": "Who or what it is about."},
            },
            ["content", "category"],
        ),
        _memorize,
    ),
    MemoryTool(
        "update_memory",
        "Replace the content of a memory (a correction, newer information).",
        object_schema(
            {"memory_id": {"type": "integer"}, "new_content": {"type": "string"}},
            ["memory_id", "new_content"],
        ),
        _update,
    ),
    MemoryTool(
        "forget",
        "Delete a memory that became wrong or obsolete.",
        object_schema({"memory_id": {"type": "integer"}}, ["memory_id"]),
        _forget,
    ),
    MemoryTool(
        "list_memories",
        "List your memories, optionally about one subject or of one category.",
        object_schema(
            {
                "subject": {"type": "string"},
                "category": {"type": "string", "enum": list(CATEGORIES)},
            },
            [],
        ),
        _list,
    ),
    MemoryTool(
        "search_history",
        "Search the earlier messages of your session, beyond what you currently see.",
        object_schema({"query": {"type": "string"}}, ["query"]),
        _search_history,
    ),
)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

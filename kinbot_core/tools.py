"""The interface of tools a Kin can call. Plugins contribute them through ``register_tools``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kinbot_core.identity_memo import IdentityMemo


@dataclass(frozen=True)
class Speaker:
    """Who spoke the message a turn answers: a user, another Kin, a task, a cron or the system."""

    kind: str
    id: str | None
    name: str


@dataclass(frozen=True)
class ToolContext:
    """What a tool knows about the call: the platform, the Kin calling, who spoke."""

    #: The running ``kinbot_core.platform.Platform`` (its services: kins, contacts, providers…).
    platform: Any
    kin_id: str
    kin_name: str
    speaker: Speaker | None = None
    #: The id of the queued message that started the turn (``None`` outside a turn).
    trigger_id: int | None = None
    #: For a sub-Kin: the Kin it instantiates, whose memories and contacts it uses.
    owner_kin_id: str | None = None
    #: Adds an upload's reference (``UploadView.reference``) to the attachments of the
    #: turn's final reply (``None`` outside a turn).
    attach: Callable[[dict[str, Any]], None] | None = None

    @property
    def owner_id(self) -> str:
        """Whose memories, contacts and workspace the call works with: the calling Kin's,
        or for a sub-Kin the Kin it is a copy or an instance of."""
        return self.owner_kin_id or self.kin_id


class ToolError(Exception):
    """Raised by a tool to tell the model, in words, why the call failed."""


@runtime_checkable
class Tool(Protocol):
    """A tool: a unique ``name``, a ``description`` and JSON Schema ``parameters`` for the
    model, and ``run``. ``prompt_hint``, when not empty, is added to the system prompt's tool
    section (hidden instructions, e.g. to keep the contact registry up to date)."""

    name: str
    description: str
    parameters: dict[str, Any]
    prompt_hint: str

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        """Do the work; return something JSON-serialisable (or text) for the model.
        Raise ``ToolError`` with a message for the model when the call cannot be done."""
        ...


#: Objects found to be tools (``is_tool``): the plugins give the same ones turn after turn.
_known_tools: IdentityMemo[bool] = IdentityMemo(1024)


def is_tool(value: object) -> bool:
    """``isinstance(value, Tool)``, remembered for the objects that are: asking a Protocol
    costs some 10 µs, and every turn asks it of each tool a plugin adds for its Kin."""
    if _known_tools.get(value):
        return True
    return isinstance(value, Tool) and _known_tools.keep(value, True)


#: Who a tool is offered to, from its optional ``audience`` attribute: every Kin and sub-Kin
#: (``"all"``, the default), main sessions only (``"main"``) or sub-Kins only (``"task"``).
AUDIENCES = ("all", "main", "task")


def offered_to(tool: Tool, *, is_task: bool) -> bool:
    """Whether ``tool`` is offered in a main session (``is_task`` false) or to a sub-Kin."""
    audience = getattr(tool, "audience", "all")
    return audience == "all" or audience == ("task" if is_task else "main")


#: The work of a ``FunctionTool``: ``runner(context, arguments)``.
Runner = Callable[[ToolContext, dict[str, Any]], Awaitable[Any]]


@dataclass
class FunctionTool:
    """A tool made of its schema for the model and an async function doing the work; the
    arguments are checked against the schema's names first (``named_arguments``)."""

    name: str
    description: str
    parameters: dict[str, Any]
    runner: Runner
    prompt_hint: str = ""
    audience: str = "all"

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        return await self.runner(context, named_arguments(self, arguments))


# -- helpers for tool authors --------------------------------------------------------------


def object_schema(
    properties: dict[str, dict[str, Any]], required: list[str] | None = None
) -> dict[str, Any]:
    """The JSON Schema of a tool's named arguments (no others allowed)."""
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }


def named_arguments(tool: Tool, arguments: Any) -> dict[str, Any]:
    """The call's arguments as an object, refusing any name ``tool``'s schema does not know
    (models do invent some)."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{tool.name} takes an object of named arguments.")
    known = tool.parameters["properties"]
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise ToolError(
            f"{tool.name} has no argument(s) {', '.join(unknown)}; "
            f"its arguments are {', '.join(known)}."
        )
    return arguments


def optional_text(arguments: dict[str, Any], key: str) -> str | None:
    """A string argument, or ``None`` when absent."""
    value = arguments.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"'{key}' must be a string.")
    return value


def required_text(arguments: dict[str, Any], key: str) -> str:
    """A string argument that must be there and not blank, stripped."""
    value = optional_text(arguments, key)
    if value is None or not value.strip():
        raise ToolError(f"'{key}' is required and cannot be empty.")
    return value.strip()

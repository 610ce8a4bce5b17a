"""The interface of tools a Kin can call. Plugins contribute them through ``register_tools``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


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

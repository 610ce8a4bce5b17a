"""What the MCP manager and a server connection share: a tool's description, the limits a
connection works within and a failed call. Apart from ``connection`` so that the manager can
load without the MCP SDK, which ``connection`` imports (a second of CPU at every start), until a
server is connected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolInfo:
    """One tool a server offers."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Timeouts:
    """The limits a connection works within (from the settings)."""

    connect: float
    call: float
    health_interval: float
    reconnect_max: float


class CallFailed(Exception):
    """A tool call did not give a result; the message is for the model."""

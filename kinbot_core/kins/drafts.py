"""What a running turn has produced but not stored yet, for browsers that open a chat mid-reply.

Streamed text only reaches the database once the model call ends, and a browser receives the
``kin.delta`` items published after it connected. The draft fills the gap: the text of the
model call streaming now and the tool calls running now. Each ``kin.delta`` carries ``step``
(identifies the model call) and ``at`` (where its text starts), so a browser can line the
draft and the deltas up whatever order they arrive in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TurnDraft:
    """The unsaved part of one turn. ``turn`` is the id of the message that started it."""

    turn: int
    #: Identifies the model call streaming now: the id of the newest message the turn had
    #: stored when the call began (the trigger's id for the first call). The reply the call
    #: ends with is stored with a higher id, which tells a browser the draft is superseded.
    step: int = 0
    text: str = ""
    #: Tool calls running now: id -> tool name.
    running: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.step:
            self.step = self.turn

    def begin_step(self, step: int) -> None:
        """A new model call starts; its text starts empty."""
        self.step = step
        self.text = ""

    def add_text(self, text: str) -> int:
        """Append streamed text; returns the offset it starts at."""
        at = len(self.text)
        self.text += text
        return at

    def tool_started(self, call_id: str, name: str) -> None:
        self.running[call_id] = name

    def tool_ended(self, call_id: str) -> None:
        self.running.pop(call_id, None)

    def to_dict(self) -> dict[str, Any]:
        """The draft as ``GET /api/kins/:id/messages`` returns it."""
        return {
            "turn": self.turn,
            "step": self.step,
            "text": self.text,
            "tools": [{"id": i, "name": n, "status": "running"} for i, n in self.running.items()],
        }


class DeltaBatch:
    """Streamed text waiting to be published. The deltas a model call yields within one pass
    of the event loop (one network read often carries several) go out as one ``kin.delta``
    at the end of that pass: the same text as soon, in fewer events."""

    def __init__(self, publish: Callable[[str], None]) -> None:
        self._publish = publish
        self._pending: list[str] = []

    def add(self, text: str) -> None:
        """Queue ``text``, published with the rest of this pass's deltas."""
        if not self._pending:
            asyncio.get_running_loop().call_soon(self.flush)
        self._pending.append(text)

    def flush(self) -> None:
        """Publish what waits now (the turn calls it before anything else it publishes)."""
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._publish(text)

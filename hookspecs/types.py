"""Values exchanged between the core and hook implementations.

These are plain data holders, part of the contract: the core builds them, hooks read them and,
where a hook's documentation says so, change them in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class HookVeto(Exception):
    """Raised by a policy hook implementation to refuse the action it guards.

    ``reason`` is shown to whoever asked for the action (the model, for a tool call; the user,
    for a cron or task). The core fills ``plugin`` with the name of the refusing plugin.
    """

    def __init__(self, reason: str, *, plugin: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.plugin = plugin

    def __str__(self) -> str:
        return f"{self.plugin}: {self.reason}" if self.plugin else self.reason


class NeedsApproval(HookVeto):
    """Raised by a ``before_tool_call`` implementation to ask a person to approve the call.

    The Kin's turn pauses and the chat shows an approval card with ``reason`` (in the
    plugin's words, shown as written) beside what the call would do. When someone allows it,
    ``before_tool_call`` runs again with ``approved=True`` and the call goes ahead; a decline
    or the request's expiry refuses it and the model is told. Raised from any other hook, it
    refuses like a ``HookVeto``.
    """


@dataclass(frozen=True, slots=True)
class KinRef:
    """The Kin a hook is called for (its main session or one of its sub-Kins)."""

    id: str
    name: str
    model: str
    #: The task id when the caller is an ephemeral sub-Kin, ``None`` in the main session.
    task_id: str | None = None


@dataclass(slots=True)
class ChatContext:
    """Everything about to be sent to the LLM for one call of a turn.

    ``before_chat`` implementations may change it in place: add or reorder
    ``system_prompt`` sections, filter ``messages``, drop ``tools``.
    """

    model: str
    #: The system prompt as ordered sections, joined with blank lines when sent.
    system_prompt: list[str] = field(default_factory=list)
    #: Provider-neutral messages: dicts with ``role`` and ``content`` (and tool data).
    messages: list[dict[str, Any]] = field(default_factory=list)
    #: Tool definitions offered to the model: dicts with ``name``, ``description``,
    #: ``parameters`` (JSON Schema).
    tools: list[dict[str, Any]] = field(default_factory=list)
    #: Who spoke last, as the prompt names them (a user's pseudonym, a Kin's name…).
    speaker: str | None = None
    #: Free space for plugins to pass data from ``before_chat`` to ``after_chat``.
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ToolCall:
    """One tool call requested by the model. ``before_tool_call`` may change ``arguments``."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How something ended, given to every ``after_*`` hook.

    Exactly one of ``result`` and ``error`` is meaningful: ``error`` is set when it failed.
    """

    duration: float
    result: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        """True when it succeeded."""
        return self.error is None


@dataclass(slots=True)
class CompactingContext:
    """A compacting cycle about to summarise part of a Kin's session."""

    #: Ids of the messages that will be folded into the summary, oldest first.
    message_ids: list[str]
    #: The summary currently in force, if any.
    previous_summary: str | None = None


@dataclass(frozen=True, slots=True)
class TaskSpawn:
    """A sub-Kin about to be spawned."""

    task_id: str
    parent_kin_id: str
    kin_id: str
    description: str
    mode: str
    depth: int
    model: str


@dataclass(frozen=True, slots=True)
class CronTrigger:
    """A cron about to fire."""

    cron_id: str
    kin_id: str
    name: str
    schedule: str
    description: str

"""Lifecycle hooks: the moments of a Kin's life a plugin may observe, change or veto.

Every implementation may be a plain function or an ``async def``; the core awaits what is
awaitable, passes each implementation only the arguments it declares, and bounds every call by
``plugin_hook_timeout`` seconds (a synchronous implementation cannot be interrupted, so keep
those quick). Implementations run in pluggy's order: last registered first, ``tryfirst`` and
``trylast`` respected. Return values are ignored unless a hook says otherwise.

Observer hooks isolate failures: an implementation that raises or times out is logged with its
plugin's name, published as a ``plugin.error`` event, and the caller goes on. Hooks marked
``fail_closed`` are policy hooks: raising :class:`~hookspecs.types.HookVeto` (or anything else,
or timing out) stops the action.
"""

from __future__ import annotations

from typing import Any

from hookspecs.markers import fail_closed, hookspec
from hookspecs.types import (
    ChatContext,
    CompactingContext,
    CronTrigger,
    KinRef,
    Outcome,
    TaskSpawn,
    ToolCall,
)


@hookspec
def tools_for_kin(kin: KinRef, platform: Any) -> list[Any] | None:
    """Called at the start of every turn to add tools only this Kin (or sub-Kin) may use.

    Return a list of ``kinbot_core.tools.Tool`` objects (or ``None``): a Kin's own scripts,
    the tools of the MCP servers assigned to it. They are offered to the model with the tools
    of ``register_tools``, and a name already taken by an earlier tool is skipped. ``platform``
    is the running ``kinbot_core.platform.Platform``. A failure is isolated: the turn goes on
    without that plugin's tools.
    """


@hookspec
def before_chat(kin: KinRef, context: ChatContext, platform: Any) -> None:
    """Called before each request to the LLM, once the context of the call is built.

    ``kin`` is the Kin (or sub-Kin) about to call its model; ``context`` holds the system
    prompt sections, the messages and the tools that will be sent. An implementation may
    change ``context`` in place (add context, rewrite or filter sections and messages); later
    implementations see the earlier changes. ``platform`` is the running
    ``kinbot_core.platform.Platform``. A failure is isolated: the call goes ahead with the
    changes made so far.
    """


@hookspec
def after_chat(kin: KinRef, context: ChatContext, outcome: Outcome) -> None:
    """Called after each LLM request of a turn has ended, successfully or not.

    ``outcome.result`` is the assistant's text for this call; ``outcome.error`` is the provider
    error when the call failed; ``outcome.duration`` is in seconds. For logging, metrics or
    post-processing side effects; the stored reply is not changed. A failure is isolated.
    """


@fail_closed
@hookspec
def before_tool_call(kin: KinRef, call: ToolCall, approved: bool) -> None:
    """Called before a tool requested by the model is executed.

    An implementation may validate, rate-limit or audit the call, and may change
    ``call.arguments`` in place. Raising ``HookVeto(reason)`` refuses the call: the tool does not
    run and the model receives the reason as the tool's result. Any other exception or a
    timeout refuses it too (fail closed).

    Raising ``NeedsApproval(reason)`` asks a person instead: the turn pauses with an approval
    card in the chat showing ``reason``, and resumes once someone decides (or the request
    expires). ``approved`` is true when a person has already allowed this very call: the
    implementation should then not ask again (if it does, the person's approval stands and
    the implementations after it are not called).
    """


@hookspec
def after_tool_call(kin: KinRef, call: ToolCall, outcome: Outcome) -> None:
    """Called after a tool has run (or was refused).

    ``outcome.result`` is what the tool returned to the model; ``outcome.error`` the exception
    it raised or the ``HookVeto`` that refused it. For logging and side effects. A failure is
    isolated.
    """


@hookspec
def before_compacting(kin: KinRef, compacting: CompactingContext, platform: Any) -> None:
    """Called before a compacting cycle summarises older messages of a Kin's main session.

    A chance to extract what should outlive the summary (into memory, say): the cycle waits
    for the implementation (within the hook timeout). ``platform`` is the running
    ``kinbot_core.platform.Platform`` (its database, providers and memory). The messages are
    never deleted by compacting. A failure is isolated: the cycle goes ahead.
    """


@hookspec
def after_compacting(kin: KinRef, compacting: CompactingContext, outcome: Outcome) -> None:
    """Called after a compacting cycle; ``outcome.result`` is the new summary text.

    For checking the quality of the summary or recording it. A failure is isolated.
    """


@fail_closed
@hookspec
def on_task_spawn(kin: KinRef, task: TaskSpawn) -> None:
    """Called before a sub-Kin is spawned; ``kin`` is the parent asking for it.

    Raising ``HookVeto(reason)`` (or any exception, or timing out) refuses the spawn: the
    parent's ``spawn_*`` tool call fails with the reason. For limits and auditing.
    """


@fail_closed
@hookspec
def on_cron_trigger(kin: KinRef, cron: CronTrigger) -> None:
    """Called when a cron fires, before its sub-Kin is spawned; ``kin`` is the cron's Kin.

    Raising ``HookVeto(reason)`` (or any exception, or timing out) skips this execution; the
    skip and its reason are recorded on the cron. For conditional execution.
    """

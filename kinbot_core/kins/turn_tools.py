"""A turn's tools: which ones its Kin is offered, and running the calls the model asks for
(each checked for approval, its result masked and stored)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hookspecs.types import KinRef, Outcome, ToolCall
from kinbot_core import approvals
from kinbot_core.kins.drafts import TurnDraft
from kinbot_core.kins.service import MessageView
from kinbot_core.kins.views import KinView
from kinbot_core.providers import ToolCallEvent
from kinbot_core.tools import Speaker, Tool, ToolContext, ToolError, is_tool, offered_to
from kinbot_core.uploads import MAX_ATTACHMENTS

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: How long a tool call may run, in seconds.
TOOL_TIMEOUT = 120.0


class TurnTools:
    """The tool half of ``Turn``, which mixes it in and holds what it uses."""

    platform: Platform
    kin: KinView
    trigger: MessageView
    speaker: Speaker
    ref: KinRef
    owner_id: str
    draft: TurnDraft
    _last_stored: int
    _outgoing: list[dict[str, Any]]

    async def _tools(self) -> list[Tool]:
        """The registered tools offered to this Kin (main session or sub-Kin), then the ones
        plugins add for it alone (``tools_for_kin``); a name is offered once. A Kin whose
        ``tools`` names some is offered only those (an allow-list), and a sub-Kin always
        keeps the tools it reports to its parent with."""
        tools = await self._available_tools()
        if not self.kin.tools:
            return tools
        allowed = set(self.kin.tools)
        return [t for t in tools if t.name in allowed or getattr(t, "audience", "all") == "task"]

    async def _available_tools(self) -> list[Tool]:
        is_task = self.ref.task_id is not None
        registered = self.platform.registries.tools
        offered, offered_names = registered.derived(
            ("offered", is_task), lambda: _offered(registered, is_task)
        )
        tools, names = list(offered), set(offered_names)
        for contributed in await self.platform.hooks.call("tools_for_kin", kin=self.ref):
            for tool in contributed:
                if is_tool(tool) and tool.name not in names and offered_to(tool, is_task=is_task):
                    tools.append(tool)
                    names.add(tool.name)
        return tools

    async def _run_tool(self, event: ToolCallEvent, tools: dict[str, Tool]) -> None:
        call = ToolCall(id=event.id, name=event.name, arguments=dict(event.arguments))
        self.draft.tool_started(call.id, call.name)
        self._publish_tool(call, "running")
        started = time.perf_counter()
        error = await approvals.check(self.platform, self.ref, self.owner_id, self.trigger.id, call)
        if error is not None:
            content = approvals.refusal_text(error)
        else:
            content, error = await self._execute(call, tools.get(call.name))
        # Stored (and shown to plugins) masked; this turn's model sees get_secret's value.
        content = self.platform.vault.masker().mask(content)
        outcome = Outcome(duration=time.perf_counter() - started, result=content, error=error)
        await self.platform.hooks.call("after_tool_call", kin=self.ref, call=call, outcome=outcome)
        stored = await self.platform.kins.add_message(
            self.kin.id,
            role="tool",
            source="kin",
            sender_id=self.kin.id,
            sender_name=call.name,
            content=content,
            tool_call_id=call.id,
            is_error=error is not None,
            turn_of=self.trigger.id,
            meta=error.meta() if isinstance(error, approvals.ApprovalRefused) else None,
        )
        self._last_stored = stored.id
        self.draft.tool_ended(call.id)
        self._publish_tool(call, "error" if error else "done")

    def _publish_tool(self, call: ToolCall, status: str) -> None:
        self.platform.live.publish(
            "kin.tool",
            {
                "kin_id": self.kin.id,
                "turn": self.trigger.id,
                "id": call.id,
                "name": call.name,
                "status": status,
            },
        )

    def _attach(self, reference: dict[str, Any]) -> None:
        if len(self._outgoing) >= MAX_ATTACHMENTS:
            raise ToolError(f"A reply carries {MAX_ATTACHMENTS} files at most.")
        self._outgoing.append(reference)

    async def _execute(self, call: ToolCall, tool: Tool | None) -> tuple[str, BaseException | None]:
        if tool is None:
            return f"There is no tool named {call.name!r}.", LookupError(call.name)
        context = ToolContext(
            self.platform,
            self.kin.id,
            self.kin.name,
            self.speaker,
            trigger_id=self.trigger.id,
            owner_kin_id=self.owner_id,
            attach=self._attach,
        )
        try:
            async with asyncio.timeout(TOOL_TIMEOUT):
                arguments = self.platform.vault.arguments_for(tool, call.arguments)
                value = await tool.run(context, arguments)
        except ToolError as exc:
            return str(exc), exc
        except TimeoutError as exc:
            return f"The tool {call.name} took too long.", exc
        except Exception as exc:
            logger.exception("tool %s failed", call.name)
            return f"The tool {call.name} failed unexpectedly.", exc
        return (value if isinstance(value, str) else json.dumps(value, default=str)), None


def _offered(tools: Iterable[Tool], is_task: bool) -> tuple[tuple[Tool, ...], frozenset[str]]:
    """The registered tools offered in a main session or to a sub-Kin, and their names."""
    offered = tuple(tool for tool in tools if offered_to(tool, is_task=is_task))
    return offered, frozenset(tool.name for tool in offered)

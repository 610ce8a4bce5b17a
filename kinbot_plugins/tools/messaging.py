"""The messaging tools: ``send_message`` and ``reply`` between Kins (``list_kins`` is in
``kinbot_plugins.tools.kins``), over ``platform.messaging`` (``kinbot_core.kins.messaging``),
and ``notify`` to reach a person (``kinbot_plugins.tools.notify_tool``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.kins.messaging import MessagingError
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    required_text,
)
from kinbot_plugins.tools.notify_tool import NotifyTool

#: The hidden instruction on how to treat messages from other Kins.
PROMPT_HINT = (
    "Messages from other Kins: a message labelled as a request expects one answer, sent with "
    "reply(request_id, message) once you have it. A message labelled as an inform (including "
    "a reply to one of your requests) expects no answer: never reply to it or message its "
    "sender back about it. Use send_message only when you need something from another Kin or "
    "have something it needs to know."
)


class SendMessageTool:
    """``send_message(kin_id, message, type)``: a request (answer expected) or an inform."""

    name = "send_message"
    description = (
        "Send a message to another Kin of the platform (find its id with list_kins). "
        'type "request" expects an answer: you get a request_id back, and the answer will '
        'arrive later as a message labelled with that request_id. type "inform" only informs: '
        "no answer will come."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "kin_id": {"type": "string", "description": "The id of the Kin to write to."},
            "message": {"type": "string", "description": "What to tell or ask it."},
            "type": {
                "type": "string",
                "enum": ["request", "inform"],
                "description": "request: an answer is expected; inform: no answer expected.",
            },
        },
        ["kin_id", "message", "type"],
    )
    prompt_hint = PROMPT_HINT

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Send; return ``{"status", "to_kin_id", "type", "request_id"?}``."""
        arguments = named_arguments(self, arguments)
        try:
            sent = await context.platform.messaging.send(
                context.kin_id,
                context.kin_name,
                required_text(arguments, "kin_id"),
                required_text(arguments, "message"),
                required_text(arguments, "type"),
                trigger_id=context.trigger_id,
            )
        except MessagingError as exc:
            raise ToolError(exc.message) from exc
        result: dict[str, Any] = sent.to_dict()
        return result


class ReplyTool:
    """``reply(request_id, message)``: answer a request another Kin sent you."""

    name = "reply"
    description = (
        "Answer a request another Kin sent you, by its request_id. The answer reaches that Kin "
        "as an inform (it will not answer back). Only open requests addressed to you can be "
        "answered, each once; informs and replies cannot."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "request_id": {"type": "string", "description": "The id of the request you answer."},
            "message": {"type": "string", "description": "Your answer."},
        },
        ["request_id", "message"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Reply; return ``{"status", "to_kin_id", "type": "inform", "request_id"}``."""
        arguments = named_arguments(self, arguments)
        try:
            sent = await context.platform.messaging.reply(
                context.kin_id,
                context.kin_name,
                required_text(arguments, "request_id"),
                required_text(arguments, "message"),
                trigger_id=context.trigger_id,
            )
        except MessagingError as exc:
            raise ToolError(exc.message) from exc
        result: dict[str, Any] = sent.to_dict()
        return result


#: The tools this plugin contributes, in registration order.
TOOLS: tuple[Tool, ...] = (SendMessageTool(), ReplyTool(), NotifyTool())


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

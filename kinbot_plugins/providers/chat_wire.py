"""A chat request in OpenAI's Chat Completions wire format: its messages and its tools.

A Kin's turns send the same hundred-odd messages and the same forty-odd tools as its turn
before, so what they turn into is kept: a plain message (a frozen ``ChatMessage`` the turn
shares between calls, ``kinbot_core.kins.model_messages``) gets the same wire object, and the
same tuple of tools the same JSON, written once (an ``orjson.Fragment`` the request's body
takes as it is). The wire objects are only read: the body is written from them.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import orjson

from kinbot_core.identity_memo import IdentityMemo, identical_prefix
from kinbot_core.providers import ChatMessage, ChatRequest, ToolSpec

#: Messages' wire objects (sixteen Kins' windows of two hundred), by the ``ChatMessage``.
_messages: IdentityMemo[dict[str, Any]] = IdentityMemo(4096)
#: The last messages sent and their wire objects, by their first message (one a Kin).
_windows: IdentityMemo[tuple[tuple[ChatMessage, ...], list[dict[str, Any]]]] = IdentityMemo(64)
#: Tool lists' JSON, by the tuple of ``ToolSpec``s.
_tools: IdentityMemo[orjson.Fragment] = IdentityMemo(64)


def wire_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The request's system prompt and messages in the Chat Completions format. A Kin's
    calls send the messages of its call before and a few more: the wire objects of the
    messages they begin with are taken as they were (``_windows``)."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    given = request.messages
    if not given:
        return messages
    kept = _windows.get(given[0])
    reused = 0
    if kept is not None:
        reused = identical_prefix(kept[0], given)
        messages += kept[1][:reused]
    keepable = len(given)  # up to the first picture: its base64 is not worth keeping
    for index in range(reused, len(given)):
        message = given[index]
        wire = _messages.get(message)
        if wire is None:
            wire = _wire_message(message)
            if message.images:
                keepable = min(keepable, index)
            else:
                _messages.keep(message, wire)
        messages.append(wire)
    wires = messages[len(messages) - len(given) :]
    _windows.keep(given[0], (given[:keepable], wires[:keepable]))
    return messages


def wire_tools(tools: tuple[ToolSpec, ...]) -> orjson.Fragment:
    """The tools as the request's ``tools``, already written as JSON."""
    kept = _tools.get(tools)
    if kept is not None:
        return kept
    fragment = orjson.Fragment(
        orjson.dumps(
            [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    },
                }
                for tool in tools
            ]
        )
    )
    return _tools.keep(tools, fragment)


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant":
        entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            entry["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
        return entry
    if not message.images:
        return {"role": "user", "content": message.content}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for image in message.images:
        data = base64.b64encode(image.data).decode()
        parts.append(
            {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{data}"}}
        )
    return {"role": "user", "content": parts}

"""Token estimates and models' context windows.

None of the providers KinBot ships has an offline tokenizer available without downloading
files at run time, so tokens are estimated from characters (about four per token for English
and French prose, which errs on the safe side for code and JSON). The compacting check also
uses the token count the provider reported for the Kin's last call, when it is higher.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kinbot_core.providers.types import ChatRequest

CHARS_PER_TOKEN = 4
#: Role markers and separators a provider adds around each message.
MESSAGE_OVERHEAD_TOKENS = 4
#: Tokens a tool's definition costs beyond its JSON (the provider's wrapping).
TOOL_OVERHEAD_TOKENS = 8
#: Tokens an image in a message is counted as.
IMAGE_TOKENS = 1000

#: Known context windows, in tokens, by model id prefix (the longest matching prefix wins).
CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-3.5-turbo": 16_385,
    "gpt-4": 8_192,
    "gpt-4-turbo": 128_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4": 200_000,
    "claude": 200_000,
    "gemini": 1_048_576,
    "gemini-1.0": 32_768,
    "mistral-large": 128_000,
    "llama3.1": 128_000,
    "llama3.2": 128_000,
    "llama3.3": 128_000,
    "qwen2.5": 32_768,
}


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` takes, estimated from its length."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_tokens(content: str, tool_calls: Any = None) -> int:
    """Tokens one stored message takes in a request (content, tool calls, overhead)."""
    if tool_calls is None or tool_calls == "":  # most of a session: no calls to count
        return -(-len(content or "") // CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
    if tool_calls is not None and not isinstance(tool_calls, str):
        tool_calls = json.dumps(tool_calls)
    return (
        estimate_tokens(content or "")
        + estimate_tokens(tool_calls or "")
        + (MESSAGE_OVERHEAD_TOKENS)
    )


#: ``tool_tokens`` of definitions seen, by name, description and their schema's identity
#: (a tool's schema is built once and not changed in place; each turn measures it again).
_measured_tools: dict[tuple[Any, ...], tuple[Any, int]] = {}
MEASURED_TOOLS_KEPT = 4096


def tool_tokens(tool: Mapping[str, Any]) -> int:
    """Tokens one tool's definition (``{"name", "description", "parameters"}``) takes."""
    schema = tool.get("parameters")
    key = (tool.get("name"), tool.get("description"), id(schema), len(tool))
    kept = _measured_tools.get(key)
    if kept is not None and kept[0] is schema:  # the same object: its id was not reused
        return kept[1]
    tokens = estimate_tokens(json.dumps(tool)) + TOOL_OVERHEAD_TOKENS
    if len(_measured_tools) >= MEASURED_TOOLS_KEPT:
        _measured_tools.clear()
    _measured_tools[key] = (schema, tokens)
    return tokens


def request_tokens(request: ChatRequest) -> int:
    """Tokens a chat request's prompt takes (its system prompt, tools and messages),
    estimated as ``kinbot_core.kins.prompt_budget`` estimates a turn's fitted prompt."""
    total = estimate_tokens(request.system)
    for tool in request.tools:
        spec = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
        total += tool_tokens(spec)
    for message in request.messages:
        calls = [
            {"id": call.id, "name": call.name, "arguments": call.arguments}
            for call in message.tool_calls
        ]
        total += message_tokens(message.content, calls or None)
        total += IMAGE_TOKENS * len(message.images)
    return total


def context_window(model: str, overrides: Mapping[str, int]) -> int | None:
    """The context window of ``model`` (``"gpt-4o"`` or ``"Provider name/gpt-4o"``): from
    ``overrides`` (the ``compacting_context_windows`` setting) first, then the built-in
    table; ``None`` when unknown."""
    candidates = [model]
    if "/" in model:
        candidates.append(model.split("/", 1)[1])
        candidates.append(model.rsplit("/", 1)[1])
    for candidate in candidates:
        if candidate in overrides:
            return overrides[candidate]
    for candidate in candidates:
        name = candidate.lower()
        matches = [prefix for prefix in CONTEXT_WINDOWS if name.startswith(prefix)]
        if matches:
            return CONTEXT_WINDOWS[max(matches, key=len)]
    return None

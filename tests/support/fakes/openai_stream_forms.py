"""The forms in which OpenAI-compatible servers stream an answer's tool calls (test support).

``FakeOpenAI.stream_form`` picks one by name; each form turns a scripted reply's text and
calls into the ``delta`` objects of the streamed chunks. ``openai`` is OpenAI's own; the
others are what local servers send (see kinbot_plugins/providers/streamed_tool_calls.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.fakes._reply import Reply, pieces

Delta = dict[str, Any]
NextId = Callable[[str], str]


def _content(text: str, size: int) -> list[Delta]:
    return [{"content": piece} for piece in pieces(text, size)]


def _opened(index: int | None, call_id: str | None, name: str, arguments: str = "") -> Delta:
    call: Delta = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if index is not None:
        call["index"] = index
    if call_id is not None:
        call["id"] = call_id
    return {"tool_calls": [call]}


def _arguments(index: int | None, piece: str) -> Delta:
    call: Delta = {"function": {"arguments": piece}}
    if index is not None:
        call["index"] = index
    return {"tool_calls": [call]}


def openai_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """OpenAI: id, name and index first, then the arguments in pieces, each with the index."""
    deltas = _content(reply.text, reply.chunk_size)
    for index, (name, arguments) in enumerate(reply.tool_calls):
        deltas.append(_opened(index, next_id("call_fake_"), name))
        deltas += [_arguments(index, p) for p in pieces(json.dumps(arguments), reply.chunk_size)]
    return deltas


def whole_arguments_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """Ollama: each call whole in one delta, arguments included."""
    deltas = _content(reply.text, reply.chunk_size)
    for index, (name, arguments) in enumerate(reply.tool_calls):
        deltas.append(_opened(index, next_id("call_fake_"), name, json.dumps(arguments)))
    return deltas


def _without_ids(reply: Reply, call_id: str | None) -> list[Delta]:
    deltas = _content(reply.text, reply.chunk_size)
    for index, (name, arguments) in enumerate(reply.tool_calls):
        deltas.append(_opened(index, call_id, name))
        deltas += [_arguments(index, p) for p in pieces(json.dumps(arguments), reply.chunk_size)]
    return deltas


def empty_ids_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """An empty id (``"id": ""``) on every call."""
    return _without_ids(reply, "")


def no_ids_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """No ``id`` field at all."""
    return _without_ids(reply, None)


def no_index_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """No ``index`` field: a call's first delta has its id and name, the next ones only
    pieces of its arguments."""
    deltas = _content(reply.text, reply.chunk_size)
    for name, arguments in reply.tool_calls:
        deltas.append(_opened(None, next_id("call_fake_"), name))
        deltas += [_arguments(None, p) for p in pieces(json.dumps(arguments), reply.chunk_size)]
    return deltas


def index_zero_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """Every call numbered 0, told apart by their ids."""
    deltas = _content(reply.text, reply.chunk_size)
    for name, arguments in reply.tool_calls:
        deltas.append(_opened(0, next_id("call_fake_"), name, json.dumps(arguments)))
    return deltas


def _call_json(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def text_tags_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """No native tool support: the model wrote ``<tool_call>{…}</tool_call>`` (Hermes, Qwen,
    SmolLM) after its text, and the server passed it through as text."""
    calls = "".join(
        f"\n<tool_call>\n{_call_json(name, arguments)}\n</tool_call>"
        for name, arguments in reply.tool_calls
    )
    return _content(reply.text + calls, reply.chunk_size)


def text_json_form(reply: Reply, next_id: NextId) -> list[Delta]:
    """No native tool support: the whole answer is the call as a JSON object (a list of
    objects for several calls)."""
    objects = [json.loads(_call_json(name, arguments)) for name, arguments in reply.tool_calls]
    return _content(json.dumps(objects[0] if len(objects) == 1 else objects), reply.chunk_size)


STREAM_FORMS: dict[str, Callable[[Reply, NextId], list[Delta]]] = {
    "openai": openai_form,
    "whole_arguments": whole_arguments_form,
    "empty_ids": empty_ids_form,
    "no_ids": no_ids_form,
    "no_index": no_index_form,
    "index_zero": index_zero_form,
    "text_tags": text_tags_form,
    "text_json": text_json_form,
}
#: Forms in which the calls are text: the server finishes with "stop".
TEXT_FORMS = frozenset({"text_tags", "text_json"})

"""Tool calls from a streamed Chat Completions answer, in the forms servers send them.

OpenAI sends each call's id and name first, then its arguments in pieces, every delta with
the call's ``index``. Local servers (llama.cpp, Ollama, LM Studio, vLLM) vary: arguments in one
piece, an empty or missing id, deltas without an index, several calls in one message. And a
model without native tool support may write its calls in its text, which the server passes
through: ``<tool_call>{"name": …, "arguments": …}</tool_call>`` as the Hermes, Qwen and
SmolLM templates teach, or the answer as one JSON object. ``StreamedToolCalls`` assembles the
first kind, ``TextToolCalls`` finds the second.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.providers import MalformedResponse, ToolCallEvent
from kinbot_plugins.providers._common import parse_arguments

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: str = ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def stable_call_id(completion_id: str, position: int, name: str, arguments: str) -> str:
    """An id for a call the server sent without one: the same call of the same answer gets
    the same id (retries and replays agree), two calls of an answer never share one."""
    digest = hashlib.sha256(f"{completion_id}\0{position}\0{name}\0{arguments}".encode())
    return f"call_{digest.hexdigest()[:24]}"


@dataclass
class StreamedToolCalls:
    """The tool calls of one streamed answer, assembled from its ``tool_calls`` deltas."""

    label: str
    completion_id: str = ""
    _calls: list[_Call] = field(default_factory=list)
    _by_index: dict[int, _Call] = field(default_factory=dict)

    def add(self, delta: dict[str, Any]) -> None:
        """Take one ``choices[].delta.tool_calls[]`` item (its JSON object)."""
        function = delta.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = _text(delta.get("id"))
        name = _text(function.get("name"))
        arguments = _text(function.get("arguments"))
        index = delta.get("index")
        call = self._continued(index if isinstance(index, int) else None, call_id, name)
        if call_id:
            call.id = call_id
        if name and name != call.name:  # a name in pieces; some servers repeat it whole
            call.name += name
        call.arguments += arguments

    def add_complete(self, name: str, arguments: dict[str, Any]) -> None:
        """A whole call found elsewhere (in the answer's text)."""
        self._calls.append(_Call(name=name, arguments=json.dumps(arguments)))

    def _continued(self, index: int | None, call_id: str, name: str) -> _Call:
        """The call a delta continues, or a new one."""
        if index is not None:
            known = self._by_index.get(index)
            # Some servers number every call 0: a new id after a complete call is a new call.
            if known is not None and not (call_id and known.id and call_id != known.id):
                return known
            self._by_index[index] = self._new()
            return self._by_index[index]
        last = self._calls[-1] if self._calls else None
        if last is None:
            return self._new()
        if call_id and last.id:
            return last if call_id == last.id else self._new()
        # Without an index or ids to tell, a second name starts a second call.
        return self._new() if name and last.name else last

    def _new(self) -> _Call:
        self._calls.append(_Call())
        return self._calls[-1]

    def events(self) -> list[ToolCallEvent]:
        """The complete calls, in order (a call without a name is the server's error)."""
        events = []
        for position, call in enumerate(self._calls):
            if not call.name:
                raise MalformedResponse(f"{self.label} sent a tool call without a name.")
            call_id = call.id or stable_call_id(
                self.completion_id, position, call.name, call.arguments
            )
            events.append(
                ToolCallEvent(call_id, call.name, parse_arguments(call.arguments, self.label))
            )
        return events


@dataclass
class TextToolCalls:
    """Tool calls a model wrote in its answer's text, for the tools it was offered.

    ``feed`` takes each piece of text and returns what can be shown now: text that may be the
    start of a call is held back until it is known. ``finish`` returns the text left to show
    and the calls found. Text that only looks like a call (invalid JSON, a tool that was not
    offered) is shown as it was written.
    """

    tool_names: frozenset[str]
    _pending: str = ""
    _started: bool = False
    #: The answer so far is one JSON object (or a fenced block): held until its end.
    _whole_answer: bool = False
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def feed(self, text: str) -> str:
        self._pending += text
        if not self._started:
            stripped = self._pending.lstrip()
            if not stripped:
                return ""
            self._started = True
            self._whole_answer = stripped.startswith(("{", "[", "```"))
        if self._whole_answer:
            return ""
        return self._scan(final=False)

    def finish(self) -> str:
        if self._whole_answer:
            found = self._json_calls(_unfenced(self._pending))
            if found:
                self.calls += found
                return ""
            self._whole_answer = False
        return self._scan(final=True)

    def _scan(self, *, final: bool) -> str:
        shown = []
        while True:
            start = self._pending.find(OPEN_TAG)
            if start < 0:
                keep = 0 if final else _partial_tag_length(self._pending)
                shown.append(self._pending[: len(self._pending) - keep])
                self._pending = self._pending[len(self._pending) - keep :]
                return "".join(shown)
            end = self._pending.find(CLOSE_TAG, start)
            if end < 0 and not final:
                shown.append(self._pending[:start])
                self._pending = self._pending[start:]
                return "".join(shown)
            body_end = end if end >= 0 else len(self._pending)
            after = body_end + len(CLOSE_TAG) if end >= 0 else body_end
            found = self._json_calls(self._pending[start + len(OPEN_TAG) : body_end])
            if found:
                self.calls += found
                shown.append(self._pending[:start])
            else:
                shown.append(self._pending[:after])
            self._pending = self._pending[after:]

    def _json_calls(self, text: str) -> list[tuple[str, dict[str, Any]]]:
        """The calls a JSON text describes (one call, a list of calls, or llama.cpp's
        generic ``{"tool_call": …}``), only when every one names an offered tool."""
        try:
            value = json.loads(text.strip())
        except ValueError:
            return []
        items = value if isinstance(value, list) else [value]
        found = []
        for item in items:
            call = _as_call(item)
            if call is None or call[0] not in self.tool_names:
                return []
            found.append(call)
        return found


def _as_call(item: Any) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("tool_call"), dict):
        item = item["tool_call"]
    if isinstance(item.get("function"), dict):  # {"type": "function", "function": {…}}
        item = item["function"]
    name = item.get("name")
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return None
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    return name, arguments


def _partial_tag_length(text: str) -> int:
    """How many characters at the end of ``text`` could begin ``<tool_call>``."""
    for size in range(min(len(OPEN_TAG) - 1, len(text)), 0, -1):
        if OPEN_TAG.startswith(text[-size:]):
            return size
    return 0


def _unfenced(text: str) -> str:
    """``text`` without a Markdown code fence around it (```json … ```)."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) > 6:
        return stripped[3:-3].removeprefix("json").strip()
    return stripped

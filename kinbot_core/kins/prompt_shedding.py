"""The stages that make a prompt smaller (``kinbot_core.kins.prompt_budget`` runs them in
order): each sheds, step by step, until the prompt fits or it has nothing left to shed.

They work on the call's context as the ``before_chat`` hooks left it: the system prompt's
sections are recognised by their headings (``kinbot_core.kins.prompt``), and sections a plugin
added are kept as they are.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hookspecs.types import ChatContext

if TYPE_CHECKING:
    from kinbot_core.tools import Tool

Fits = Callable[[], bool]

MEMORIES = "## Relevant memories\n"
TOOLS = "## Tools\n"
CONTACTS = "## Contacts\n"
#: Sections a leaner prompt cuts to ``LEAN_SECTION_CHARS``.
CUT_SHORT = ("## Character\n", "## Expertise\n")
LEAN_SECTION_CHARS = 240
#: A shortened tool description's longest length.
SHORT_DESCRIPTION_CHARS = 120
LEAN_TOOLS_SECTION = "## Tools\nUse the tools you are given when they help."
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass
class Draft:
    """A call's context being made smaller."""

    sections: list[str]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    #: Tools a sub-Kin cannot do without (``audience == "task"``), never dropped.
    kept: set[str] = field(default_factory=set)
    #: Per tool, the hint its ``prompt_hint`` adds to the tool section.
    hints: dict[str, str] = field(default_factory=dict)
    #: Whether the tool section lists the tools (else it is the lean, fixed one).
    listed: bool = True
    #: The tool section whatever is shed (a model that cannot call tools).
    fixed_section: str | None = None

    @classmethod
    def of(cls, context: ChatContext, tools: list[Tool]) -> Draft:
        by_name = {tool.name: tool for tool in tools}
        return cls(
            sections=list(context.system_prompt),
            tools=[dict(tool) for tool in context.tools],
            messages=list(context.messages),
            kept={n for n, t in by_name.items() if getattr(t, "audience", "all") == "task"},
            hints={n: t.prompt_hint for n, t in by_name.items() if t.prompt_hint},
        )

    # -- the stages (``prompt_budget.STAGES``) ---------------------------------------------------

    def shed_memories(self, fits: Fits) -> bool:
        """Drop injected memories, the least relevant (the last) first."""
        index = self._index(MEMORIES)
        if index is None:
            return False
        lines = self.sections[index].split("\n")
        while len(lines) > 1 and not fits():
            lines.pop()
            if len(lines) > 1:
                self.sections[index] = "\n".join(lines)
            else:
                del self.sections[index]
        return True

    def shed_tool_descriptions(self, fits: Fits) -> bool:
        """Every tool described by its first sentence, its parameters without descriptions."""
        if not self.tools:
            return False
        for tool in self.tools:
            tool["description"] = short_description(str(tool.get("description") or ""))
            tool["parameters"] = without_descriptions(tool.get("parameters") or {})
        self._render_tools()
        return True

    def shed_tools(self, fits: Fits) -> bool:
        """Drop the tools least relevant to the last message of a person, one at a time."""
        query = words(last_request(self.messages))
        ranked = sorted(
            (
                (relevance(query, tool), -position, str(tool["name"]))
                for position, tool in enumerate(self.tools)
                if tool["name"] not in self.kept
            ),
        )
        dropped = False
        for _score, _position, name in ranked:
            if fits():
                break
            self.tools = [tool for tool in self.tools if tool["name"] != name]
            self._render_tools()
            dropped = True
        return dropped

    def shed_lean_prompt(self, fits: Fits) -> bool:
        """A leaner system prompt: no tool list or notes, no contact list, character and
        expertise cut short."""
        self.listed = False
        self._render_tools()
        contacts = self._index(CONTACTS)
        if contacts is not None:
            del self.sections[contacts]
        for heading in CUT_SHORT:
            index = self._index(heading)
            if index is not None and len(self.sections[index]) > LEAN_SECTION_CHARS:
                self.sections[index] = self.sections[index][:LEAN_SECTION_CHARS].rstrip() + "…"
        return True

    def shed_history(self, fits: Fits) -> bool:
        """Drop the oldest exchanges, never the one of the last message of a person."""
        last = max((i for i, m in enumerate(self.messages) if m["role"] == "user"), default=0)
        dropped = False
        while last > 0 and not fits():
            following = next(
                (i for i in range(1, last + 1) if self.messages[i]["role"] == "user"), last
            )
            del self.messages[:following]
            last -= following
            dropped = True
        return dropped

    # -- for a model without tools ---------------------------------------------------------------

    def drop_all_tools(self, section: str) -> None:
        """No tools at all, and ``section`` in place of the tool section."""
        self.tools = []
        self.hints = {}
        self.fixed_section = section
        index = self._index(TOOLS)
        if index is None:
            self.sections.append(section)
        else:
            self.sections[index] = section

    # -- helpers ---------------------------------------------------------------------------------

    def _index(self, heading: str) -> int | None:
        return next((i for i, s in enumerate(self.sections) if s.startswith(heading)), None)

    def _render_tools(self) -> None:
        index = self._index(TOOLS)
        if index is None:
            return
        if self.fixed_section is not None:
            self.sections[index] = self.fixed_section
        elif not self.tools:
            self.sections[index] = "## Tools\nYou have no tools in this session."
        elif not self.listed:
            self.sections[index] = LEAN_TOOLS_SECTION
        else:
            lines = [f"- {tool['name']}: {tool.get('description') or ''}" for tool in self.tools]
            hints = [self.hints[t["name"]] for t in self.tools if t["name"] in self.hints]
            text = TOOLS + "\n".join(lines)
            self.sections[index] = text + ("\n\n" + "\n\n".join(hints) if hints else "")


def short_description(text: str) -> str:
    """A description's first sentence, at most ``SHORT_DESCRIPTION_CHARS`` long."""
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    if len(first) > SHORT_DESCRIPTION_CHARS:
        first = first[: SHORT_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return first


def without_descriptions(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema without the ``description`` of its properties (at any depth)."""
    result = copy.deepcopy(schema)

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                for value in properties.values():
                    if isinstance(value, dict):
                        value.pop("description", None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(result)
    return result


def last_request(messages: list[dict[str, Any]]) -> str:
    """The text of the last message of a person (or of whoever started the exchange)."""
    for message in reversed(messages):
        if message["role"] == "user":
            return str(message.get("content") or "")
    return ""


def words(text: str) -> set[str]:
    """The words of ``text`` worth matching: lower-case, three letters or more, without a
    plural's final s."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if len(word) >= 3:
            found.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return found


def relevance(query: set[str], tool: dict[str, Any]) -> int:
    """How much ``tool`` has to do with the request's words: its name's words count thrice,
    its description's once."""
    name = words(str(tool["name"]).replace("_", " "))
    description = words(str(tool.get("description") or ""))
    return 3 * len(query & name) + len(query & description)

"""What the extraction model is asked, and how its JSON answers are read.

Both calls ask for one strict JSON object. A reply that is not one (prose around it, a code
fence, a missing bracket) raises ``MalformedReply``; in a well-formed reply, each memory that
does not fit the schema is dropped on its own, with a warning.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kinbot_core.compacting.tokens import CHARS_PER_TOKEN, estimate_tokens
from kinbot_core.memory import CATEGORIES

logger = logging.getLogger(__name__)

#: Longest message text given to the model; the rest is cut.
MAX_MESSAGE_CHARS = 4000

EXTRACTION_SYSTEM = """\
You extract durable long-term memories from a conversation of an AI assistant named {kin}.

A memory is a self-contained statement worth remembering in later conversations: a fact about
a person or the world, a preference, a decision taken, or a piece of knowledge. Write each in
the third person with names, not pronouns ("Marie is allergic to peanuts"), one idea per
memory. Ignore small talk, questions, the assistant's own suggestions, and anything only true
for the moment. Never record passwords, API keys, codes or other secrets.

Answer with one JSON object and nothing else:
{{"memories": [{{"content": "...", "category": "{choices}", "subject": "...",
"source_message_id": 123}}]}}
- category: one of {categories}.
- subject: whom or what the memory is about (a person's name, "family", a project), or "".
- source_message_id: the number of the message the memory comes from.
If there is nothing worth remembering, answer {{"memories": []}}."""

DECISION_SYSTEM = """\
You maintain the long-term memory of an AI assistant. A new memory was extracted; similar
memories already exist. Decide:
- "duplicate": an existing memory already says the same thing; nothing changes.
- "merge": the new memory adds to or changes an existing one; give that memory's id and its
  new content, one self-contained statement combining both (the newer information wins).
- "add": it is a different memory; it is stored as new.

Answer with one JSON object and nothing else:
{"action": "duplicate|merge|add", "memory_id": 123, "content": "..."}"""


class MalformedReply(Exception):
    """The model's reply is not the JSON object that was asked for."""


@dataclass(frozen=True)
class TranscriptLine:
    """One message shown to the extraction model."""

    message_id: int
    speaker: str
    content: str


class Candidate(BaseModel):
    """One memory the model extracted."""

    model_config = ConfigDict(str_strip_whitespace=True)

    content: str = Field(min_length=1, max_length=2000)
    category: Literal["fact", "preference", "decision", "knowledge"]
    subject: str = Field("", max_length=200)
    source_message_id: int | None = None


class Decision(BaseModel):
    """What to do with a candidate close to existing memories."""

    model_config = ConfigDict(str_strip_whitespace=True)

    action: Literal["duplicate", "merge", "add"]
    memory_id: int | None = None
    content: str | None = Field(None, max_length=2000)


def transcript(lines: list[TranscriptLine]) -> str:
    """The messages as the extraction model reads them, each with its number."""
    return "\n".join(_shown(line) for line in lines)


def _shown(line: TranscriptLine) -> str:
    return f"[message {line.message_id}] {line.speaker}: {line.content[:MAX_MESSAGE_CHARS]}"


def fitting(lines: list[TranscriptLine], room: int | None) -> list[list[TranscriptLine]]:
    """``lines`` in consecutive parts whose transcripts each take at most ``room`` estimated
    tokens (one call each, for a model with a small window); a message too long for a part
    of its own is cut to fit. ``None``: one part, as the window is not known."""
    if room is None or not lines:
        return [lines] if lines else []
    parts: list[list[TranscriptLine]] = [[]]
    used = 0
    for line in lines:
        tokens = estimate_tokens(_shown(line)) + 1  # and its line break
        if tokens > room:
            overflow = int((tokens - room) * CHARS_PER_TOKEN)
            kept = line.content[: max(min(len(line.content), MAX_MESSAGE_CHARS) - overflow, 0)]
            line = TranscriptLine(line.message_id, line.speaker, kept)
            tokens = room
        if parts[-1] and used + tokens > room:
            parts.append([])
            used = 0
        parts[-1].append(line)
        used += tokens
    return parts


def extraction_system(kin_name: str) -> str:
    """The system prompt of the extraction call."""
    return EXTRACTION_SYSTEM.format(
        kin=kin_name, choices="|".join(CATEGORIES), categories=", ".join(CATEGORIES)
    )


def decision_prompt(candidate: Candidate, existing: list[tuple[int, str, float]]) -> str:
    """The user message of the decision call: the new memory and the close existing ones
    (id, content, similarity)."""
    listed = "\n".join(f"- id {memory_id}: {content}" for memory_id, content, _ in existing)
    about = f" (about {candidate.subject})" if candidate.subject else ""
    return f"New memory{about}: {candidate.content}\n\nExisting memories:\n{listed}"


def json_object(reply: str) -> dict[str, Any]:
    """The JSON object of a reply, tolerating a code fence around it."""
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedReply(f"the reply is not JSON ({error.msg})") from None
    if not isinstance(value, dict):
        raise MalformedReply("the reply is not a JSON object")
    return value


def parse_candidates(reply: str) -> list[Candidate]:
    """The memories of an extraction reply; items that do not fit are dropped and logged."""
    value = json_object(reply)
    items = value.get("memories")
    if not isinstance(items, list):
        raise MalformedReply('the reply has no "memories" list')
    candidates = []
    for index, item in enumerate(items):
        try:
            candidates.append(Candidate.model_validate(item))
        except ValidationError as error:
            logger.warning(
                "extracted memory %d dropped: %s", index, error.errors()[0].get("msg", "invalid")
            )
    return candidates


def parse_decision(reply: str) -> Decision:
    """The decision of a decision reply."""
    try:
        return Decision.model_validate(json_object(reply))
    except ValidationError as error:
        raise MalformedReply(f"the decision does not fit: {error.errors()[0]['msg']}") from None

"""Cutting a Kin's reply into parts a platform accepts, where a reader expects a break.

A part ends, by preference, at a paragraph (a blank line, never inside a fenced code
block), then at a line, then after a sentence, then at a space; a word longer than the limit
is cut where it must. The cut is deterministic, so after a restart the parts not yet sent
are the same ones.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[.!?…。]['\")\]»]*\s+")
_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)


def split_message(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters (none for a blank text)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    parts: list[str] = []
    rest = text.strip()
    while rest:
        if len(rest) <= limit:
            parts.append(rest)
            break
        cut = _cut_at(rest, limit)
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            parts.append(head)
    return parts


def _cut_at(text: str, limit: int) -> int:
    """Where to end the first part of ``text`` (longer than ``limit``)."""
    window = text[: limit + 1]
    floor = limit // 3  # a cut earlier than this would leave a part too short to be worth it
    paragraph = _last_paragraph_break(window, floor)
    if paragraph is not None:
        return paragraph
    line = window.rfind("\n", floor)
    if line > 0:
        return line + 1
    sentences = [m.end() for m in _SENTENCE_END.finditer(window) if floor <= m.end() <= limit]
    if sentences:
        return sentences[-1]
    space = window.rfind(" ", floor)
    if space > 0:
        return space + 1
    return limit


def _last_paragraph_break(window: str, floor: int) -> int | None:
    """The end of the last blank line in ``window`` past ``floor`` that is not inside a
    fenced code block."""
    best = None
    for match in re.finditer(r"\n[ \t]*\n", window):
        end = match.end()
        if end < floor or end > len(window) - 1:
            continue
        if len(_FENCE.findall(window[:end])) % 2 == 0:
            best = end
    return best

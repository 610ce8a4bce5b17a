"""What a webhook's body becomes in the Kin's session: text a model reads well, bounded.

A JSON object of plain values becomes ``key: value`` lines; any other JSON document a fenced
``json`` block, indented; a form its fields as ``key: value`` lines; text stays as it is.
Past ``max_chars`` the text is cut, and says how much was left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: Most characters of a webhook's message (a user's message may have 100 000).
TEXT_MAX_CHARS = 50_000
#: Objects with more keys than this become a JSON block rather than lines.
_MAX_LINES = 100
_BACKTICKS = re.compile(r"`{3,}")


def _cut(text: str, max_chars: int) -> tuple[str, int]:
    """``text`` within ``max_chars``, and how many characters were left out."""
    if len(text) <= max_chars:
        return text, 0
    return text[:max_chars], len(text) - max_chars


def _cut_note(left_out: int) -> str:
    return f"\n[… {left_out} more characters were cut]" if left_out else ""


def render_text(text: str, max_chars: int = TEXT_MAX_CHARS) -> str:
    """A text body, cut at ``max_chars``."""
    kept, left_out = _cut(text.strip(), max_chars)
    return kept + _cut_note(left_out)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _lines(pairs: Iterable[tuple[str, Any]]) -> str:
    return "\n".join(f"{key}: {_scalar(value)}" for key, value in pairs)


def render_form(pairs: list[tuple[str, str]], max_chars: int = TEXT_MAX_CHARS) -> str:
    """The fields of a form, one ``key: value`` line each, cut at ``max_chars``."""
    return render_text(_lines(pairs), max_chars)


def render_json(value: Any, max_chars: int = TEXT_MAX_CHARS) -> str:
    """A parsed JSON document: a string as itself, an object of plain values (strings,
    numbers, booleans, null) as ``key: value`` lines, anything else as a fenced block."""
    if isinstance(value, str):
        return render_text(value, max_chars)
    if (
        isinstance(value, dict)
        and value
        and len(value) <= _MAX_LINES
        and all(value_is_plain(item) for item in value.values())
    ):
        return render_text(_lines(value.items()), max_chars)
    document = json.dumps(value, ensure_ascii=False, indent=2)
    kept, left_out = _cut(document, max_chars)
    # A fence longer than any run of backticks inside, so that none closes it early.
    longest = max((len(run) for run in _BACKTICKS.findall(kept)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}json\n{kept}\n{fence}{_cut_note(left_out)}"


def value_is_plain(value: Any) -> bool:
    """Whether ``value`` is a JSON string, number, boolean or null (one line of text)."""
    if isinstance(value, str):
        return "\n" not in value
    return value is None or isinstance(value, bool | int | float)

"""Where a compacting cuts the session: which older messages it folds into the summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """A message after the current cut, as the cut choice sees it."""

    id: int
    position: int
    role: str
    tokens: int
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    redaction_pending: bool = False


def choose_cut(messages: Sequence[Candidate], *, keep_recent: int, budget_tokens: int) -> int:
    """How many of ``messages`` (oldest first) to fold into the summary; 0 when none can be.

    The folded part:

    - leaves at least ``keep_recent`` messages verbatim;
    - stops before the earliest message still flagged for redaction (that one, and what
      follows, waits until the redaction is done);
    - ends just before a user message, so the verbatim part starts an exchange and no tool
      call is separated from its result;
    - holds at most ``budget_tokens`` (the summary call's input budget), unless even the first
      possible cut is larger: then that first cut, so compacting still makes progress.
    """
    limit = len(messages) - max(keep_recent, 1)
    for index, message in enumerate(messages):
        if message.redaction_pending:
            limit = min(limit, index)
            break
    result_index: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.role == "tool" and message.tool_call_id:
            result_index.setdefault(message.tool_call_id, index)
    best = 0
    folded_tokens = 0
    # The latest index holding the result of a call made in the folded part.
    open_until = -1
    for cut in range(1, max(limit, 0) + 1):
        previous = messages[cut - 1]
        folded_tokens += previous.tokens
        for call in previous.tool_calls or ():
            open_until = max(open_until, result_index.get(str(call.get("id")), -1))
        if best and folded_tokens > budget_tokens:
            break
        if messages[cut].role == "user" and open_until < cut:
            best = cut
    return best

"""The rows a turn's context is built from, read with plain SQL (this runs on every turn:
building the equivalent peewee queries cost more CPU than running them)."""

from __future__ import annotations

from typing import Any

from kinbot_core.compacting.tokens import CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS
from kinbot_core.db import Database
from kinbot_core.kins.views import PLACED_COLUMNS, MessageView

_ACTIVE_SUMMARY = (
    "select summary, through_position from compacting_snapshot where kin_id = ? and active"
)
#: The Kin's messages placed in the conversation after a position (the compacting cut), the
#: ones a retry superseded left out: they are no longer part of it.
_PLACED = "kin_id = ? and position is not null and position > ? and not superseded"
#: A message's columns and its position in the conversation.
_AFTER_CUT = f"select {PLACED_COLUMNS} from message where {_PLACED} order by position desc limit ?"

# Each message's tokens as ``message_tokens`` counts them (lengths divided rounding up).
_TOKENS = (
    f"(length(coalesce(content, '')) + {CHARS_PER_TOKEN - 1}) / {CHARS_PER_TOKEN} "
    f"+ (length(coalesce(tool_calls, '')) + {CHARS_PER_TOKEN - 1}) / {CHARS_PER_TOKEN} "
    f"+ {MESSAGE_OVERHEAD_TOKENS}"
)
_PLACED_AFTER = f"select {PLACED_COLUMNS} from message where {_PLACED} order by position"
_SIZE_AFTER_CUT = f"select count(id), sum({_TOKENS}) from message where {_PLACED}"


def placed_rows(db: Database, kin_id: str, cut: int, count: int) -> list[Any]:
    """The last ``count`` messages of the Kin placed after position ``cut``, newest first, as
    ``PLACED_COLUMNS`` rows (``read_now``: one index range, about 75 µs for 30 messages,
    where handing it to a reader thread and back cost several times that)."""
    return db.read_now(_AFTER_CUT, (kin_id, cut, count))


def session_size(db: Database, kin_id: str) -> tuple[str | None, int, int]:
    """The Kin's active compacting summary (``None`` when none), and how many messages follow
    its cut and their tokens (``message_tokens``' estimate, summed in SQL). Run on the event
    loop (``read_now``: an index range summed, about 20 µs after every turn)."""
    summary, cut = active_summary(db, kin_id)
    return (summary, *size_after(db, kin_id, cut))


def active_summary(db: Database, kin_id: str) -> tuple[str | None, int]:
    """The Kin's active compacting summary (``None`` when none) and the position its cut
    follows (0 when none); kept until its snapshots change (``read_kept``)."""
    found = db.read_kept(_ACTIVE_SUMMARY, (kin_id,), [("compacting_snapshot", kin_id)])
    return (found[0][0], found[0][1]) if found else (None, 0)


def size_after(db: Database, kin_id: str, position: int) -> tuple[int, int]:
    """How many of the Kin's messages are placed after ``position``, and their tokens as
    ``message_tokens`` estimates them (``read_now``)."""
    count, tokens = db.read_now(_SIZE_AFTER_CUT, (kin_id, position))[0]
    return int(count), int(tokens or 0)


def placed_after(db: Database, kin_id: str, position: int) -> list[tuple[MessageView, int]]:
    """The Kin's messages placed in the conversation after ``position``, oldest first, each
    with its position (not the ones a retry superseded: they are no longer part of it).
    Call it on a reader thread: a session never compacted may hold thousands."""
    rows = db.sql(_PLACED_AFTER, (kin_id, position)).fetchall()
    return [(MessageView.from_row(row[:-1]), row[-1]) for row in rows]

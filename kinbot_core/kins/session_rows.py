"""The rows a turn's context is built from, read with plain SQL (this runs on every turn:
building the equivalent peewee queries cost more CPU than running them)."""

from __future__ import annotations

from typing import Any

from kinbot_core.db import Database
from kinbot_core.kins.views import MESSAGE_COLUMNS

_ACTIVE_SUMMARY = (
    "select summary, through_position from compacting_snapshot where kin_id = ? and active"
)
_AFTER_CUT = (
    f"select {MESSAGE_COLUMNS} from message where kin_id = ? and position is not null "
    "and position > ? and not superseded order by position desc limit ?"
)


def session_rows(db: Database, kin_id: str, window: int) -> tuple[str | None, list[Any]]:
    """The Kin's active compacting summary (``None`` when there is none or it is blank) and
    the last ``window`` messages after its cut, newest first, as ``MESSAGE_COLUMNS`` rows.
    Call it on a database thread."""
    active = db.sql(_ACTIVE_SUMMARY, (kin_id,)).fetchone()
    summary, cut = active if active is not None else (None, 0)
    rows = db.sql(_AFTER_CUT, (kin_id, cut, window)).fetchall()
    return summary or None, rows


def turn_has_begun(db: Database, trigger_id: int) -> bool:
    """Whether the turn answering message ``trigger_id`` already wrote something (a step, a
    tool result): it is being resumed, after an approval or a restart (inside a read)."""
    row = db.sql(
        "select 1 from message where turn_of = ? and not superseded limit 1", (trigger_id,)
    ).fetchone()
    return row is not None

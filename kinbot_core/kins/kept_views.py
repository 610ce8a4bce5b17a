"""Each Kin's own view, kept until its row changes.

A turn reads its Kin four times (before and after the model's call, its tools, its
compacting); each read was a lookup (20 to 40 µs in the running server, whose writes drop the
readers' page cache) and a view to make (its tools' JSON parsed). The view is kept and the
database's ``ChangeLog`` says when its row changed; a write that changes a Kin's row and
reads it back (a turn's claim and end: its state) offers its view (``read_back``), which is
then kept without a lookup.
"""

from __future__ import annotations

from kinbot_core.db import Database
from kinbot_core.kins.views import KIN_COLUMNS, KinView

#: Kins whose own view is kept (about 2 kB each).
KEPT_KIN_VIEWS = 512

_SELECT_KIN = f"select {KIN_COLUMNS} from kin where id = ?"


class KeptKinViews:
    """The view of each Kin read lately, read again once its row changed."""

    def __init__(self, db: Database, limit: int = KEPT_KIN_VIEWS) -> None:
        self._db = db
        self._limit = limit
        #: Kin id → (the ``ChangeLog`` position it was read at, its view).
        self._kept: dict[str, tuple[int, KinView]] = {}

    def view(self, kin_id: str) -> KinView | None:
        """The Kin's view as its row reads now, or ``None`` when there is no such Kin
        (``read_now``, when its row changed since it was last read)."""
        changes = self._db.changes
        kept = self._kept.get(kin_id)
        if kept is not None and not changes.changed_since(kept[0], "kin", kin_id):
            return kept[1]
        offered = changes.offered("kin", kin_id)
        if offered is not None:  # the write that changed it read it back (``read_back``)
            self._kept[kin_id] = offered
            return offered[1]  # type: ignore[no-any-return]
        now = changes.position()
        rows = self._db.read_now(_SELECT_KIN, (kin_id,))
        if not rows:
            self._kept.pop(kin_id, None)
            return None
        view = KinView.from_row(rows[0])
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[kin_id] = (now, view)
        return view

"""Views kept from one turn to the next while their rows read the same: each Kin's window of
message views, and each Kin's own view.

Every turn reads the last messages of its Kin's session (up to 200 rows, ``session_rows``)
and turns each row into a ``MessageView``: about 3 µs a row, most of it the frozen
dataclass's construction. Between two turns of a Kin nearly every row reads the same, so the
view made for a row is reused while the row's values are equal, column for column; any
change to a message (an edit, a redaction, a status) makes a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kinbot_core.kins.views import KinView, MessageView

#: Kins whose window is kept (the ones in use; sub-Kins come and go): about 200 rows each.
KEPT_KINS = 16
#: Kins whose own view is kept (about 2 kB each).
KEPT_KIN_VIEWS = 512


class KeptViews:
    """Message views of the last window read for each of the ``KEPT_KINS`` latest Kins."""

    def __init__(self, limit: int = KEPT_KINS) -> None:
        self._limit = limit
        self._kept: dict[str, dict[int, tuple[Sequence[Any], MessageView]]] = {}

    def views(self, kin_id: str, rows: Sequence[Sequence[Any]]) -> list[MessageView]:
        """The views of ``rows`` (``MESSAGE_COLUMNS`` rows of Kin ``kin_id``), in their order:
        those kept for an equal row, new ones for the others. Only this window is kept."""
        kept = self._kept.pop(kin_id, {})
        window: dict[int, tuple[Sequence[Any], MessageView]] = {}
        views = []
        for row in rows:
            found = kept.get(row[0])
            view = found[1] if found is not None and found[0] == row else MessageView.from_row(row)
            window[row[0]] = (row, view)
            views.append(view)
        self._kept[kin_id] = window
        if len(self._kept) > self._limit:
            del self._kept[next(iter(self._kept))]  # the Kin whose window is oldest
        return views


class KeptKinViews:
    """The view of each Kin's last row read (a turn reads its Kin four times; making a view
    parses its tools' JSON), reused while the row is equal column for column."""

    def __init__(self, limit: int = KEPT_KIN_VIEWS) -> None:
        self._limit = limit
        self._kept: dict[str, tuple[Sequence[Any], KinView]] = {}

    def view(self, row: Sequence[Any]) -> KinView:
        """The view of ``row`` (``KIN_COLUMNS``): the one kept for an equal row, or a new one."""
        kept = self._kept.get(row[0])
        if kept is not None and kept[0] == row:
            return kept[1]
        view = KinView.from_row(row)
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[view.id] = (row, view)
        return view

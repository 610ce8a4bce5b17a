"""Each Kin's session window (its compacting summary and the last messages after the cut),
kept from one turn to the next and brought up to date with the rows that changed.

Every turn reads the window of its Kin: up to 200 rows read and turned into ``MessageView``
objects cost about 0.4 ms of the event loop's time in the running server. Between two turns
of a Kin, a few rows change (the turn's messages, their status); the database's
``ChangeLog`` says which, and only those are read again. A window is read whole when its
summary changed, when a change is no longer known, or when a message left a window that did
not hold every message after the cut (an older one takes its place). The writes of a turn
read back the message rows they change (``read_back``): those are taken as offered, without a
lookup.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.compacting.tokens import message_tokens
from kinbot_core.db import Database
from kinbot_core.kins.session_rows import active_summary, placed_rows
from kinbot_core.kins.views import PLACED_COLUMNS, MessageView

#: Kins whose window is kept (the ones in use; sub-Kins come and go): about 200 rows each.
KEPT_KINS = 16
#: More changed rows than this since the last turn: the window is read whole.
MOST_CHANGED_ROWS = 64
_TOKENS = operator.attrgetter("tokens")


@dataclass
class _Entry:
    position: int
    row: Sequence[Any]
    view: MessageView
    tokens: int


@dataclass
class _Window:
    #: The ``ChangeLog`` position it was read (or brought up to date) at.
    read_at: int
    size: int
    summary: str | None
    cut: int
    #: Newest first, at most ``size``.
    entries: list[_Entry] = field(default_factory=list)
    #: The ids of the messages in ``entries``.
    ids: set[int] = field(init=False, repr=False)
    #: The entries' views, oldest first, and their tokens in all: kept in step with them, so
    #: that a turn does not go over the whole window for either.
    views: list[MessageView] = field(init=False, repr=False)
    tokens: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.ids = {entry.row[0] for entry in self.entries}
        self.views = [entry.view for entry in reversed(self.entries)]
        self.tokens = sum(map(_TOKENS, self.entries))

    @property
    def holds_all(self) -> bool:
        """Whether every message placed after the cut is in it."""
        return len(self.entries) < self.size


class SessionWindows:
    """The kept windows of the ``KEPT_KINS`` Kins read last."""

    def __init__(self, db: Database, limit: int = KEPT_KINS) -> None:
        self._db = db
        self._limit = limit
        self._kept: dict[str, _Window] = {}

    def read(self, kin_id: str, size: int) -> tuple[str | None, list[MessageView]]:
        """The Kin's active summary (``None`` when none or blank) and the views of the last
        ``size`` messages after its cut, oldest first (run on the event loop)."""
        window = self._up_to_date(kin_id, size)
        return window.summary, list(window.views)

    def newest(self, kin_id: str, count: int) -> list[MessageView] | None:
        """The Kin's last ``count`` messages placed in its conversation (before the cut or
        after it), oldest first, when its kept window holds that many; else ``None``."""
        kept = self._kept.get(kin_id)
        if kept is None or count > kept.size:
            return None
        window = self._up_to_date(kin_id, kept.size)
        if len(window.entries) < count:
            return None
        return [entry.view for entry in reversed(window.entries[:count])]

    def size(self, kin_id: str) -> tuple[str | None, int, int] | None:
        """The Kin's active summary, how many messages follow its cut and their tokens
        (``message_tokens``), when its kept window holds every one of them; else ``None``."""
        kept = self._kept.get(kin_id)
        if kept is None:
            return None
        window = self._up_to_date(kin_id, kept.size)
        if not window.holds_all:
            return None
        return window.summary, len(window.entries), window.tokens

    def _up_to_date(self, kin_id: str, size: int) -> _Window:
        changes = self._db.changes
        now = changes.position()
        kept = self._kept.pop(kin_id, None)
        window = None
        if (
            kept is not None
            and kept.size == size
            and not changes.changed_since(kept.read_at, "compacting_snapshot", kin_id)
        ):
            window = self._brought_up_to_date(kin_id, kept, now)
        if window is None:
            window = self._read_whole(kin_id, size, now, kept)
        self._kept[kin_id] = window
        if len(self._kept) > self._limit:
            del self._kept[next(iter(self._kept))]  # the Kin whose window is oldest
        return window

    def _read_whole(self, kin_id: str, size: int, now: int, kept: _Window | None) -> _Window:
        summary, cut = active_summary(self._db, kin_id)
        rows = placed_rows(self._db, kin_id, cut, size)
        earlier = {entry.row[0]: entry for entry in kept.entries} if kept else {}
        entries = [_entry(row, earlier.get(row[0])) for row in rows]
        return _Window(now, size, summary or None, cut, entries)

    def _brought_up_to_date(self, kin_id: str, kept: _Window, now: int) -> _Window | None:
        changed = self._db.changes.rows_changed_since(kept.read_at, "message", kin_id)
        if changed is None or len(changed) > MOST_CHANGED_ROWS:
            return None
        if not changed:
            kept.read_at = now
            return kept
        rows = self._offered_rows(kin_id, changed)
        if rows is None:
            marks = ", ".join("?" * len(changed))
            rows = self._db.read_now(
                f"select {PLACED_COLUMNS} from message where id in ({marks})", tuple(changed)
            )
        if self._appended(kin_id, kept, rows, changed):
            kept.read_at = now
            return kept
        by_id = {entry.row[0]: entry for entry in kept.entries}
        left_window = False
        for row in rows:
            earlier = by_id.pop(row[0], None)
            if _placed_after(row, kin_id, kept.cut):
                by_id[row[0]] = _entry(row, earlier)
            elif earlier is not None:
                left_window = True
        for deleted in changed.difference(row[0] for row in rows):
            left_window = by_id.pop(deleted, None) is not None or left_window
        if left_window and not kept.holds_all:
            return None  # an older message, not kept, now belongs in the window
        entries = sorted(by_id.values(), key=lambda entry: entry.position, reverse=True)
        return _Window(now, kept.size, kept.summary, kept.cut, entries[: kept.size])

    def _offered_rows(self, kin_id: str, changed: set[Any]) -> list[Sequence[Any]] | None:
        """The changed rows as the writes that changed them read them back (``read_back``),
        when every one of them did; else ``None`` (then they are read)."""
        changes = self._db.changes
        rows = []
        for message_id in changed:
            offered = changes.offered("message", kin_id, message_id)
            if offered is None:
                return None
            rows.append(offered[1])
        return rows

    @staticmethod
    def _appended(
        kin_id: str, kept: _Window, rows: Sequence[Sequence[Any]], changed: set[Any]
    ) -> bool:
        """Bring ``kept`` up to date in place when the changes are what a turn makes (new
        messages after the newest one, and messages of the window changed where they are);
        ``False``, touching nothing, for anything else."""
        if len(rows) != len(changed):
            return False  # a message was deleted
        entries = kept.entries
        newest = entries[0].position if entries else kept.cut
        ids = kept.ids
        added, replaced = [], []
        for row in rows:
            placed = _placed_after(row, kin_id, kept.cut)
            if row[0] in ids:
                if not placed:
                    return False
                index = next(i for i, entry in enumerate(entries) if entry.row[0] == row[0])
                if entries[index].position != row[-1]:
                    return False
                replaced.append((index, row))
            elif placed:
                if row[-1] <= newest:
                    return False
                added.append(row)
        views = kept.views
        for index, row in replaced:
            earlier = entries[index]
            entries[index] = entry = _entry(row, earlier)
            views[-1 - index] = entry.view
            kept.tokens += entry.tokens - earlier.tokens
        if added:
            added.sort(key=lambda row: row[-1], reverse=True)
            newest_first = [_entry(row, None) for row in added]
            entries[:0] = newest_first
            views.extend(entry.view for entry in reversed(newest_first))
            kept.tokens += sum(map(_TOKENS, newest_first))
            ids.update(row[0] for row in added)
            left = entries[kept.size :]
            for entry in left:
                ids.discard(entry.row[0])
            del entries[kept.size :]
            del views[: len(left)]
            kept.tokens -= sum(map(_TOKENS, left))
        return True


def _placed_after(row: Sequence[Any], kin_id: str, cut: int) -> bool:
    """Whether a ``PLACED_COLUMNS`` row belongs after the cut of the Kin's session."""
    position = row[-1]
    return row[1] == kin_id and position is not None and position > cut and not row[-2]


def _entry(row: Sequence[Any], earlier: _Entry | None) -> _Entry:
    """The entry of a ``PLACED_COLUMNS`` row: the earlier view while its row reads the same."""
    if earlier is not None and earlier.row == row:
        return earlier
    return _Entry(row[-1], row, MessageView.from_row(row[:-1]), message_tokens(row[6], row[7]))

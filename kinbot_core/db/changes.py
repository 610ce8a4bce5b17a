"""Which rows the writer changed, told after each of its transactions, so that what the event
loop reads on every turn can be kept until its rows change.

In WAL mode every commit of the writer makes the other connections drop their page cache: a
lookup by key that takes 5 µs alone takes 20 to 40 µs in the running server, where a turn
commits three times. Most of what a turn reads is what the last turn read (its Kin, its
session but for the newest messages); ``ChangeLog`` tells which part is not.

The writer thread's connection carries temporary triggers on the ``TRACKED`` tables: each
row inserted, updated or deleted there calls ``kinbot_row_changed(table, key, row)``. The
changes wait until the transaction ends, then are published under the next sequence number,
whether it committed or rolled back (a change published for nothing costs one read more). A
reader takes ``position()`` before it reads and later asks what changed after it.

A write that reads back a row it changed (``update … returning``) may ``offer`` it: once its
transaction is published, a reader asks ``offered`` for the row as it is now instead of
reading it, as long as nothing changed the row since (a write that failed takes its offers
back: ``GroupedWrites``).

Only the writer's connection has the triggers: every write goes through it
(``Database.write``). Another process writing the file (the command line) is caught by
``pragma data_version`` after each transaction of the writer: then everything counts as
changed.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

#: The tables whose changes are told, each with the column its changes are told by (``None``:
#: the table as a whole) and the column naming the changed row, when readers ask which rows
#: changed.
TRACKED: dict[str, tuple[str | None, str | None]] = {
    "message": ("kin_id", "id"),
    "kin": ("id", None),
    "compacting_snapshot": ("kin_id", None),
    "tool_approval": ("kin_id", None),
    "contact": ("kin_id", None),
    "custom_tool": ("kin_id", None),
    "memory": ("kin_id", None),
    "kin_mcp_server": ("kin_id", None),
    "mcp_server": (None, None),
    "channel_delivery": (None, None),
}

#: The changed rows remembered; a reader whose position is older reads everything anew.
RETAINED_ROWS = 8192

_FUNCTION = "kinbot_row_changed"


def _triggers(table: str, key: str | None, row: str | None) -> list[str]:
    def call(record: str) -> str:
        key_value = f"{record}.{key}" if key else "null"
        row_value = f"{record}.{row}" if row else "null"
        return f"select {_FUNCTION}('{table}', {key_value}, {row_value});"

    made = []
    for event, records in (("insert", ("new",)), ("update", ("old", "new")), ("delete", ("old",))):
        body = " ".join(call(record) for record in records)
        made.append(
            f"create temp trigger if not exists kinbot_changes_{table}_{event} "
            f"after {event} on main.{table} begin {body} end"
        )
    return made


class ChangeLog:
    """The changes of the ``TRACKED`` tables, published transaction by transaction.

    ``install``, ``record`` and ``publish`` run wherever the writer's connection is used
    (under ``GroupedWrites.connection_lock``: the writer thread, or the event loop for an
    inline write); the readers' methods on any thread (the event loop's, in practice)."""

    def __init__(self, retained_rows: int = RETAINED_ROWS) -> None:
        self._lock = threading.Lock()
        self._retained_rows = retained_rows
        self._published = 0
        #: The last position at which another process was seen writing: everything changed.
        self._everything_at = 0
        #: (table, key) and (table, None) → the last position that changed a row of it.
        self._latest: dict[tuple[str, Any], int] = {}
        #: (position, table, key, row) of the last changed rows, oldest first.
        self._rows: deque[tuple[int, str, Any, Any]] = deque()
        #: Changed rows older than this position were forgotten.
        self._forgotten_through = 0
        self._pending: list[tuple[str, Any, Any]] = []
        #: (table, key, row) of the retained rows → the last position that changed it.
        self._row_latest: dict[tuple[str, Any, Any], int] = {}
        #: What writes of the open transaction read back: (changes recorded before it,
        #: table, key, row, value).
        self._offers: list[tuple[int, str, Any, Any, Any]] = []
        #: (table, key, row) → (position, value) of the rows offered lately.
        self._offered: dict[tuple[str, Any, Any], tuple[int, Any]] = {}
        self._installed_on: Any = None
        self._installed_all = False
        self._data_version: int | None = None

    # -- readers ----------------------------------------------------------------------------

    def position(self) -> int:
        """The position now: take it before reading what ``changed_since`` will be asked of."""
        return self._published

    def changed_since(self, position: int, table: str, key: Any = None) -> bool:
        """Whether a row of ``table`` (with ``key`` in its ``TRACKED`` column; any row when
        ``key`` is ``None``) may have changed after ``position``."""
        with self._lock:
            if position < self._everything_at:
                return True
            return self._latest.get((table, key), 0) > position

    def rows_changed_since(self, position: int, table: str, key: Any) -> set[Any] | None:
        """The rows of ``table`` with ``key`` changed after ``position`` (their row column's
        values), or ``None`` when that is no longer known: then read them all anew."""
        with self._lock:
            if position < self._everything_at or position < self._forgotten_through:
                return None
            if self._latest.get((table, key), 0) <= position:
                return set()
            changed = set()
            for at, changed_table, changed_key, row in reversed(self._rows):
                if at <= position:
                    break
                if changed_table == table and changed_key == key:
                    changed.add(row)
            return changed

    def offered(self, table: str, key: Any, row: Any = None) -> tuple[int, Any] | None:
        """The position and value a write offered of a row (``row``: its ``TRACKED`` row
        column's value; ``None`` for a table told by key only), when nothing changed the row
        after that write; else ``None`` (then read it)."""
        with self._lock:
            kept = self._offered.get((table, key, row))
            if kept is None or kept[0] < self._everything_at:
                return None
            if row is None:
                latest = self._latest.get((table, key))
            elif kept[0] <= self._forgotten_through:
                return None
            else:
                latest = self._row_latest.get((table, key, row))
            return kept if latest == kept[0] else None

    # -- the writer thread ------------------------------------------------------------------

    def offer(self, table: str, key: Any, row: Any, value: Any) -> None:
        """A write read back a row it changed (``value``): readers may take it for the row
        once the transaction is published (called inside the write, after the statement)."""
        self._offers.append((len(self._pending), table, key, row, value))

    def offers_made(self) -> int:
        """How many offers the open transaction holds (``withdraw_offers``' mark)."""
        return len(self._offers)

    def withdraw_offers(self, mark: int = 0) -> None:
        """Take back the offers made after ``mark``: their write was rolled back."""
        del self._offers[mark:]

    def install(self, connection: Any) -> None:
        """Give the writer's ``connection`` the function and the triggers of the tracked
        tables it has (temporary triggers live as long as it; a table a migration has not
        made yet gets its triggers once it exists)."""
        if connection is self._installed_on and self._installed_all:
            return
        if connection is not self._installed_on:
            connection.create_function(_FUNCTION, 3, self.record)
            self._data_version = connection.execute("pragma data_version").fetchone()[0]
            self._installed_on = connection
        marks = ", ".join("?" * len(TRACKED))
        present = connection.execute(
            f"select name from sqlite_master where type = 'table' and name in ({marks})",
            tuple(TRACKED),
        ).fetchall()
        for (table,) in present:
            for statement in _triggers(table, *TRACKED[table]):
                connection.execute(statement)
        self._installed_all = len(present) == len(TRACKED)

    def schema_changed(self) -> None:
        """Migrations ran (on the writer thread): a table made anew lost its triggers, and
        any row may have changed. The triggers are made again at the next write."""
        self._installed_all = False
        with self._lock:
            self._published += 1
            self._everything_at = self._published

    def record(self, table: str, key: Any, row: Any) -> None:
        """A row of ``table`` changed (called by the triggers, inside the transaction)."""
        self._pending.append((table, key, row))

    def publish(self, connection: Any) -> None:
        """The writer's transaction ended (committed or not): publish its changes under the
        next position, and everything when another process wrote meanwhile."""
        data_version = connection.execute("pragma data_version").fetchone()[0]
        external = data_version != self._data_version
        self._data_version = data_version
        offers, self._offers = self._offers, []
        if not self._pending and not external:
            return
        pending, self._pending = self._pending, []
        # An offer holds if no later change of the transaction touched its row.
        last_change = {change: index for index, change in enumerate(pending)} if offers else {}
        with self._lock:
            position = self._published + 1
            if external:
                self._everything_at = position
            for table, key, row in pending:
                self._latest[(table, key)] = position
                self._latest[(table, None)] = position
                if row is not None:
                    self._rows.append((position, table, key, row))
                    self._row_latest[(table, key, row)] = position
            while len(self._rows) > self._retained_rows:
                forgotten = self._rows.popleft()
                self._forgotten_through = forgotten[0]
                if self._row_latest.get(forgotten[1:]) == forgotten[0]:
                    del self._row_latest[forgotten[1:]]
            for made_after, table, key, row, value in offers:
                if last_change.get((table, key, row), -1) < made_after:
                    self._offered[(table, key, row)] = (position, value)
            while len(self._offered) > self._retained_rows:
                del self._offered[next(iter(self._offered))]
            self._published = position

"""Cheap reads whose rows are kept until a row they depend on changes.

A turn asks the same small questions every time (does the Kin wait for an approval, has it
custom tools, pinned memories, MCP servers, does a channel delivery wait): each a lookup of
20 to 40 µs in the running server, where the writer's commits drop the readers' page cache,
and nearly always with the same answer. ``KeptReads`` keeps each answer and reads it again
only once the ``ChangeLog`` tells that a row it depends on changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kinbot_core.db.changes import TRACKED, ChangeLog

#: Answers kept (statement and parameters); all are forgotten when there are more.
KEPT_READS = 4096

#: A table the answer depends on, and the value of its ``TRACKED`` key column (``None``: any
#: row of the table).
Dependency = tuple[str, Any]


class KeptReads:
    """The kept answers of ``read_now`` statements (see the module docstring)."""

    def __init__(
        self,
        changes: ChangeLog,
        read_now: Callable[[str, Sequence[Any]], list[Any]],
        limit: int = KEPT_READS,
    ) -> None:
        self._changes = changes
        self._read_now = read_now
        self._limit = limit
        self._kept: dict[tuple[str, tuple[Any, ...]], tuple[int, tuple[Any, ...]]] = {}

    def read(
        self, statement: str, params: Sequence[Any], depends_on: Sequence[Dependency]
    ) -> list[Any]:
        """The rows of ``statement`` (a ``read_now`` lookup) with ``params``: the ones kept
        while no row of ``depends_on`` changed, else read now. ``depends_on`` must name every
        table the statement reads (``ValueError`` for a table whose changes are not told)."""
        for table, _key in depends_on:
            if table not in TRACKED:
                raise ValueError(f"changes of table {table!r} are not told (ChangeLog)")
        key = (statement, tuple(params))
        changes = self._changes
        kept = self._kept.get(key)
        if kept is not None and not any(
            changes.changed_since(kept[0], table, value) for table, value in depends_on
        ):
            return list(kept[1])
        now = changes.position()
        rows = self._read_now(statement, params)
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[key] = (now, tuple(rows))
        return rows

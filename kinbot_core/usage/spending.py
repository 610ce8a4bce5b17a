"""This month's spending of the people and Kins that have a budget, kept in memory so that
the check before a turn reads no database.

A total is read once per month (one indexed sum) and then kept current by the writer thread
as it stores each batch of usage: both happen on that one thread, so a batch is counted
exactly once, whichever comes first.
"""

from __future__ import annotations

from datetime import UTC, datetime

from kinbot_core.db import Database
from kinbot_core.usage.summaries import month_start, spent_since

#: ``("user", user id)`` or ``("kin", Kin id)``.
Target = tuple[str, str]


class MonthlySpending:
    """Totals of the current (UTC) month by person and Kin, for the targets asked about."""

    def __init__(self) -> None:
        self._month = ""
        self._spent: dict[Target, float] = {}

    def _roll(self) -> None:
        month = datetime.now(UTC).strftime("%Y-%m")
        if month != self._month:
            self._month, self._spent = month, {}

    def known(self, target: Target) -> float | None:
        """The total of ``target`` if it is kept (any thread)."""
        if self._month != datetime.now(UTC).strftime("%Y-%m"):
            return None
        return self._spent.get(target)

    def load(self, db: Database, target: Target) -> float:
        """The total of ``target``, read once a month (writer thread only)."""
        self._roll()
        if target not in self._spent:
            scope, target_id = target
            self._spent[target] = spent_since(db, month_start(), scope=scope, target_id=target_id)
        return self._spent[target]

    def add(self, costs: list[tuple[str | None, str | None, float]]) -> None:
        """Count stored usage (``(kin id, user id, cost)``) in the totals kept (writer thread
        only, after the rows are inserted)."""
        self._roll()
        for kin_id, user_id, cost in costs:
            for target in (("kin", kin_id), ("user", user_id)):
                if target[1] is not None and target in self._spent:
                    self._spent[target] += cost

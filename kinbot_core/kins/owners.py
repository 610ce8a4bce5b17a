"""Which Kin a Kin row works for: itself, or for the hidden row a sub-Kin runs as (a task's,
a cron run's), the Kin of its task, whose budget and usage its calls count against.

Background work that reads a session (the history indexer, every few seconds) asks for each
Kin row it meets: the answer is kept, since a row's owner never changes.
"""

from __future__ import annotations

from kinbot_core.db import Database

#: Kin rows whose owner is kept (a few dozen bytes each); all are forgotten past it.
KEPT_OWNERS = 4096

_SELECT_OWNER = (
    "select k.task_id, t.kin_id from kin k left join task t on t.id = k.task_id where k.id = ?"
)


class KinOwners:
    """The owner of each Kin row asked about, read once."""

    def __init__(self, db: Database, limit: int = KEPT_OWNERS) -> None:
        self._db = db
        self._limit = limit
        self._owners: dict[str, str] = {}

    def of(self, kin_id: str) -> str:
        """The Kin ``kin_id`` works for: the Kin of its task for a sub-Kin's hidden row, else
        ``kin_id`` itself (also when no such row, or no such task, is left to say)."""
        owner = self._owners.get(kin_id)
        if owner is not None:
            return owner
        rows = self._db.read_now(_SELECT_OWNER, (kin_id,))
        if not rows or (rows[0][0] is not None and rows[0][1] is None):
            return kin_id  # nothing to say it: not kept, a later answer may know
        owner = rows[0][1] or kin_id
        if len(self._owners) >= self._limit:
            self._owners.clear()
        self._owners[kin_id] = owner
        return owner

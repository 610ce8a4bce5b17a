"""What a Kin's system prompt says of its contact registry: names, kinds and ids, no details.

A registry of hundreds or thousands of contacts would make every request carry them all, so
the prompt lists at most ``contacts_listed_max`` of them (those linked to a person or Kin of
the platform first, then the most recently added or changed) and says how many more the
Kin can find with ``search_contacts``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kinbot_core.db import Database
from kinbot_core.text_language import folded

#: Kins whose digest is kept in memory.
KEPT_DIGESTS = 256

_ROWS = "select id, name, type, linked_id is not null, updated_at from contact where kin_id = ?"


@dataclass(frozen=True)
class ContactSummary:
    """A contact as the system prompt lists it: who, and the id to look the rest up."""

    id: str
    name: str
    type: str


@dataclass(frozen=True)
class ContactDigest:
    """The contacts a Kin's system prompt lists, sorted by name, and how many it leaves out."""

    listed: tuple[ContactSummary, ...] = ()
    unlisted: int = 0


class ContactDigests:
    """Each Kin's digest, kept between turns and read again only once one of its contacts
    was added, edited or deleted, by any writer (the database's ``ChangeLog``)."""

    def __init__(self, db: Database, listed_max: int) -> None:
        self._db = db
        self._listed_max = listed_max
        #: Each Kin's digest, with the ``ChangeLog`` position it was read at.
        self._kept: dict[str, tuple[int, ContactDigest]] = {}

    async def of(self, kin_id: str) -> ContactDigest:
        """The Kin's digest: the same object from turn to turn while its contacts stay."""
        changes = self._db.changes
        kept = self._kept.get(kin_id)
        if kept is not None and not changes.changed_since(kept[0], "contact", kin_id):
            return kept[1]
        read_at = changes.position()
        rows: list[tuple[str, str, str, int, float]] = await self._db.read(
            lambda: self._db.sql(_ROWS, (kin_id,)).fetchall()
        )
        if len(rows) > self._listed_max:  # linked first, then the most recently changed
            rows.sort(key=lambda row: (row[3], row[4], row[0]), reverse=True)
        listed = sorted(rows[: self._listed_max], key=lambda row: (folded(row[1]), row[1], row[0]))
        digest = ContactDigest(
            tuple(ContactSummary(id=row[0], name=row[1], type=row[2]) for row in listed),
            len(rows) - len(listed),
        )
        self._kept.pop(kin_id, None)
        self._kept[kin_id] = (read_at, digest)
        if len(self._kept) > KEPT_DIGESTS:  # sub-Kins come and go: forget the oldest
            del self._kept[next(iter(self._kept))]
        return digest

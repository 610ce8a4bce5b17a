"""Taking a Kin's next queued message for a turn.

A Kin's worker takes its next message (users' first, then the oldest) and marks the Kin
thinking, in one transaction. When the worker waits on an empty queue, the transaction that
stores a new message for its Kin takes it too (``KinService.enqueue``), and the message is
handed to the worker: a transaction, a lookup and a hand-over between threads less per turn,
and the turn starts sooner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import peewee

from kinbot_core.db import Database
from kinbot_core.db.models import MessageRecord
from kinbot_core.kins.read_back import kin_read_back, message_read_back
from kinbot_core.kins.views import KIN_COLUMNS, PLACED_COLUMNS, KinView, MessageView


@dataclass(frozen=True)
class Claimed:
    """A message taken for a turn, its Kin as the same transaction left it (thinking), and
    what a turn answering it had already written (read in that transaction too)."""

    message: MessageView
    kin: KinView
    #: Whether that turn wrote a message still part of the session (it is resumed, after an
    #: approval or a restart: never cut mid-reply).
    begun: bool
    #: The id of that turn's newest message, superseded or not (a retry's earlier reply).
    latest: int | None


NEXT_POSITION = "select coalesce(max(position), 0) + 1 from message where kin_id = ?"
ANY_QUEUED = "select 1 from message where kin_id = ? and status = 'queued' limit 1"
# A retried message keeps its place: it is answered again where it was.
_TAKE = (
    "update message set status = 'processing', "
    f"position = coalesce(position, ({NEXT_POSITION})) "
    "where id = (select id from message where kin_id = ? and status = 'queued' "
    f"order by priority, id limit 1) returning {PLACED_COLUMNS}"
)
_THINKING = f"update kin set state = 'thinking' where id = ? returning {KIN_COLUMNS}"
#: Whether a turn wrote a message still part of the session, and its newest message.
TURN_PROGRESS = "select max(not superseded), max(id) from message where turn_of = ?"
_DECISION_AWAITED = "select 1 from tool_approval where kin_id = ? and status = 'pending' limit 1"


class QueueWorkers(Protocol):
    """What the Kins' service tells their queue workers (``KinWorkers``)."""

    def wake(self, kin_id: str) -> None:
        """There is work in the Kin's queue."""

    def take_on_arrival(self, kin_id: str) -> bool:
        """Whether the message about to be stored for the Kin is to be taken in the same
        transaction (its worker waits on an empty queue). When ``True``, the worker waits
        for ``hand`` and nothing else takes the Kin's messages until then."""

    def hand(self, kin_id: str, claimed: Claimed | None) -> None:
        """What the transaction that stored a message took (``None``: it took nothing, or it
        failed); ends what ``take_on_arrival`` began."""

    def alone(self, kin_id: str) -> bool:
        """Whether no turn of another Kin runs now."""


def take_next(db: Database, kin_id: str, arrived: int | None = None) -> Claimed | None:
    """Take the Kin's next queued message and mark the Kin thinking (inside a write
    transaction); ``None`` when nothing is queued or the Kin is gone. ``arrived``: the id of
    a message just stored, which no turn has answered yet."""
    taken = db.sql(_TAKE, (kin_id, kin_id)).fetchone()
    if taken is None:
        return None
    kin = db.sql(_THINKING, (kin_id,)).fetchone()
    if kin is None:
        return None
    message = message_read_back(db, taken)
    if message.id == arrived:
        begun, latest = False, None
    else:
        begun, latest = db.sql(TURN_PROGRESS, (message.id,)).fetchone()
    return Claimed(message, kin_read_back(db, kin), bool(begun), latest)


def take_arrived(db: Database, kin_id: str, arrived: int) -> Claimed | None:
    """``take_next`` for the message ``arrived`` just stored, unless a turn of the Kin waits
    for a person's decision on a tool call (its queue waits with it, as its worker would)."""
    if db.sql(_DECISION_AWAITED, (kin_id,)).fetchone() is not None:
        return None
    return take_next(db, kin_id, arrived)


def next_position(kin_id: str) -> int:
    """The next place in the Kin's conversation (called inside a write transaction: writes
    are serialised, so two messages never get the same place)."""
    position: int = MessageRecord._meta.database.execute_sql(NEXT_POSITION, (kin_id,)).fetchone()[0]
    return position


def count_queued() -> dict[str, int]:
    """Queued messages per Kin, counted in the database."""
    rows: Any = (
        MessageRecord.select(MessageRecord.kin, peewee.fn.COUNT(MessageRecord.id))
        .where(MessageRecord.status == "queued")
        .group_by(MessageRecord.kin)
        .tuples()
    )
    return {str(kin_id): int(total) for kin_id, total in rows}

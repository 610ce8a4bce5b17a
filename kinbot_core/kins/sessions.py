"""The messages of Kins' sessions: storing them (queued for a turn or not), taking the next
for a turn, ending turns, and setting things right after a restart."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, MessageRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import KinMessageReceived, MessageSecretDetected
from kinbot_core.kins.claims import (
    ANY_QUEUED,
    NEXT_POSITION,
    Claimed,
    QueueWorkers,
    count_queued,
    next_position,
    take_arrived,
    take_next,
)
from kinbot_core.kins.meta import stopped_turn
from kinbot_core.kins.read_back import kin_read_back, message_read_back
from kinbot_core.kins.screening import AUTOMATIC_SOURCES, Screen
from kinbot_core.kins.views import (
    KIN_COLUMNS,
    MESSAGE_COLUMNS,
    PLACED_COLUMNS,
    KinError,
    KinNotFound,
    KinView,
    MessageView,
    TurnEnd,
    _kin_of,
)
from kinbot_core.live import LiveFeed

if TYPE_CHECKING:
    from kinbot_core.kins.session_window import SessionWindows

#: ``position`` of a message placed next in its Kin's conversation (``KinSessions._insert``).
NEXT_PLACE = object()

P = ParamSpec("P")
T = TypeVar("T")

#: Queue priorities: users' messages are taken before automatic ones.
USER_PRIORITY = 0
AUTOMATIC_PRIORITY = 1


class KinSessions:
    """The session half of ``KinService``, which mixes it in and holds what it uses."""

    _db: Database
    _bus: EventBus
    _live: LiveFeed
    #: What an incoming message goes through before it is stored (the Vault's screening).
    _screen: Screen
    #: Queued messages per Kin, kept in memory (counted from the database by ``recover``).
    _queue_lengths: dict[str, int]
    #: The queue workers (set by the platform), told of every newly queued message.
    workers: QueueWorkers | None
    #: Each Kin's session window, kept from turn to turn (compacting reads it too).
    windows: SessionWindows

    if TYPE_CHECKING:

        async def get(self, kin_id: str, *, include_tasks: bool = False) -> KinView: ...

    async def enqueue(
        self,
        kin_id: str,
        content: str,
        *,
        source: str,
        sender_id: str | None,
        sender_name: str,
        kin_message_type: str | None = None,
        request_id: str | None = None,
        chain_depth: int | None = None,
        task_id: str | None = None,
        guard: Callable[[], None] | None = None,
        stored: Callable[[int], None] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> MessageView:
        """Store an incoming message as queued for the Kin's next turn (users' messages go
        ahead of automatic ones) and return it at once. Its text is screened first: vault
        values are masked and, in what a person wrote, other secrets detected are hidden (the
        message is then flagged ``redaction_pending``), so no copy of them is stored, returned
        or broadcast. A message from another Kin carries its type (request, inform, reply),
        request id and chain depth; one from or to a sub-Kin, its task id. ``guard`` runs in
        the same transaction first (on the event loop's thread when the Kin's turns write
        there): what it changes is stored with the message, and it may raise to refuse;
        ``stored`` runs in it last, with the new message's id (to record what refers to it).
        ``attachments``: the files a user attached (checked by ``UploadStore.references``);
        ``meta``: structured facts for the UI (``kinbot_core.kins.meta``)."""
        if not content.strip() and not attachments:
            raise KinError("The message is empty.", code="message_empty")
        priority = USER_PRIORITY if source == "user" else AUTOMATIC_PRIORITY
        screened = await self._screen(content, detect=source not in AUTOMATIC_SOURCES)
        takes = self.workers is not None and self.workers.take_on_arrival(kin_id)

        def insert() -> tuple[MessageView, Claimed | None]:
            if self._db.sql(_KIN_EXISTS, (kin_id,)).fetchone() is None:
                raise KinNotFound("No such Kin.")
            if guard is not None:
                guard()
            view = self._insert(
                kin=kin_id,
                role="user",
                source=source,
                sender_id=sender_id,
                sender_name=sender_name,
                content=screened.content,
                redaction_pending=screened.redaction_pending,
                status="queued",
                priority=priority,
                created_at=time.time(),
                kin_message_type=kin_message_type,
                request_id=request_id,
                chain_depth=chain_depth,
                task_id=task_id,
                attachments=json.dumps(attachments) if attachments else None,
                meta=json.dumps(meta) if meta else None,
            )
            if screened.keep is not None:
                screened.keep(view.id)
            if stored is not None:
                stored(view.id)
            return view, (take_arrived(self._db, kin_id, view.id) if takes else None)

        # Told and handed over once stored, even when the caller is gone by then (a request
        # cancelled): a message taken for a turn must reach its worker.
        storing = asyncio.ensure_future(self._turn_write(kin_id, insert))
        storing.add_done_callback(functools.partial(self._stored, kin_id, source, takes))
        view, _claimed = await asyncio.shield(storing)
        return view

    def _stored(
        self,
        kin_id: str,
        source: str,
        takes: bool,
        storing: asyncio.Future[tuple[MessageView, Claimed | None]],
    ) -> None:
        workers = self.workers
        if storing.cancelled() or storing.exception() is not None:
            if takes and workers is not None:
                workers.hand(kin_id, None)
            return
        view, claimed = storing.result()
        try:
            queue_length = self._queue_lengths.get(kin_id, 0) + 1
            self._queue_lengths[kin_id] = queue_length
            self._bus.emit(
                KinMessageReceived(kin_id=kin_id, message_id=str(view.id), source=source)
            )
            if view.redaction_pending:
                self._bus.emit(MessageSecretDetected(kin_id=kin_id, message_id=str(view.id)))
            self._live.publish("message", {"message": view.to_dict()})
            self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": queue_length})
            if claimed is not None:
                self._publish_claimed(kin_id, claimed.message)
        finally:
            if workers is not None:
                if takes:
                    workers.hand(kin_id, claimed)
                else:
                    workers.wake(kin_id)

    async def add_message(
        self, kin_id: str, *, ends: TurnEnd | None = None, **fields: Any
    ) -> MessageView:
        """Store a message produced by a turn or the system (not queued). One coming in
        without a turn (a task's result in the background) has its vault values masked.
        ``meta`` (a dict) holds structured facts for the UI (``kinbot_core.kins.meta``).
        ``ends``: the message is its turn's last, and the turn ends with it, in the same
        transaction (``finish``)."""
        if fields.get("role") == "user" and fields.get("content"):
            fields["content"] = (await self._screen(fields["content"], detect=False)).content
        fields.setdefault("created_at", time.time())
        if isinstance(fields.get("tool_calls"), list):
            fields["tool_calls"] = json.dumps(fields["tool_calls"])
        if isinstance(fields.get("meta"), dict):
            fields["meta"] = json.dumps(fields["meta"])

        def insert() -> MessageView:
            view = self._insert(kin=kin_id, position=NEXT_PLACE, **fields)
            if ends is not None:
                self._end_turn(kin_id, ends)
            return view

        view = await self._turn_write(kin_id, insert)
        self._live.publish("message", {"message": view.to_dict()})
        if ends is not None:
            self._publish_end(kin_id, ends)
        return view

    async def _turn_write(
        self, kin_id: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """A write of the Kin's turn: at once on the event loop when no other Kin's turn runs
        (a few statements, cheaper than handing them to the writer thread), else on the
        writer thread, where turns running together share transactions."""
        workers = self.workers
        if workers is not None and workers.alone(kin_id):
            return await self._db.write_inline(fn, *args, **kwargs)
        return await self._db.write(fn, *args, **kwargs)

    def _insert(self, **fields: Any) -> MessageView:
        """Insert a message row (inside a write transaction); columns left out take the table's
        defaults, as the model's would. ``position=NEXT_PLACE``: the next place in the Kin's
        conversation."""
        columns = [_MESSAGE_FIELDS[name] for name in fields]  # KeyError: not a message field
        marks, values = [], []
        for value in fields.values():
            if value is NEXT_PLACE:  # found in the same statement: one round trip less a turn
                marks.append(f"({NEXT_POSITION})")
                values.append(fields["kin"])
            else:
                marks.append("?")
                values.append(int(value) if isinstance(value, bool) else value)
        statement = (
            f"insert into message ({', '.join(columns)}) values "
            f"({', '.join(marks)}) returning {PLACED_COLUMNS}"
        )
        return message_read_back(self._db, self._db.sql(statement, values).fetchone())

    async def messages(
        self, kin_id: str, *, before: int | None = None, limit: int = 50
    ) -> list[MessageView]:
        """A page of the session (a Kin's or a sub-Kin's), oldest first: the ``limit`` messages
        before ``before``."""
        await self.get(kin_id, include_tasks=True)

        def page() -> list[MessageRecord]:
            query = MessageRecord.select().where(MessageRecord.kin == kin_id)
            if before is not None:
                query = query.where(MessageRecord.id < before)
            return list(query.order_by(MessageRecord.id.desc()).limit(limit))

        rows = await self._db.read(page)
        return [MessageView.of(row) for row in reversed(rows)]

    async def history(self, kin_id: str, limit: int) -> list[MessageView]:
        """The last ``limit`` messages the Kin has seen, in the order it saw them (queued ones
        wait their turn; ones a retry superseded are no longer part of it)."""

        kept = self.windows.newest(kin_id, limit)  # run every turn, for a few messages
        if kept is not None:
            return kept
        rows = self._db.read_now(_HISTORY, (kin_id, limit))
        return [MessageView.from_row(row) for row in reversed(rows)]

    async def claim_next(self, kin_id: str) -> Claimed | None:
        """Take the Kin's next queued message (users' first, then oldest) for a turn, and mark
        the Kin thinking, in one transaction."""
        if not self._db.read_now(ANY_QUEUED, (kin_id,)):  # the worker asks again after a turn
            return None
        claimed = await self._turn_write(kin_id, take_next, self._db, kin_id)
        if claimed is not None:
            self._publish_claimed(kin_id, claimed.message)
        return claimed

    def _publish_claimed(self, kin_id: str, view: MessageView) -> None:
        remaining = max(self._queue_lengths.get(kin_id, 1) - 1, 0)
        self._queue_lengths[kin_id] = remaining
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": view.id, "status": "processing"}
        )
        self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": remaining})
        self._live.publish(
            "kin.state", {"kin_id": kin_id, "state": "thinking", "error": None, "error_code": None}
        )

    async def finish(self, kin_id: str, end: TurnEnd) -> None:
        """End a turn: its starting message is marked handled and the Kin takes its state
        after it, in one transaction (``add_message(ends=...)`` stores a last message with
        it)."""
        await self._turn_write(kin_id, self._end_turn, kin_id, end)
        self._publish_end(kin_id, end)

    def _end_turn(self, kin_id: str, end: TurnEnd) -> None:
        trigger = self._db.sql(_FINISHED, (end.status, time.time(), end.trigger_id)).fetchone()
        if trigger is not None:
            message_read_back(self._db, trigger)
        kin = self._db.sql(_KIN_STATE, (end.state, end.error, end.error_code, kin_id)).fetchone()
        if kin is not None:
            kin_read_back(self._db, kin)

    def _publish_end(self, kin_id: str, end: TurnEnd) -> None:
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": end.trigger_id, "status": end.status}
        )
        state = {"state": end.state, "error": end.error, "error_code": end.error_code}
        self._live.publish("kin.state", {"kin_id": kin_id, **state})

    def requeued(self, kin_id: str, message_id: int) -> None:
        """A handled message was queued again (a retry): count it, tell browsers, wake the
        Kin's worker."""
        queue_length = self._queue_lengths.get(kin_id, 0) + 1
        self._queue_lengths[kin_id] = queue_length
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": message_id, "status": "queued"}
        )
        self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": queue_length})
        if self.workers is not None:
            self.workers.wake(kin_id)

    async def recover(self) -> list[int]:
        """After a restart: turns cut short are resumed if they had produced nothing yet, or
        marked failed (with a note) if they had, so that nothing is lost or done twice.
        Returns the ids of the messages queued again."""

        def fix() -> list[int]:
            requeued = []
            for row in MessageRecord.select().where(MessageRecord.status == "processing"):
                produced = (
                    MessageRecord.select()
                    .where((MessageRecord.turn_of == row.id) & ~MessageRecord.superseded)
                    .exists()
                )
                if produced:
                    row.status = "failed"
                    MessageRecord.create(
                        kin=_kin_of(row),
                        position=next_position(_kin_of(row)),
                        role="system",
                        source="system",
                        sender_name="KinBot",
                        content="This turn was interrupted by a restart.",
                        is_error=True,
                        meta=json.dumps(stopped_turn()),
                        turn_of=row.id,
                        created_at=time.time(),
                    )
                else:
                    row.status = "queued"
                    row.position = None
                    requeued.append(row.id)
                row.save()
            KinRecord.update(state="idle").where(KinRecord.state == "thinking").execute()
            return requeued

        requeued = await self._db.write(fix)
        self._queue_lengths = await self._db.read(count_queued)
        return requeued

    async def cancel_queued(self, kin_id: str) -> int:
        """Cancel every message still queued for the Kin (a sub-Kin whose task ended).
        Returns how many were."""
        cancelled: list[int] = await self._db.write(
            lambda: [
                row.id
                for row in MessageRecord.update(status="cancelled")
                .where((MessageRecord.kin == kin_id) & (MessageRecord.status == "queued"))
                .returning(MessageRecord.id)
                .execute()
            ]
        )
        for message_id in cancelled:  # no browser is left showing them as waiting
            self._live.publish(
                "message.status", {"kin_id": kin_id, "id": message_id, "status": "cancelled"}
            )
        if self._queue_lengths.pop(kin_id, 0):
            self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": 0})
        return len(cancelled)

    async def queue_lengths(self) -> dict[str, int]:
        """Queued messages per Kin (kept in memory, counted from the database at start)."""
        return dict(self._queue_lengths)


# Plain SQL for what runs on every turn (see ``kinbot_core.kins.views``).
_KIN_EXISTS = "select 1 from kin where id = ?"
_HISTORY = (
    f"select {MESSAGE_COLUMNS} from message where kin_id = ? and position is not null "
    "and not superseded order by position desc limit ?"
)
_FINISHED = (
    f"update message set status = ?, processed_at = ? where id = ? returning {PLACED_COLUMNS}"
)
_KIN_STATE = (
    "update kin set state = ?, last_error = ?, last_error_code = ? where id = ? "
    f"returning {KIN_COLUMNS}"
)
#: Message fields a turn or the system may set, and their columns.
_MESSAGE_FIELDS = {name: (field.column_name) for name, field in MessageRecord._meta.fields.items()}

"""Kins and their sessions: create and edit Kins, store messages, enqueue incoming ones."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import peewee

from kinbot_core.accounts.avatars import AvatarStore
from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, MessageRecord, TaskRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import (
    KinCreated,
    KinDeleted,
    KinMessageReceived,
    KinUpdated,
    MessageSecretDetected,
)
from kinbot_core.kins.meta import stopped_turn
from kinbot_core.kins.screening import AUTOMATIC_SOURCES, Screen
from kinbot_core.live import LiveFeed
from kinbot_core.providers.light_models import OWN_MODEL

#: Fields of a Kin its users may set.
EDITABLE = (
    "name",
    "role",
    "character",
    "expertise",
    "model",
    "tools",
    "memory_extraction_model",
    "compacting_model",
    "network_access",
)
#: Queue priorities: users' messages are taken before automatic ones.
USER_PRIORITY = 0
AUTOMATIC_PRIORITY = 1


class KinError(Exception):
    """A request about a Kin that cannot be done; the message says why in English, ``code``
    (the class's, unless a more specific one is given) and ``params`` for the interface."""

    code = "kin_invalid"
    #: The HTTP status the API answers it with.
    status = 400

    def __init__(
        self, message: str, *, code: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class KinNotFound(KinError):
    code = "not_found"
    status = 404


@dataclass(frozen=True)
class KinView:
    """A Kin as the API and the runtime see it."""

    id: str
    name: str
    role: str
    avatar: str | None
    character: str
    expertise: str
    model: str
    tools: tuple[str, ...]
    workspace: str
    state: str
    last_error: str | None
    created_at: float
    updated_at: float
    #: The model that extracts its memories (``None``: the platform's choice).
    memory_extraction_model: str | None = None
    #: For the hidden row an ephemeral sub-Kin runs as: its task (``None`` for a Kin).
    task_id: str | None = None
    #: Whether its own code may reach the network (through the egress proxy).
    network_access: bool = False
    #: The user who created it (``None`` once that account is deleted).
    created_by: str | None = None
    #: The code of ``last_error`` (``kinbot_core.kins.meta.ERROR_CODES``), for the UI.
    last_error_code: str | None = None
    #: Who may use it: ``everyone``, ``members`` or ``private`` (``kinbot_core.kins.access``).
    access: str = "everyone"
    #: The model that writes its compacting summaries (``None``: the platform's choice).
    compacting_model: str | None = None

    @classmethod
    def of(cls, row: KinRecord) -> KinView:
        return cls(
            id=row.id,
            name=row.name,
            role=row.role,
            avatar=row.avatar_path,
            character=row.character,
            expertise=row.expertise,
            model=row.model,
            tools=tuple(json.loads(row.tools)),
            workspace=row.workspace,
            state=row.state,
            last_error=row.last_error,
            created_at=row.created_at,
            updated_at=row.updated_at,
            memory_extraction_model=row.memory_extraction_model,
            task_id=row.task_id,
            network_access=bool(row.network_access),
            created_by=row.__data__.get("created_by"),
            last_error_code=row.__data__.get("last_error_code"),
            access=row.access,
            compacting_model=row.__data__.get("compacting_model"),
        )

    def to_dict(self, queue_length: int = 0) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "avatar_url": f"/api/kins/{self.id}/avatar" if self.avatar else None,
            "character": self.character,
            "expertise": self.expertise,
            "model": self.model,
            "memory_extraction_model": self.memory_extraction_model,
            "compacting_model": self.compacting_model,
            "tools": list(self.tools),
            "network_access": self.network_access,
            "access": self.access,
            "created_by": self.created_by,
            "workspace": self.workspace,
            "state": self.state,
            "last_error": self.last_error,
            "last_error_code": self.last_error_code,
            "queue_length": queue_length,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True)
class MessageView:
    """A message of a Kin's session."""

    id: int
    kin_id: str
    role: str
    source: str
    sender_id: str | None
    sender_name: str | None
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None
    is_error: bool
    status: str
    turn_of: int | None
    created_at: float
    #: For a message from another Kin: ``request``, ``inform`` or ``reply``.
    kin_message_type: str | None = None
    #: The request it opens or answers.
    request_id: str | None = None
    #: Inter-Kin exchanges that led to it.
    chain_depth: int | None = None
    #: The sub-Kin task it comes from or is about.
    task_id: str | None = None
    #: Files a user attached (``kinbot_core.uploads.UploadView.reference`` dicts), or ``None``.
    attachments: list[dict[str, Any]] | None = None
    #: Secrets detected in it are hidden (``[PENDING SECRET <n>]``), waiting for the Kin to
    #: store them in the Vault or a member to say they are not secrets.
    redaction_pending: bool = False
    #: Structured facts for the UI (``kinbot_core.kins.meta``): a task's result, a failed
    #: turn's error code, a stopped reply. The ``content`` stays what the model reads.
    meta: dict[str, Any] | None = None
    #: Replaced by a retry: still shown (dimmed), left out of the Kin's context.
    superseded: bool = False

    @classmethod
    def of(cls, row: MessageRecord) -> MessageView:
        return cls(
            id=row.id,
            kin_id=_kin_of(row),
            role=row.role,
            source=row.source,
            sender_id=row.sender_id,
            sender_name=row.sender_name,
            content=row.content,
            tool_calls=json.loads(row.tool_calls) if row.tool_calls else None,
            tool_call_id=row.tool_call_id,
            is_error=bool(row.is_error),
            status=row.status,
            turn_of=row.turn_of,
            created_at=row.created_at,
            kin_message_type=row.kin_message_type,
            request_id=row.request_id,
            chain_depth=row.chain_depth,
            task_id=row.task_id,
            attachments=json.loads(row.attachments) if row.attachments else None,
            redaction_pending=bool(row.redaction_pending),
            meta=json.loads(row.meta) if row.meta else None,
            superseded=bool(row.superseded),
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class KinService:
    """Kins (shared by every user of the platform) and the messages of their sessions."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        live: LiveFeed,
        data_dir: Path,
        *,
        screen: Screen,
        check_model: Callable[[str], Any] | None = None,
    ) -> None:
        self._db = db
        #: What an incoming message goes through before it is stored (the Vault's screening).
        self._screen = screen
        self._bus = bus
        self._live = live
        self._workspaces = data_dir / "workspaces"
        self._check_model = check_model
        #: Queued messages per Kin, kept in memory (counted from the database by ``recover``).
        self._queue_lengths: dict[str, int] = {}
        #: Told of every newly queued message's Kin (the queue workers set this).
        self.on_enqueued: Callable[[str], None] = lambda kin_id: None

    # -- Kins --------------------------------------------------------------------------------

    async def list_all(self) -> list[KinView]:
        """Every Kin, oldest first (not the hidden rows sub-Kins run as)."""
        rows = await self._db.read(
            lambda: list(
                KinRecord.select().where(KinRecord.task_id.is_null()).order_by(KinRecord.created_at)
            )
        )
        return [KinView.of(row) for row in rows]

    async def get(self, kin_id: str, *, include_tasks: bool = False) -> KinView:
        """One Kin, or ``KinNotFound``; the hidden row of a sub-Kin only with
        ``include_tasks``."""
        row = await self._db.read(lambda: KinRecord.get_or_none(KinRecord.id == kin_id))
        if row is None or (row.task_id is not None and not include_tasks):
            raise KinNotFound("No such Kin.")
        return KinView.of(row)

    async def create(self, fields: dict[str, Any], *, created_by: str | None = None) -> KinView:
        """Create a Kin and its workspace directory. The model must resolve to a provider."""
        name = str(fields.get("name", "")).strip()
        if not name:
            raise KinError("A Kin needs a name.", code="kin_name_missing")
        model = str(fields.get("model", "")).strip()
        if not model:
            raise KinError("A Kin needs a model.", code="kin_model_missing")
        if self._check_model is not None:
            await self._check_model(model)
        kin_id = uuid.uuid4().hex
        workspace = self._workspaces / kin_id
        workspace.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = time.time()

        def insert() -> KinRecord:
            return KinRecord.create(
                id=kin_id,
                name=name,
                role=str(fields.get("role", "")).strip(),
                character=str(fields.get("character", "")),
                expertise=str(fields.get("expertise", "")),
                model=model,
                tools=json.dumps(list(fields.get("tools") or [])),
                workspace=str(workspace),
                created_by=created_by,
                created_at=now,
                updated_at=now,
            )

        view = KinView.of(await self._db.write(insert))
        self._bus.emit(KinCreated(kin_id=kin_id, name=name))
        self._live.publish("kin.created", {"kin": view.to_dict()})
        return view

    async def update(self, kin_id: str, changes: dict[str, Any]) -> KinView:
        """Change a Kin's editable fields."""
        unknown = set(changes) - set(EDITABLE)
        if unknown:
            fields = ", ".join(sorted(unknown))
            raise KinError(
                f"Not editable: {fields}.", code="kin_field_not_editable", params={"fields": fields}
            )
        if "name" in changes and not str(changes["name"]).strip():
            raise KinError("A Kin needs a name.", code="kin_name_missing")
        if "model" in changes and self._check_model is not None:
            await self._check_model(str(changes["model"]))
        for field in ("memory_extraction_model", "compacting_model"):
            if field in changes:  # empty: back to the platform's choice
                changes[field] = str(changes[field]).strip() or None
                if changes[field] not in (None, OWN_MODEL) and self._check_model is not None:
                    await self._check_model(changes[field])
        values = {k: (json.dumps(list(v)) if k == "tools" else v) for k, v in changes.items()}

        def update() -> KinRecord | None:
            if values:
                KinRecord.update(**values, updated_at=time.time()).where(
                    KinRecord.id == kin_id
                ).execute()
            return KinRecord.get_or_none(KinRecord.id == kin_id)

        row = await self._db.write(update)
        if row is None:
            raise KinNotFound("No such Kin.")
        view = KinView.of(row)
        self._bus.emit(KinUpdated(kin_id=kin_id))
        self._live.publish("kin.updated", {"kin": view.to_dict()})
        return view

    async def delete(self, kin_id: str) -> list[str]:
        """Delete a Kin and its session (its workspace directory is left on disk), with the
        sub-Kins working for it or as it, and theirs. Returns the ids of the sub-Kins'
        hidden rows deleted with it."""

        def remove() -> list[str] | None:
            row = KinRecord.get_or_none(KinRecord.id == kin_id)
            if row is None or row.task_id is not None:
                return None
            hidden: list[str] = []
            frontier = [kin_id]
            while frontier:
                found = [
                    task.__data__["session_kin"]
                    for task in TaskRecord.select(TaskRecord.session_kin).where(
                        TaskRecord.parent_kin.in_(frontier) | TaskRecord.kin.in_(frontier)
                    )
                    if task.__data__.get("session_kin")
                ]
                frontier = [session for session in found if session not in hidden]
                hidden.extend(frontier)
            KinRecord.delete().where(KinRecord.id.in_([kin_id, *hidden])).execute()
            return hidden

        hidden = await self._db.write(remove)
        if hidden is None:
            raise KinNotFound("No such Kin.")
        for removed in (kin_id, *hidden):
            self._queue_lengths.pop(removed, None)
        self._bus.emit(KinDeleted(kin_id=kin_id))
        self._live.publish("kin.deleted", {"kin_id": kin_id})
        return hidden

    async def set_avatar(self, kin_id: str, avatars: AvatarStore, data: bytes) -> KinView:
        """Store an uploaded avatar image for the Kin (checked and re-encoded)."""
        await self.get(kin_id)
        name = await avatars.save(f"kin-{kin_id}", data)

        def update() -> tuple[str | None, KinRecord]:
            row = KinRecord.get_by_id(kin_id)
            previous: str | None = row.avatar_path
            row.avatar_path = name
            row.updated_at = time.time()
            row.save()
            return previous, row

        previous, row = await self._db.write(update)
        await avatars.delete(previous)
        view = KinView.of(row)
        self._live.publish("kin.updated", {"kin": view.to_dict()})
        return view

    # -- messages ----------------------------------------------------------------------------

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
        or broadcast. A message from another Kin carries
        its type (request, inform, reply), request id and chain depth; one from or to a
        sub-Kin, its task id. ``guard`` runs in the same transaction first (on the writer
        thread): what it changes is stored with the message, and it may raise to refuse;
        ``stored`` runs in it last, with the new message's id (to record what refers to it).
        ``attachments``: the files a user attached (checked by ``UploadStore.references``);
        ``meta``: structured facts for the UI (``kinbot_core.kins.meta``)."""
        if not content.strip() and not attachments:
            raise KinError("The message is empty.", code="message_empty")
        priority = USER_PRIORITY if source == "user" else AUTOMATIC_PRIORITY
        screened = await self._screen(content, detect=source not in AUTOMATIC_SOURCES)

        def insert() -> MessageRecord:
            if not KinRecord.select().where(KinRecord.id == kin_id).exists():
                raise KinNotFound("No such Kin.")
            if guard is not None:
                guard()
            row = MessageRecord.create(
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
                screened.keep(row.id)
            if stored is not None:
                stored(row.id)
            return row

        row = await self._db.write(insert)
        queue_length = self._queue_lengths.get(kin_id, 0) + 1
        self._queue_lengths[kin_id] = queue_length
        view = MessageView.of(row)
        self._bus.emit(KinMessageReceived(kin_id=kin_id, message_id=str(view.id), source=source))
        if view.redaction_pending:
            self._bus.emit(MessageSecretDetected(kin_id=kin_id, message_id=str(view.id)))
        self._live.publish("message", {"message": view.to_dict()})
        self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": queue_length})
        self.on_enqueued(kin_id)
        return view

    async def add_message(self, kin_id: str, **fields: Any) -> MessageView:
        """Store a message produced by a turn or the system (not queued). One coming in
        without a turn (a task's result in the background) has its vault values masked.
        ``meta`` (a dict) holds structured facts for the UI (``kinbot_core.kins.meta``)."""
        if fields.get("role") == "user" and fields.get("content"):
            fields["content"] = (await self._screen(fields["content"], detect=False)).content
        fields.setdefault("created_at", time.time())
        if isinstance(fields.get("tool_calls"), list):
            fields["tool_calls"] = json.dumps(fields["tool_calls"])
        if isinstance(fields.get("meta"), dict):
            fields["meta"] = json.dumps(fields["meta"])
        row = await self._db.write(
            lambda: MessageRecord.create(kin=kin_id, position=next_position(kin_id), **fields)
        )
        view = MessageView.of(row)
        self._live.publish("message", {"message": view.to_dict()})
        return view

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

        def window() -> list[MessageRecord]:
            return list(
                MessageRecord.select()
                .where(
                    (MessageRecord.kin == kin_id)
                    & MessageRecord.position.is_null(False)
                    & ~MessageRecord.superseded
                )
                .order_by(MessageRecord.position.desc())
                .limit(limit)
            )

        rows = await self._db.read(window)
        return [MessageView.of(row) for row in reversed(rows)]

    async def claim_next(self, kin_id: str) -> tuple[MessageView, KinView] | None:
        """Take the Kin's next queued message (users' first, then oldest) for a turn, and mark
        the Kin thinking, in one transaction."""

        def claim() -> tuple[MessageRecord, KinRecord] | None:
            # Two statements (this runs before every turn): take the message, then the Kin.
            next_queued = (
                MessageRecord.select(MessageRecord.id)
                .where((MessageRecord.kin == kin_id) & (MessageRecord.status == "queued"))
                .order_by(MessageRecord.priority, MessageRecord.id)
                .limit(1)
            )
            taken = list(
                MessageRecord.update(
                    status="processing",
                    # A retried message keeps its place: it is answered again where it was.
                    position=peewee.fn.COALESCE(
                        MessageRecord.position, _next_position_query(kin_id)
                    ),
                )
                .where(MessageRecord.id == next_queued)
                .returning(MessageRecord)
                .execute()
            )
            if not taken:
                return None
            kin = list(
                KinRecord.update(state="thinking")
                .where(KinRecord.id == kin_id)
                .returning(KinRecord)
                .execute()
            )
            return (taken[0], kin[0]) if kin else None

        claimed = await self._db.write(claim)
        if claimed is None:
            return None
        view, kin = MessageView.of(claimed[0]), KinView.of(claimed[1])
        remaining = max(self._queue_lengths.get(kin_id, 1) - 1, 0)
        self._queue_lengths[kin_id] = remaining
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": view.id, "status": "processing"}
        )
        self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": remaining})
        self._live.publish(
            "kin.state", {"kin_id": kin_id, "state": "thinking", "error": None, "error_code": None}
        )
        return view, kin

    async def finish(
        self,
        kin_id: str,
        message_id: int,
        status: str,
        *,
        state: str,
        error: str | None = None,
        error_code: str | None = None,
    ) -> None:
        """Mark the message that started a turn as handled (done, failed or cancelled) and
        set the Kin's state after it (``error``, ``error_code``: why it is in the error
        state), in one transaction."""

        def update() -> None:
            MessageRecord.update(status=status, processed_at=time.time()).where(
                MessageRecord.id == message_id
            ).execute()
            KinRecord.update(state=state, last_error=error, last_error_code=error_code).where(
                KinRecord.id == kin_id
            ).execute()

        await self._db.write(update)
        self._live.publish("message.status", {"kin_id": kin_id, "id": message_id, "status": status})
        self._live.publish(
            "kin.state",
            {"kin_id": kin_id, "state": state, "error": error, "error_code": error_code},
        )

    async def latest_of_turn(self, trigger_id: int) -> int | None:
        """The id of the newest message the turn of ``trigger_id`` produced (superseded or
        not), if any."""
        latest = await self._db.read(
            lambda: (
                MessageRecord.select(peewee.fn.MAX(MessageRecord.id))
                .where(MessageRecord.turn_of == trigger_id)
                .scalar()
            )
        )
        return int(latest) if latest is not None else None

    def requeued(self, kin_id: str, message_id: int) -> None:
        """A handled message was queued again (a retry): count it, tell browsers, wake the
        Kin's worker."""
        queue_length = self._queue_lengths.get(kin_id, 0) + 1
        self._queue_lengths[kin_id] = queue_length
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": message_id, "status": "queued"}
        )
        self._live.publish("kin.queue", {"kin_id": kin_id, "queue_length": queue_length})
        self.on_enqueued(kin_id)

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
        self._queue_lengths = await self._db.read(_count_queued)
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


def _kin_of(row: MessageRecord) -> str:
    """The Kin id a message row holds, without loading the Kin."""
    kin_id: str = row.__data__["kin"]
    return kin_id


def _next_position_query(kin_id: str) -> Any:
    """The next place in the Kin's conversation, as a subquery (used on the single writer
    thread, so two messages never get the same place)."""
    return MessageRecord.select(
        peewee.fn.COALESCE(peewee.fn.MAX(MessageRecord.position), 0) + 1
    ).where(MessageRecord.kin == kin_id)


def next_position(kin_id: str) -> int:
    """The next place in the Kin's conversation (called on the single writer thread)."""
    return int(_next_position_query(kin_id).scalar())


def _count_queued() -> dict[str, int]:
    rows: Any = (
        MessageRecord.select(MessageRecord.kin, peewee.fn.COUNT(MessageRecord.id))
        .where(MessageRecord.status == "queued")
        .group_by(MessageRecord.kin)
        .tuples()
    )
    return {str(kin_id): int(total) for kin_id, total in rows}

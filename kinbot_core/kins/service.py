"""Kins: creating, editing and deleting them (their sessions' messages:
``kinbot_core.kins.sessions``)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kinbot_core.accounts.avatars import AvatarStore
from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, TaskRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import KinCreated, KinDeleted, KinUpdated
from kinbot_core.kins.claims import next_position
from kinbot_core.kins.kept_views import KeptKinViews
from kinbot_core.kins.owners import KinOwners
from kinbot_core.kins.screening import Screen
from kinbot_core.kins.sessions import AUTOMATIC_PRIORITY, USER_PRIORITY, KinSessions
from kinbot_core.kins.views import KinError, KinNotFound, KinView, MessageView
from kinbot_core.live import LiveFeed
from kinbot_core.providers.light_models import OWN_MODEL

if TYPE_CHECKING:  # it counts tokens with compacting's estimate, which imports this
    from kinbot_core.kins.session_window import SessionWindows

__all__ = [
    "AUTOMATIC_PRIORITY",
    "EDITABLE",
    "USER_PRIORITY",
    "KinError",
    "KinNotFound",
    "KinService",
    "KinView",
    "MessageView",
    "next_position",
]

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


class KinService(KinSessions):
    """Kins (shared by every user of the platform) and the messages of their sessions."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        live: LiveFeed,
        data_dir: Path,
        *,
        screen: Screen,
        windows: SessionWindows,
        check_model: Callable[[str], Any] | None = None,
    ) -> None:
        self._db = db
        self._screen = screen
        self._bus = bus
        self._live = live
        self._workspaces = data_dir / "workspaces"
        self._check_model = check_model
        self._queue_lengths = {}
        self.workers = None
        #: A turn reads its Kin four times: an unchanged row gets the view made before.
        self._kin_views = KeptKinViews(db)
        #: Which Kin each Kin row works for (a sub-Kin's hidden row: its task's Kin).
        self.owners = KinOwners(db)
        self.windows = windows

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
        view = self._kin_views.view(kin_id)  # read before and after every turn
        if view is None:
            raise KinNotFound("No such Kin.")
        if view.task_id is not None and not include_tasks:
            raise KinNotFound("No such Kin.")
        return view

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

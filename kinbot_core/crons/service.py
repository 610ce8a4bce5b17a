"""Crons (specification section 8): create, change, confirm and delete them, under the rules
of who may do what.

A user's cron is active at once (unless created inactive). A Kin's cron is a proposal: it
stays inactive, awaiting a user's confirmation; a Kin changing what a confirmed cron does
(schedule, time zone, task, target, model) or asking to activate it sends it back to awaiting
confirmation, while it may deactivate one freely. A Kin manages only the crons it created or
that target it. Active crons are limited by ``cron_max_active``. The scheduler
(``kinbot_core.crons.scheduler``) is told of every change.
"""

from __future__ import annotations

import builtins
import uuid
from typing import TYPE_CHECKING, Any

from kinbot_core.crons.records import CronRecord, CronRunRecord
from kinbot_core.crons.schedule import ScheduleError, check_expression, check_zone
from kinbot_core.crons.scheduler import CronScheduler
from kinbot_core.crons.views import (
    Author,
    CronConflict,
    CronError,
    CronForbidden,
    CronLimitReached,
    CronNotFound,
    CronView,
)
from kinbot_core.events.catalogue import CronCreated, CronDeleted, CronUpdated
from kinbot_core.kins.service import KinNotFound
from kinbot_core.providers import ProviderError

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

#: What changing needs a user's confirmation again when a Kin does it.
SENSITIVE = ("schedule", "timezone", "task_description", "kin_id", "model")
#: Fields a cron's owner may change.
EDITABLE = ("name", "active", *SENSITIVE)
NAME_MAX = 120
DESCRIPTION_MAX = 20_000


class CronService:
    """The crons of one platform (``platform.crons``) and their ``scheduler``, which is told
    of every change."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self.scheduler = CronScheduler(platform)

    async def start(self) -> None:
        """Start scheduling (after the task service recovered its tasks)."""
        await self.scheduler.start()

    def stop(self) -> None:
        """Stop scheduling: no cron fires any more."""
        self.scheduler.stop()

    def describe(self, cron: CronView) -> dict[str, Any]:
        """A cron as the API shows it, with the time it fires next."""
        return cron.to_dict(self.scheduler.next_run_at(cron.id))

    # -- reading -----------------------------------------------------------------------------

    async def list(self, kin_id: str | None = None) -> builtins.list[CronView]:
        """Every cron, or those targeting ``kin_id``, oldest first."""

        def select() -> list[CronRecord]:
            query = CronRecord.select().order_by(CronRecord.created_at, CronRecord.id)
            if kin_id is not None:
                query = query.where(CronRecord.kin == kin_id)
            return list(query)

        return [CronView.of(row) for row in await self._platform.db.read(select)]

    async def list_for_kin(self, kin_id: str) -> builtins.list[CronView]:
        """The crons a Kin manages: those it created or that target it."""

        def select() -> list[CronRecord]:
            return list(
                CronRecord.select()
                .where((CronRecord.kin == kin_id) | (CronRecord.created_by_kin == kin_id))
                .order_by(CronRecord.created_at, CronRecord.id)
            )

        return [CronView.of(row) for row in await self._platform.db.read(select)]

    async def get(self, cron_id: str) -> CronView:
        """One cron, or ``CronNotFound``."""
        row = await self._platform.db.read(lambda: CronRecord.get_or_none(CronRecord.id == cron_id))
        if row is None:
            raise CronNotFound.of(cron_id)
        return CronView.of(row)

    async def runs(self, cron_id: str, limit: int = 50) -> builtins.list[dict[str, Any]]:
        """The cron's latest scheduled times and what became of each, newest first."""
        await self.get(cron_id)

        def select() -> list[CronRunRecord]:
            return list(
                CronRunRecord.select()
                .where(CronRunRecord.cron == cron_id)
                .order_by(CronRunRecord.scheduled_for.desc())
                .limit(limit)
            )

        return [
            {
                "id": run.id,
                "cron_id": cron_id,
                "scheduled_for": run.scheduled_for,
                "status": run.status,
                "task_id": run.task_id,
                "skip_reason": run.skip_reason,
                "error": run.error,
                "missed": bool(run.missed),
                "started_at": run.started_at,
                "ended_at": run.ended_at,
            }
            for run in await self._platform.db.read(select)
        ]

    # -- changing ----------------------------------------------------------------------------

    async def create(self, fields: dict[str, Any], author: Author) -> CronView:
        """Create a cron from ``name``, ``schedule``, ``task_description`` and optionally
        ``kin_id`` (a Kin's default: itself), ``timezone``, ``model`` and ``active`` (a user's
        default: true; a Kin's cron always awaits confirmation)."""
        if author.kind == "kin":
            fields = {"kin_id": author.id, **{k: v for k, v in fields.items() if v is not None}}
        values = await self._checked(fields, required=True)
        if "kin_id" not in values:
            raise CronError("'kin_id' is required: the Kin the cron runs on.")
        by_user = author.kind == "user"
        active = by_user and bool(fields.get("active", True))
        now = self._platform.clock.time()
        cron_id = uuid.uuid4().hex

        def insert() -> CronRecord:
            if active:
                self._check_active_limit(exclude=None)
            return CronRecord.create(
                id=cron_id,
                kin=values["kin_id"],
                name=values["name"],
                schedule=values["schedule"],
                timezone=values.get("timezone"),
                task_description=values["task_description"],
                model=values.get("model"),
                active=active,
                needs_confirmation=not by_user,
                confirmed_by=author.id if by_user else None,
                confirmed_at=now if by_user else None,
                created_by_user=author.id if by_user else None,
                created_by_kin=author.id if not by_user else None,
                activated_at=now if active else None,
                created_at=now,
                updated_at=now,
            )

        view = CronView.of(await self._platform.db.write(insert))
        self._platform.bus.emit(CronCreated(cron_id=view.id, kin_id=view.kin_id, name=view.name))
        self._changed(view, "cron.created")
        return view

    async def update(self, cron_id: str, changes: dict[str, Any], author: Author) -> CronView:
        """Change a cron's fields (see the module's rules for Kins)."""
        unknown = set(changes) - set(EDITABLE)
        if unknown:
            raise CronError(
                f"Not editable: {', '.join(sorted(unknown))}; editable: {', '.join(EDITABLE)}."
            )
        current = await self._managed(cron_id, author)
        values = await self._checked(changes, required=False)
        if "active" in changes:
            if not isinstance(changes["active"], bool):
                raise CronError("'active' must be true or false.")
            values["active"] = changes["active"]
        now = self._platform.clock.time()
        record = _record_fields(values)
        record.pop("active", None)
        sensitive_changed = any(
            key in values and values[key] != getattr(current, key) for key in SENSITIVE
        )
        asked = values.get("active")
        if asked is False:
            # Deactivating (a user or a Kin) also withdraws a pending proposal.
            record.update(active=False, needs_confirmation=False)
        elif author.kind == "kin":
            if (asked is True and not current.scheduled) or (
                sensitive_changed and current.scheduled
            ):
                # A proposal again: a user must confirm it.
                record.update(active=False, needs_confirmation=True)
        elif asked is True and not current.scheduled:
            # A user activating a cron (a proposal included) confirms it.
            record.update(
                active=True,
                needs_confirmation=False,
                confirmed_by=author.id,
                confirmed_at=now,
                activated_at=now,
            )
        if any(k in values and values[k] != getattr(current, k) for k in ("schedule", "timezone")):
            # Times of the old schedule are not missed runs of the new one.
            record["activated_at"] = now
        record["updated_at"] = now
        return await self._write_update(current, record)

    async def confirm(self, cron_id: str, user_id: str) -> CronView:
        """A user confirms a Kin's proposal (or a Kin's change): the cron becomes active."""
        current = await self.get(cron_id)
        if not current.needs_confirmation:
            raise CronConflict(
                f"The cron {current.name!r} is not awaiting confirmation ({current.state})."
            )
        now = self._platform.clock.time()
        record: dict[str, Any] = {
            "active": True,
            "needs_confirmation": False,
            "confirmed_by": user_id,
            "confirmed_at": now,
            "updated_at": now,
        }
        if not current.scheduled:
            record["activated_at"] = now
        return await self._write_update(current, record)

    async def delete(self, cron_id: str, author: Author) -> None:
        """Delete a cron and its run history."""
        current = await self._managed(cron_id, author)
        deleted = await self._platform.db.write(
            lambda: CronRecord.delete().where(CronRecord.id == cron_id).execute()
        )
        if not deleted:
            raise CronNotFound.of(cron_id)
        self._platform.bus.emit(CronDeleted(cron_id=cron_id, kin_id=current.kin_id))
        self._platform.live.publish("cron.deleted", {"cron_id": cron_id, "kin_id": current.kin_id})
        self.scheduler.cron_changed(cron_id, None)

    # -- helpers -----------------------------------------------------------------------------

    async def _managed(self, cron_id: str, author: Author) -> CronView:
        current = await self.get(cron_id)
        if author.kind == "kin" and author.id not in (current.kin_id, current.created_by_kin_id):
            raise CronForbidden(
                "You may only manage the crons you created or that run on you; "
                f"cron {cron_id!r} is neither."
            )
        return current

    async def _write_update(self, current: CronView, record: dict[str, Any]) -> CronView:
        becomes_active = record.get("active", current.active) and not record.get(
            "needs_confirmation", current.needs_confirmation
        )

        def update() -> CronRecord | None:
            if becomes_active and not current.scheduled:
                self._check_active_limit(exclude=current.id)
            CronRecord.update(**record).where(CronRecord.id == current.id).execute()
            return CronRecord.get_or_none(CronRecord.id == current.id)

        row = await self._platform.db.write(update)
        if row is None:
            raise CronNotFound.of(current.id)
        view = CronView.of(row)
        self._platform.bus.emit(CronUpdated(cron_id=view.id, kin_id=view.kin_id))
        self._changed(view, "cron.updated")
        return view

    def _check_active_limit(self, exclude: str | None) -> None:
        """On the writer thread: refuse one more active cron past ``cron_max_active``."""
        limit = self._platform.settings.cron_max_active
        query = CronRecord.select().where(
            (CronRecord.active == True) & (CronRecord.needs_confirmation == False)  # noqa: E712
        )
        if exclude is not None:
            query = query.where(CronRecord.id != exclude)
        if query.count() >= limit:
            raise CronLimitReached(
                f"The platform already has {limit} active crons (cron_max_active): deactivate "
                "or delete one first."
            )

    async def _checked(self, fields: dict[str, Any], *, required: bool) -> dict[str, Any]:
        """Validate the given fields; returns them cleaned (``None`` timezone/model kept as
        "use the default")."""
        values: dict[str, Any] = {}
        for key in ("name", "schedule", "task_description"):
            if key not in fields or fields[key] is None:
                if required:
                    raise CronError(f"'{key}' is required.")
                continue
            text = fields[key]
            if not isinstance(text, str) or not text.strip():
                raise CronError(f"'{key}' must be a non-empty text.")
            values[key] = text.strip()
        if len(values.get("name", "")) > NAME_MAX:
            raise CronError(f"'name' is longer than {NAME_MAX} characters.")
        if len(values.get("task_description", "")) > DESCRIPTION_MAX:
            raise CronError(f"'task_description' is longer than {DESCRIPTION_MAX} characters.")
        try:
            if "schedule" in values:
                values["schedule"] = check_expression(values["schedule"])
            if "timezone" in fields:
                zone = _optional_text(fields["timezone"], "timezone")
                values["timezone"] = check_zone(zone) if zone else None
        except ScheduleError as exc:
            raise CronError(str(exc)) from None
        if fields.get("kin_id") is not None:
            kin_id = _optional_text(fields["kin_id"], "kin_id") or ""
            try:
                await self._platform.kins.get(kin_id)
            except KinNotFound:
                raise CronNotFound(f"There is no Kin with id {kin_id!r}.") from None
            values["kin_id"] = kin_id
        if "model" in fields:
            model = _optional_text(fields["model"], "model")
            if model:
                try:
                    await self._platform.providers.resolve_model(model)
                except ProviderError as exc:
                    raise CronError(f"Model {model!r}: {exc.message}") from None
            values["model"] = model or None
        return values

    def _changed(self, view: CronView, live_type: str) -> None:
        self.scheduler.cron_changed(view.id, view)
        self._platform.live.publish(live_type, {"cron": self.describe(view)})


def _optional_text(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise CronError(f"'{key}' must be a text.")
    return value.strip() or None


def _record_fields(values: dict[str, Any]) -> dict[str, Any]:
    """Checked values as the record's column names."""
    record = dict(values)
    if "kin_id" in record:
        record["kin"] = record.pop("kin_id")
    return record

"""Firing crons: one aiocron timer per scheduled cron, each firing a sub-Kin task.

Every scheduled time a cron reaches becomes one ``cron_run`` row, unique per (cron, time), so
a time is handled once even across restarts. A firing is skipped, and the skip recorded on
the cron, when the cron's previous run is still going (a cron never overlaps itself), when
``cron_max_concurrent_runs`` runs are going, or when an ``on_cron_trigger`` implementation
vetoes it. Otherwise the cron's Kin gets a ``cron`` task whose result lands in its session
as an informative message, without a turn.

Missed runs: at start-up, a cron whose latest scheduled time passed while the process was
down (after its last run, or after it became active) runs once for it with
``cron_missed_run_policy = "run_once"`` — once, however many times were missed — or has the
skip recorded with ``"skip"``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import tzinfo
from typing import TYPE_CHECKING

from hookspecs import HookVeto
from hookspecs.types import CronTrigger, KinRef
from kinbot_core.crons import run_records
from kinbot_core.crons.records import CronRecord, CronRunRecord
from kinbot_core.crons.run_records import MISSED_SKIP_REASON
from kinbot_core.crons.schedule import ClockedCron, previous_time, resolve_zone
from kinbot_core.crons.views import CronNotFound, CronView
from kinbot_core.events import Event
from kinbot_core.events.catalogue import (
    CronExecutionCompleted,
    CronSkipped,
    CronTriggered,
    KinDeleted,
)
from kinbot_core.kins.service import KinNotFound
from kinbot_core.tasks import TaskError, TaskSpec, TaskView

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)


class CronScheduler:
    """Arms and fires the platform's crons (``platform.crons.scheduler``)."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self._timers: dict[str, ClockedCron] = {}
        #: The Kin each armed cron runs on (its crons go when the Kin is deleted).
        self._kin_of: dict[str, str] = {}
        self._running = False
        self._unsubscribe_clock: Callable[[], None] | None = None
        platform.tasks.on_ended(self._task_ended)
        platform.bus.on(KinDeleted, self._kin_deleted)

    # -- life ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Settle runs left from before a restart, handle missed runs, arm every timer."""
        self._running = True
        await self._settle_interrupted_runs()
        now = self._platform.clock.time()
        crons = [cron for cron in await self._platform.crons.list() if cron.scheduled]
        for cron in crons:
            try:
                missed = self._missed_time(cron, now)
                self._arm(cron)
            except Exception:
                # A zone the system no longer knows, say: that cron only is left unscheduled.
                logger.exception("cron %s cannot be scheduled", cron.id)
                continue
            if missed is not None:
                if self._platform.settings.cron_missed_run_policy == "run_once":
                    self._spawn_fire(cron.id, missed, missed=True)
                else:
                    await self._record_missed_skip(cron, missed)
        self._unsubscribe_clock = self._platform.clock.subscribe(self._clock_set)

    def stop(self) -> None:
        """Drop every timer (runs in flight are the task service's to finish)."""
        self._running = False
        if self._unsubscribe_clock is not None:
            self._unsubscribe_clock()
            self._unsubscribe_clock = None
        for timer in self._timers.values():
            timer.stop()
        self._timers.clear()
        self._kin_of.clear()

    def cron_changed(self, cron_id: str, cron: CronView | None) -> None:
        """Re-arm (or drop) the timer of a cron that was created, changed or deleted."""
        self._drop(cron_id)
        if self._running and cron is not None and cron.scheduled:
            self._arm(cron)

    def next_run_at(self, cron_id: str) -> float | None:
        """The time the cron's timer waits for (``None`` when it is not scheduled)."""
        timer = self._timers.get(cron_id)
        return None if timer is None else timer.upcoming

    # -- timers --------------------------------------------------------------------------------

    def _zone(self, cron: CronView) -> tzinfo:
        return resolve_zone(cron.timezone, self._platform.settings.cron_timezone)

    def _arm(self, cron: CronView) -> None:
        cron_id = cron.id
        timer = ClockedCron(
            cron.schedule,
            lambda due: self._spawn_fire(cron_id, due),
            clock=self._platform.clock,
            tz=self._zone(cron),
            loop=asyncio.get_running_loop(),
        )
        timer.start()
        self._timers[cron_id] = timer
        self._kin_of[cron_id] = cron.kin_id

    def _drop(self, cron_id: str) -> None:
        timer = self._timers.pop(cron_id, None)
        self._kin_of.pop(cron_id, None)
        if timer is not None:
            timer.stop()

    def _kin_deleted(self, event: Event) -> None:
        """The database dropped the Kin's crons with it: drop their timers too."""
        if not isinstance(event, KinDeleted):
            return
        for cron_id in [c for c, kin_id in self._kin_of.items() if kin_id == event.kin_id]:
            self._drop(cron_id)
            self._platform.live.publish(
                "cron.deleted", {"cron_id": cron_id, "kin_id": event.kin_id}
            )

    def _clock_set(self) -> None:
        for timer in self._timers.values():
            timer.start()  # aiocron's start stops, then re-reads "now"

    def _spawn_fire(self, cron_id: str, due: float, *, missed: bool = False) -> None:
        self._platform.spawn(self.fire(cron_id, due, missed=missed), name=f"cron-{cron_id}")

    # -- firing --------------------------------------------------------------------------------

    async def fire(self, cron_id: str, due: float, *, missed: bool = False) -> str | None:
        """Handle the scheduled time ``due`` of a cron: run it or record why not. Returns
        the spawned task's id (``None``: not run). A time already handled does nothing."""
        platform = self._platform
        try:
            cron = await platform.crons.get(cron_id)
        except CronNotFound:
            return None
        if not cron.scheduled:
            return None
        claim = await platform.db.write(
            run_records.claim,
            cron.id,
            due,
            missed,
            platform.clock.time(),
            platform.settings.cron_max_concurrent_runs,
        )
        if claim.run_id is None:
            return None  # already handled
        if claim.skip_reason is not None:
            self._skipped(cron, claim.skip_reason)
            return None
        try:
            kin = await platform.kins.get(cron.kin_id)
        except KinNotFound:
            await self._run_failed(cron, claim.run_id, "The cron's Kin no longer exists.")
            return None
        try:
            await platform.hooks.call(
                "on_cron_trigger",
                kin=KinRef(kin.id, kin.name, kin.model),
                cron=CronTrigger(cron.id, kin.id, cron.name, cron.schedule, cron.task_description),
            )
        except HookVeto as veto:
            reason = f"Vetoed by {veto.plugin or 'a plugin'}: {veto.reason}"
            await platform.db.write(
                run_records.skip_run, claim.run_id, cron.id, reason, platform.clock.time()
            )
            self._skipped(cron, reason)
            return None
        platform.bus.emit(CronTriggered(cron_id=cron.id, kin_id=kin.id))
        platform.live.publish(
            "cron.triggered", {"cron_id": cron.id, "kin_id": kin.id, "scheduled_for": due}
        )
        try:
            task = await platform.tasks.spawn(
                TaskSpec(
                    parent_kin_id=kin.id,
                    kin_id=kin.id,
                    description=cron.task_description,
                    mode="cron",
                    model=cron.model,
                    title=cron.name,
                    cron_id=cron.id,
                )
            )
        except TaskError as exc:
            await self._run_failed(cron, claim.run_id, exc.message)
            return None
        await platform.db.write(
            run_records.started, claim.run_id, cron.id, task.id, platform.clock.time()
        )
        await self._publish(cron.id)
        return task.id

    async def _run_failed(self, cron: CronView, run_id: int, error: str) -> None:
        now = self._platform.clock.time()

        def fail() -> None:
            CronRunRecord.update(status="failed", error=error, ended_at=now).where(
                CronRunRecord.id == run_id
            ).execute()
            CronRecord.update(last_run_at=now, last_run_status="failed").where(
                CronRecord.id == cron.id
            ).execute()

        await self._platform.db.write(fail)
        logger.warning("cron %s could not run: %s", cron.id, error)
        self._platform.bus.emit(
            CronExecutionCompleted(cron_id=cron.id, task_id="", status="failed")
        )
        self._platform.live.publish(
            "cron.execution.completed",
            {
                "cron_id": cron.id,
                "kin_id": cron.kin_id,
                "task_id": None,
                "status": "failed",
                "error": error,
            },
        )
        await self._publish(cron.id)

    def _skipped(self, cron: CronView, reason: str) -> None:
        logger.info("cron %s skipped: %s", cron.id, reason)
        self._platform.bus.emit(CronSkipped(cron_id=cron.id, kin_id=cron.kin_id, reason=reason))
        self._platform.live.publish(
            "cron.skipped", {"cron_id": cron.id, "kin_id": cron.kin_id, "reason": reason}
        )
        self._platform.spawn(self._publish(cron.id), name=f"cron-publish-{cron.id}")

    async def _publish(self, cron_id: str) -> None:
        try:
            cron = await self._platform.crons.get(cron_id)
        except CronNotFound:
            return
        self._platform.live.publish(
            "cron.updated", {"cron": cron.to_dict(self.next_run_at(cron_id))}
        )

    # -- ends of runs --------------------------------------------------------------------------

    async def _task_ended(self, task: TaskView) -> None:
        """A task ended: if it was a cron's run, record how, and tell."""
        if task.cron_id is None:
            return
        cron_id, status = task.cron_id, task.status
        finished = await self._platform.db.write(
            run_records.finish_run,
            cron_id,
            task.id,
            status,
            task.error,
            self._platform.clock.time(),
        )
        if not finished:
            return
        self._platform.bus.emit(
            CronExecutionCompleted(cron_id=cron_id, task_id=task.id, status=status)
        )
        self._platform.live.publish(
            "cron.execution.completed",
            {
                "cron_id": cron_id,
                "kin_id": task.parent_kin_id,
                "task_id": task.id,
                "status": status,
            },
        )
        await self._publish(cron_id)

    # -- restarts ------------------------------------------------------------------------------

    async def _settle_interrupted_runs(self) -> None:
        """Runs left going by the last process: one whose task has ended takes its state;
        one whose task was never spawned failed. Running tasks finish as usual."""
        await self._platform.db.write(run_records.settle_interrupted, self._platform.clock.time())

    def _missed_time(self, cron: CronView, now: float) -> float | None:
        """The latest scheduled time that passed since the cron last ran (or became active),
        if one did."""
        anchor = max(cron.last_scheduled_for or 0.0, cron.activated_at or cron.created_at)
        latest = previous_time(cron.schedule, self._zone(cron), now)
        return latest if latest > anchor else None

    async def _record_missed_skip(self, cron: CronView, due: float) -> None:
        now = self._platform.clock.time()
        if await self._platform.db.write(run_records.record_missed_skip, cron.id, due, now):
            self._skipped(cron, MISSED_SKIP_REASON)

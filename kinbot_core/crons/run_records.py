"""The ``cron_run`` rows of the scheduler: taking a scheduled time, recording a run's start,
skip and end, and settling what a stopped process left going. Each runs on the database's
writer thread (``db.write``) and updates the cron's own "last run" fields with the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinbot_core.crons.records import CronRecord, CronRunRecord
from kinbot_core.db.models import TaskRecord
from kinbot_core.tasks import ENDED

#: Run states that hold a slot (the run's task has not ended).
GOING = ("starting", "running")
MISSED_SKIP_REASON = (
    "The scheduled time passed while KinBot was not running (cron_missed_run_policy = skip)."
)
INTERRUPTED = "KinBot stopped before the cron's sub-Kin was spawned."


@dataclass(frozen=True)
class Claim:
    """What the database said about one scheduled time of a cron."""

    run_id: int | None
    skip_reason: str | None = None


def claim(cron_id: str, due: float, missed: bool, now: float, limit: int) -> Claim:
    """Take the scheduled time, or say why it is skipped (the cron's previous run still
    going, or ``limit`` runs going)."""
    if CronRunRecord.get_or_none(
        (CronRunRecord.cron == cron_id) & (CronRunRecord.scheduled_for == due)
    ):
        return Claim(None)
    going = CronRunRecord.select().where(CronRunRecord.status.in_(GOING))
    reason = None
    if going.where(CronRunRecord.cron == cron_id).exists():
        reason = "Its previous run was still going."
    elif going.count() >= limit:
        reason = f"{limit} cron runs were already going (cron_max_concurrent_runs)."
    run = CronRunRecord.create(
        cron=cron_id,
        scheduled_for=due,
        status="skipped" if reason else "starting",
        skip_reason=reason,
        missed=missed,
        started_at=now,
        ended_at=now if reason else None,
    )
    fields: dict[str, Any] = {"last_scheduled_for": due}
    if reason:
        fields.update(last_skip_at=now, last_skip_reason=reason)
    CronRecord.update(**fields).where(CronRecord.id == cron_id).execute()
    return Claim(run.id, reason)


def skip_run(run_id: int, cron_id: str, reason: str, now: float) -> None:
    """A claimed run skipped after all (a plugin vetoed it)."""
    CronRunRecord.update(status="skipped", skip_reason=reason, ended_at=now).where(
        CronRunRecord.id == run_id
    ).execute()
    CronRecord.update(last_skip_at=now, last_skip_reason=reason).where(
        CronRecord.id == cron_id
    ).execute()


def started(run_id: int, cron_id: str, task_id: str, now: float) -> None:
    """A run's task was spawned."""
    # The task may already have ended (its listener then set the run's final state).
    CronRunRecord.update(status="running", task_id=task_id).where(
        (CronRunRecord.id == run_id) & (CronRunRecord.status == "starting")
    ).execute()
    CronRunRecord.update(task_id=task_id).where(CronRunRecord.id == run_id).execute()
    ended = CronRunRecord.get_by_id(run_id).status
    CronRecord.update(
        last_run_at=now,
        last_task_id=task_id,
        last_run_status="running" if ended == "running" else ended,
    ).where(CronRecord.id == cron_id).execute()


def finish_run(cron_id: str, task_id: str, status: str, error: str | None, now: float) -> bool:
    """A run's task ended with ``status``; false when no going run of the cron was it."""
    # Before its id was stored, the run is the cron's one "starting" run.
    updated = (
        CronRunRecord.update(status=status, task_id=task_id, error=error, ended_at=now)
        .where(
            (CronRunRecord.cron == cron_id)
            & CronRunRecord.status.in_(GOING)
            & ((CronRunRecord.task_id == task_id) | CronRunRecord.task_id.is_null())
        )
        .execute()
    )
    if updated:
        CronRecord.update(last_run_status=status, last_task_id=task_id).where(
            CronRecord.id == cron_id
        ).execute()
    return bool(updated)


def settle_interrupted(now: float) -> None:
    """Runs left going by the last process: one whose task has ended takes its state; one
    whose task was never spawned failed. Running tasks finish as usual."""
    for run in CronRunRecord.select().where(CronRunRecord.status.in_(GOING)):
        task = TaskRecord.get_or_none(TaskRecord.id == run.task_id) if run.task_id else None
        if task is None:
            run.status, run.error, run.ended_at = "failed", INTERRUPTED, now
        elif task.status in ENDED:
            run.status, run.error, run.ended_at = task.status, task.error, now
        else:
            continue
        run.save()
        latest = CronRecord.id == run.__data__["cron"]
        if run.task_id is not None:
            latest &= CronRecord.last_task_id == run.task_id
        CronRecord.update(last_run_status=run.status).where(latest).execute()


def record_missed_skip(cron_id: str, due: float, now: float) -> bool:
    """The time ``due``, missed while KinBot was down, recorded as skipped (policy "skip");
    false when that time was already handled."""
    if CronRunRecord.get_or_none(
        (CronRunRecord.cron == cron_id) & (CronRunRecord.scheduled_for == due)
    ):
        return False
    CronRunRecord.create(
        cron=cron_id,
        scheduled_for=due,
        status="skipped",
        skip_reason=MISSED_SKIP_REASON,
        missed=True,
        started_at=now,
        ended_at=now,
    )
    CronRecord.update(
        last_scheduled_for=due, last_skip_at=now, last_skip_reason=MISSED_SKIP_REASON
    ).where(CronRecord.id == cron_id).execute()
    return True

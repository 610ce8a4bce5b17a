"""Pruning ended sub-Kins: every task and every cron run leaves a hidden Kin row and its
session behind; after ``sub_kin_retention_days`` they are deleted.

What is deleted: the sub-Kin's hidden Kin row, and through the database's cascades its
messages (their full-text and embedding entries go with them, by trigger), its queue, the
tasks it spawned in turn (their own sub-Kins are pruned with it) and every other row that
belongs to it. What stays: the task row itself (title, status, result), which the parent's
task list and the cron's history show, and the parent's session, where the result and the
reports were delivered as messages of the parent. A task that has not ended, or one of whose
descendants has not, is never touched; nor is a Kin row without a task (a Kin people made).

The job runs in the background, first a while after start-up (the server answers first),
then every ``PRUNE_INTERVAL_SECONDS``; ``sub_kin_retention_days = 0`` keeps everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from kinbot_core.db.models import KinRecord, TaskRecord
from kinbot_core.tasks.records import ENDED

logger = logging.getLogger(__name__)

#: How long after start-up the first pruning runs: start-up work comes first.
FIRST_RUN_DELAY_SECONDS = 300.0
#: How often ended sub-Kins are looked for afterwards.
PRUNE_INTERVAL_SECONDS = 6 * 3600.0
#: Ended tasks whose sub-Kins are deleted in one write transaction (others wait for the next
#: batch, so that a long backlog never holds the database's write lock for long).
BATCH = 100


def _sub_kin_tree(session_kin_id: str) -> list[str] | None:
    """The sub-Kin's hidden row and those of the tasks it spawned, recursively; ``None``
    when one of those tasks has not ended."""
    tree = [session_kin_id]
    frontier = [session_kin_id]
    while frontier:
        children = list(
            TaskRecord.select(TaskRecord.session_kin, TaskRecord.status).where(
                TaskRecord.parent_kin.in_(frontier)
            )
        )
        if any(child.status not in ENDED for child in children):
            return None
        frontier = [
            child.__data__["session_kin"]
            for child in children
            if child.__data__.get("session_kin") and child.__data__["session_kin"] not in tree
        ]
        tree.extend(frontier)
    return tree


def prune_ended_sub_kins(
    cutoff: float, *, after: float = 0.0, batch: int = BATCH
) -> tuple[list[str], float | None]:
    """Delete the sub-Kins of tasks that ended before ``cutoff`` (a UNIX time), from those
    that ended at ``after`` or later, in one transaction of at most ``batch`` tasks. Returns
    the ids of the Kin rows deleted, and where the next batch starts (``None``: no more).
    Runs on the database's writer (``Database.write``)."""
    tasks = list(
        TaskRecord.select(TaskRecord.id, TaskRecord.session_kin, TaskRecord.ended_at)
        .where(
            TaskRecord.status.in_(ENDED)
            & TaskRecord.ended_at.is_null(False)
            & (TaskRecord.ended_at >= after)
            & (TaskRecord.ended_at < cutoff)
            & TaskRecord.session_kin.is_null(False)
        )
        .order_by(TaskRecord.ended_at)
        .limit(batch)
    )
    pruned: list[str] = []
    for task in tasks:
        session_kin_id = task.__data__["session_kin"]
        if session_kin_id in pruned:
            continue
        tree = _sub_kin_tree(session_kin_id)
        if tree is None:
            continue
        # Only hidden rows: a Kin people made is never a task's session.
        KinRecord.delete().where(
            KinRecord.id.in_(tree) & KinRecord.task_id.is_null(False)
        ).execute()
        pruned.extend(tree)
    last: float | None = tasks[-1].ended_at if len(tasks) == batch else None
    # Tasks skipped at the same instant as the last one would come back forever: move on.
    return pruned, (None if last is None or (last == after and not pruned) else last)


class SubKinPruning:
    """Runs ``prune_ended_sub_kins`` for a platform, in the background while it runs."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform
        self._loop: asyncio.Task[None] | None = None

    async def prune_now(self, now: float | None = None) -> list[str]:
        """Delete the sub-Kins of the tasks that ended more than ``sub_kin_retention_days``
        before ``now`` (default: the present); returns the ids of the Kin rows deleted."""
        days = self._platform.settings.sub_kin_retention_days
        if days <= 0:
            return []
        cutoff = (time.time() if now is None else now) - days * 86400
        pruned: list[str] = []
        after: float | None = 0.0
        while after is not None:
            batch, after = await self._platform.db.write(prune_ended_sub_kins, cutoff, after=after)
            pruned.extend(batch)
        if pruned:
            logger.info("pruned %d ended sub-Kins older than %s days", len(pruned), days)
        return pruned

    def start(self) -> None:
        """Start the periodic pruning."""
        self._loop = asyncio.get_running_loop().create_task(
            self._periodically(), name="sub-kin pruning"
        )

    async def stop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop

    async def _periodically(self) -> None:
        await asyncio.sleep(FIRST_RUN_DELAY_SECONDS)
        while True:
            try:
                await self.prune_now()
            except Exception:  # the job must outlive a failing database
                logger.exception("pruning ended sub-Kins failed; trying again later")
            await asyncio.sleep(PRUNE_INTERVAL_SECONDS)

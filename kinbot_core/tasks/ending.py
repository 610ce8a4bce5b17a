"""How a task ends, once: recorded, its sub-Kin's queue and sub-tasks dropped, its parent
told (a queued message or a note, with what the UI shows of it), listeners called."""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import TaskRecord
from kinbot_core.events.catalogue import TaskCompleted, TaskFailed, TaskStatusChanged
from kinbot_core.kins.service import KinNotFound
from kinbot_core.tasks.records import ENDED, PARENT_ENDED, TaskView

if TYPE_CHECKING:
    import builtins

    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: Told once of every task that ended (completed, failed or cancelled).
EndListener = Callable[[TaskView], Awaitable[None] | None]


class TaskEnding:
    """The ending half of ``TaskService``, which mixes it in and holds what it uses."""

    _platform: Platform
    _listeners: builtins.list[EndListener]

    if TYPE_CHECKING:

        async def get(self, task_id: str) -> TaskView: ...

        async def of_session(self, session_kin_id: str) -> TaskView | None: ...

        async def list(
            self,
            *,
            parent_kin_id: str | None = None,
            active_only: bool = False,
        ) -> builtins.list[TaskView]: ...

        async def start_pending(self) -> builtins.list[TaskView]: ...

    async def _end(
        self,
        task_id: str,
        status: str,
        *,
        result: str | None = None,
        error: str | None = None,
        error_code: str | None = None,
        error_detail: str | None = None,
        delivered: bool = False,
    ) -> TaskView:
        """End a task once: record it, drop its sub-Kin's queue, cancel its sub-tasks, stop
        a running turn (when cancelled), tell the parent, free the slot. A failed or cancelled
        task says why in English (``error``, for models) and as a code the UI words
        (``error_code``, with someone's own words as ``error_detail``)."""
        platform = self._platform

        def close() -> tuple[str, TaskRecord] | None:
            row = TaskRecord.get_or_none(TaskRecord.id == task_id)
            if row is None or row.status in ENDED:
                return None
            previous = row.status
            row.status = status
            row.result = result if status == "completed" else row.result
            row.error = error
            row.error_code = error_code if status != "completed" else None
            row.error_detail = error_detail if status != "completed" else None
            row.awaiting_input = False
            row.ended_at = time.time()
            row.save()
            return previous, row

        closed = await platform.db.write(close)
        if closed is None:
            return await self.get(task_id)
        previous, row = closed
        task = TaskView.of(row)
        if task.session_kin_id:
            await platform.kins.cancel_queued(task.session_kin_id)
            for child in await self.list(parent_kin_id=task.session_kin_id, active_only=True):
                await self._end(
                    child.id, "cancelled", error="Its parent task ended.", error_code=PARENT_ENDED
                )
            if status == "cancelled":
                platform.workers.stop_turn(task.session_kin_id)
            platform.workers.retire(task.session_kin_id)
        await self._tell_parent_of_end(task, delivered)
        self._changed(task, previous)
        if status == "completed":
            platform.bus.emit(TaskCompleted(task_id=task.id))
        elif status == "failed":
            platform.bus.emit(TaskFailed(task_id=task.id, error=error or ""))
        for listener in self._listeners:
            try:
                outcome = listener(task)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("a task-end listener failed for %s", task.id)
        await self.start_pending()
        return task

    async def _tell_parent_of_end(self, task: TaskView, delivered: bool) -> None:
        """The parent learns how the task ended: the model reads the ``content``, the UI the
        meta (``end_meta``)."""
        facts = await self.end_meta(task)
        if task.status == "completed" and delivered:
            # The result already reached the parent as a report: a note, without a turn.
            await self._deliver(
                task, f"Task {task.id} completed.", "task_result", queue=False, meta=facts
            )
        elif task.status == "completed":
            content = f"{_named(task)} completed. Result:\n{task.result}"
            await self._to_parent(task, content, "task_result", meta=facts)
        elif task.status == "failed":
            content = f"{_named(task)} failed: {task.error}"
            await self._to_parent(task, content, "task_failed", meta=facts)
        else:
            content = f"Task {task.id} was cancelled. {task.error}"
            await self._deliver(task, content, "task_cancelled", queue=False, meta=facts)

    async def end_meta(self, task: TaskView) -> dict[str, Any]:
        """What the UI shows of an ended task (the ``meta`` of its end message): its title,
        the name of the Kin that did it and whether that is the parent itself (``spawn_self``,
        a cron), its result or error (vault values masked), the code the UI words the error
        from with someone's own words about it (``error_code``, ``error_detail``, as on the
        task), and its cron's name."""
        platform = self._platform
        try:
            worker_name = (await platform.kins.get(task.kin_id)).name
        except KinNotFound:
            worker_name = ""
        parent_task = await self.of_session(task.parent_kin_id)
        parent_identity = parent_task.kin_id if parent_task is not None else task.parent_kin_id
        cron_name = None
        if task.cron_id is not None:
            from kinbot_core.crons import CronNotFound  # crons spawn tasks: imported late

            try:
                cron_name = (await platform.crons.get(task.cron_id)).name
            except CronNotFound:
                cron_name = task.title  # a deleted cron's runs are titled with its name
        mask = platform.vault.masker().mask
        ended_badly = task.status != "completed"
        return {
            "task_title": task.title,
            "worker_name": worker_name,
            "spawned_self": task.kin_id == parent_identity,
            "result": mask(task.result) if task.status == "completed" and task.result else None,
            "error": mask(task.error) if ended_badly and task.error else None,
            "error_code": task.error_code if ended_badly else None,
            "error_detail": mask(task.error_detail) if ended_badly and task.error_detail else None,
            "cron_name": cron_name,
        }

    # -- delivery ------------------------------------------------------------------------------

    async def _to_parent(
        self, task: TaskView, content: str, kind: str, *, meta: dict[str, Any] | None = None
    ) -> None:
        await self._deliver(task, content, kind, queue=task.mode == "await", meta=meta)

    async def _deliver(
        self,
        task: TaskView,
        content: str,
        kind: str,
        *,
        queue: bool,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Into the parent's session: queued for a turn, or (``queue`` false, or the parent
        is a sub-Kin whose task has ended) added as an informative message without one.
        ``meta``: what the UI shows of it (``end_meta``)."""
        kins = self._platform.kins
        source = "cron" if task.mode == "cron" else "task"
        parent = await self.of_session(task.parent_kin_id)
        if parent is not None and parent.ended:
            queue = False
        try:
            if queue:
                await kins.enqueue(
                    task.parent_kin_id,
                    content,
                    source=source,
                    sender_id=task.id,
                    sender_name=task.title,
                    kin_message_type=kind,
                    task_id=task.id,
                    meta=meta,
                )
            else:
                await kins.add_message(
                    task.parent_kin_id,
                    role="user",
                    source=source,
                    sender_id=task.id,
                    sender_name=task.title,
                    content=content,
                    kin_message_type=kind,
                    task_id=task.id,
                    status="done",
                    meta=meta,
                )
        except KinNotFound:
            logger.info("the parent of task %s is gone", task.id)

    # -- publishing ----------------------------------------------------------------------------

    def _changed(self, task: TaskView, previous: str) -> None:
        self._platform.bus.emit(
            TaskStatusChanged(task_id=task.id, previous=previous, status=task.status)
        )
        self._publish(task)

    def _publish(self, task: TaskView) -> None:
        self._platform.live.publish("task.updated", {"task": task.to_dict()})


def _named(task: TaskView) -> str:
    """How a result names its task: a task, or a cron's scheduled run."""
    return f"Scheduled run (task {task.id})" if task.mode == "cron" else f"Task {task.id}"

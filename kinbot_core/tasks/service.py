"""Sub-Kin tasks: spawn a sub-Kin, run its lifecycle, carry its questions and results to the
parent, limit depth and concurrency, recover after a restart.

A sub-Kin runs as a hidden Kin row (``kin.task_id`` set) with its own session and queue, so
it takes turns exactly like a Kin. Nobody blocks: the task's first message, a parent's
answer, a child's result are queued messages that each start one turn. When a sub-Kin's turn
ends, the task completes unless the sub-Kin is waiting for something (an answer from its
parent, a sub-task of its own, a reply from another Kin).
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import time
import uuid
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from hookspecs import HookVeto
from hookspecs.types import KinRef, TaskSpawn
from kinbot_core.db.models import KinRecord, MessageRecord, TaskRecord
from kinbot_core.events.catalogue import (
    TaskSpawned,
)
from kinbot_core.kins.service import KinNotFound
from kinbot_core.tasks.conversation import TaskConversation, sub_kin_waits
from kinbot_core.tasks.ending import EndListener
from kinbot_core.tasks.records import (
    ENDED,
    MODES,
    RESTARTED,
    TaskError,
    TaskNotFound,
    TaskSpec,
    TaskView,
    title_of,
)

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

RESTART_FAILURE = "KinBot restarted while the task was running and its work could not resume."


class TaskService(TaskConversation):
    """Every sub-Kin task of the platform (``platform.tasks``)."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self._listeners: list[EndListener] = []
        self._start_lock = asyncio.Lock()

    def on_ended(self, listener: EndListener) -> None:
        """Call ``listener(task)`` once for each task that ends."""
        self._listeners.append(listener)

    # -- reading -------------------------------------------------------------------------------

    async def get(self, task_id: str) -> TaskView:
        """One task, or ``TaskNotFound``."""
        row = await self._platform.db.read(lambda: TaskRecord.get_or_none(TaskRecord.id == task_id))
        if row is None:
            raise TaskNotFound.of(task_id)
        return TaskView.of(row)

    async def of_session(self, session_kin_id: str) -> TaskView | None:
        """The task a sub-Kin's hidden Kin row works on."""
        row = await self._platform.db.read(
            lambda: TaskRecord.get_or_none(TaskRecord.session_kin == session_kin_id)
        )
        return None if row is None else TaskView.of(row)

    async def running_sessions(self) -> builtins.list[str]:
        """The hidden Kin rows of the sub-Kins whose task is in progress."""

        def select() -> builtins.list[str]:
            query = TaskRecord.select(TaskRecord.session_kin).where(
                (TaskRecord.status == "in_progress") & TaskRecord.session_kin.is_null(False)
            )
            return [row.__data__["session_kin"] for row in query]

        return await self._platform.db.read(select)

    async def list(
        self,
        *,
        parent_kin_id: str | None = None,
        status: str | None = None,
        active_only: bool = False,
        limit: int = 100,
        hidden_kins: Collection[str] = (),
    ) -> list[TaskView]:
        """Tasks, newest first: of one parent, in one state, or still running; none of the
        Kins in ``hidden_kins`` (those the person asking may not use), before the limit."""

        def select() -> list[TaskRecord]:
            query = TaskRecord.select()
            if hidden_kins:
                hidden = list(hidden_kins)
                query = query.where(
                    TaskRecord.parent_kin.not_in(hidden) & TaskRecord.kin.not_in(hidden)
                )
            if parent_kin_id is not None:
                query = query.where(TaskRecord.parent_kin == parent_kin_id)
            if status is not None:
                query = query.where(TaskRecord.status == status)
            if active_only:
                query = query.where(TaskRecord.status.not_in(ENDED))
            return list(query.order_by(TaskRecord.created_at.desc()).limit(limit))

        return [TaskView.of(row) for row in await self._platform.db.read(select)]

    # -- spawning ------------------------------------------------------------------------------

    async def spawn(self, spec: TaskSpec) -> TaskView:
        """Create a task and its sub-Kin; it starts at once if a slot is free, else waits as
        pending. Raises ``TaskError`` (the depth limit, an unknown Kin or model, a veto)."""
        platform = self._platform
        if spec.mode not in MODES:
            raise TaskError(
                f"mode must be one of {', '.join(MODES)}, not {spec.mode!r}.",
                code="task_mode_invalid",
                params={"mode": spec.mode},
            )
        description = spec.description.strip()
        if not description:
            raise TaskError("The task description is empty.", code="task_description_empty")
        try:
            parent = await platform.kins.get(spec.parent_kin_id, include_tasks=True)
            identity = await platform.kins.get(spec.kin_id)
        except KinNotFound as exc:
            raise TaskError(
                "There is no such Kin; list_kins gives their ids.", code="task_kin_unknown"
            ) from exc
        parent_task = await self.of_session(parent.id) if parent.task_id else None
        if parent_task is not None and parent_task.ended:
            raise TaskError(
                "This task has ended: it cannot spawn sub-Kins any more.",
                code="task_ended",
                params={"state": parent_task.status},
            )
        depth = (parent_task.depth if parent_task else 0) + 1
        limit = platform.settings.task_max_depth
        if depth > limit:
            raise TaskError(
                f"Refused: sub-Kins may only go {limit} levels deep and this one would be level "
                f"{depth}. Do the work yourself instead.",
                code="task_too_deep",
                params={"limit": limit, "depth": depth},
            )
        model = (spec.model or "").strip() or identity.model
        try:
            await platform.providers.resolve_model(model)
        except Exception as exc:
            raise TaskError(
                f"The model {model!r} cannot be used: {exc}",
                code="task_model_unusable",
                params={"model": model},
            ) from exc
        task_id = f"task_{uuid.uuid4().hex}"
        title = (spec.title or "").strip() or title_of(description)
        spawn = TaskSpawn(task_id, parent.id, identity.id, description, spec.mode, depth, model)
        try:
            await platform.hooks.call(
                "on_task_spawn",
                kin=KinRef(parent.id, parent.name, parent.model, parent.task_id),
                task=spawn,
            )
        except HookVeto as veto:
            raise TaskError(
                f"Refused ({veto.plugin}): {veto.reason}",
                code="task_vetoed",
                params={"plugin": veto.plugin or ""},
            ) from veto
        now = time.time()

        def insert() -> TaskRecord:
            session_id = uuid.uuid4().hex
            source = KinRecord.get_by_id(identity.id)
            TaskRecord.create(
                id=task_id,
                parent_kin=parent.id,
                kin=identity.id,
                session_kin=None,
                parent_task=parent_task.id if parent_task else None,
                cron_id=spec.cron_id,
                title=title,
                description=description,
                mode=spec.mode,
                model=model,
                status="pending",
                depth=depth,
                created_at=now,
            )
            KinRecord.create(
                id=session_id,
                name=source.name,
                role=source.role,
                avatar_path=source.avatar_path,
                character=source.character,
                expertise=source.expertise,
                model=model,
                tools=source.tools,
                workspace=source.workspace,
                task_id=task_id,
                created_at=now,
                updated_at=now,
            )
            TaskRecord.update(session_kin=session_id).where(TaskRecord.id == task_id).execute()
            return TaskRecord.get_by_id(task_id)

        view = TaskView.of(await platform.db.write(insert))
        platform.bus.emit(
            TaskSpawned(
                task_id=view.id, parent_kin_id=parent.id, kin_id=identity.id, mode=spec.mode
            )
        )
        self._publish(view)
        await self.start_pending()
        return await self.get(view.id)

    async def start_pending(self) -> builtins.list[TaskView]:
        """Start the oldest pending tasks while fewer than ``task_max_concurrent`` are in
        progress: each sub-Kin gets its task as its first message."""
        limit = self._platform.settings.task_max_concurrent
        async with self._start_lock:

            def claim() -> list[TaskRecord]:
                running = TaskRecord.select().where(TaskRecord.status == "in_progress").count()
                free = limit - running
                if free <= 0:
                    return []
                waiting = (
                    TaskRecord.select(TaskRecord.id)
                    .where(TaskRecord.status == "pending")
                    .order_by(TaskRecord.created_at)
                    .limit(free)
                )
                return list(
                    TaskRecord.update(status="in_progress", started_at=time.time())
                    .where(TaskRecord.id.in_(waiting))
                    .returning(TaskRecord)
                    .execute()
                )

            started = [TaskView.of(row) for row in await self._platform.db.write(claim)]
        for task in sorted(started, key=lambda t: t.created_at):
            self._changed(task, "pending")
            await self._brief(task)
        return started

    async def _brief(self, task: TaskView) -> None:
        """Queue the task for the sub-Kin, from its parent: the turn that starts the work."""
        parent = await self._platform.kins.get(task.parent_kin_id, include_tasks=True)
        assert task.session_kin_id is not None
        await self._platform.kins.enqueue(
            task.session_kin_id,
            task.description,
            source="kin",
            sender_id=parent.id,
            sender_name=parent.name,
            task_id=task.id,
        )

    async def recover(self) -> None:
        """After a restart, after the Kins' own recovery and before any turn runs: a task
        whose sub-Kin still has work queued, waits for an answer or a sub-task goes on; one
        that was never briefed is briefed; any other running task fails with the reason.
        Then free slots are filled."""
        running = await self.list(status="in_progress", limit=10_000)
        states = [(task, await self._platform.db.read(_recovery_state, task)) for task in running]
        for task, state in states:
            if state == "resumes":
                continue
            if state == "unbriefed":
                await self._brief(task)
            else:
                await self._end(task.id, "failed", error=RESTART_FAILURE, error_code=RESTARTED)
        await self.start_pending()


def _recovery_state(task: TaskView) -> str:
    """``resumes``, ``unbriefed`` (it never got its first message) or ``lost``."""
    session = task.session_kin_id
    if session is None:
        return "lost"
    if sub_kin_waits(TaskRecord.get_by_id(task.id), session):
        return "resumes"
    if not MessageRecord.select().where(MessageRecord.kin == session).exists():
        return "unbriefed"
    return "lost"


def describe(task: TaskView) -> dict[str, Any]:
    """A task as ``list_tasks`` shows it to a model."""
    described: dict[str, Any] = {
        "task_id": task.id,
        "title": task.title,
        "mode": task.mode,
        "status": task.status,
        "waiting_for_your_answer": task.awaiting_input,
    }
    if task.error:
        described["error"] = task.error
    return described

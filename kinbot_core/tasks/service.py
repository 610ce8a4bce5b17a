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
import inspect
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any

from hookspecs import HookVeto
from hookspecs.types import KinRef, TaskSpawn
from kinbot_core.db.models import KinRecord, KinRequestRecord, MessageRecord, TaskRecord
from kinbot_core.events.catalogue import (
    TaskCompleted,
    TaskFailed,
    TaskSpawned,
    TaskStatusChanged,
)
from kinbot_core.kins import meta as turn_meta
from kinbot_core.kins.service import KinNotFound
from kinbot_core.tasks.records import (
    CANCELLED_BY_PARENT,
    CANCELLED_BY_USER,
    ENDED,
    GAVE_UP,
    MODES,
    NO_RESULT,
    PARENT_ENDED,
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

#: Told once of every task that ended (completed, failed or cancelled).
EndListener = Callable[[TaskView], Awaitable[None] | None]
RESTART_FAILURE = "KinBot restarted while the task was running and its work could not resume."


class TaskService:
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
            raise TaskNotFound(f"There is no task {task_id!r}.")
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

    # -- the sub-Kin's side --------------------------------------------------------------------

    async def running_task(self, session_kin_id: str) -> TaskView:
        """The task of the sub-Kin calling a tool; ``TaskError`` once it has ended."""
        task = await self.of_session(session_kin_id)
        if task is None:
            raise TaskError(
                "Only a sub-Kin working on a task can do this.", code="task_sub_kin_only"
            )
        if task.ended:
            raise TaskError(
                f"Your task has already ended ({task.status}).",
                code="task_ended",
                params={"state": task.status},
            )
        return task

    async def report(self, session_kin_id: str, message: str, *, turn: int | None) -> TaskView:
        """Send the parent a report (an intermediate or the final result), as the task's
        mode says: queued for a turn (``await``) or added to its session (``async``, cron)."""
        task = await self.running_task(session_kin_id)
        if not message.strip():
            raise TaskError("The report is empty.", code="task_report_empty")
        await self._platform.db.write(
            lambda: (
                TaskRecord.update(result=message, reported_in_turn=turn)
                .where(TaskRecord.id == task.id)
                .execute()
            )
        )
        await self._to_parent(task, f"Report from task {task.id}:\n{message}", "task_report")
        return task

    async def request_input(self, session_kin_id: str, question: str) -> tuple[TaskView, int]:
        """Ask the parent a question: it is queued in the parent's session (a turn), and the
        task waits for ``respond``. Returns the task and how many questions are left."""
        task = await self.running_task(session_kin_id)
        if not question.strip():
            raise TaskError("The question is empty.", code="task_question_empty")
        limit = self._platform.settings.task_max_request_input
        if task.awaiting_input:
            raise TaskError(
                "You already asked a question: end your turn and wait for the answer.",
                code="task_question_pending",
            )

        def count() -> int:
            return int(
                TaskRecord.update(input_requests=TaskRecord.input_requests + 1, awaiting_input=True)
                .where((TaskRecord.id == task.id) & (TaskRecord.input_requests < limit))
                .execute()
            )

        if not await self._platform.db.write(count):
            raise TaskError(
                f"Refused: you have asked your parent {limit} questions, the most a task may. "
                "Go on with what you know, or give up with update_task_status('failed', reason).",
                code="task_questions_used_up",
                params={"limit": limit},
            )
        content = (
            f"Task {task.id} asks you: {question}\n"
            f"Answer it with respond_to_task(task_id={task.id!r}, answer)."
        )
        await self._deliver(task, content, "task_input", queue=True)
        task = await self.get(task.id)
        self._publish(task)
        return task, limit - task.input_requests

    async def set_status(
        self, session_kin_id: str, status: str, message: str | None, *, turn: int | None
    ) -> TaskView:
        """The sub-Kin sets its task's state: ``in_progress`` (nothing changes),
        ``completed`` (with its result, or the one it reported in this turn, or else its
        final answer when the turn ends) or ``failed`` (with the reason)."""
        task = await self.running_task(session_kin_id)
        if status == "in_progress":
            return task
        if status == "failed":
            reason = (message or "").strip()
            return await self._end(
                task.id,
                "failed",
                error=reason or "The sub-Kin gave up.",
                error_code=GAVE_UP,
                error_detail=self._platform.vault.masker().mask(reason) if reason else None,
            )
        if status != "completed":
            raise TaskError(
                "status must be in_progress, completed or failed.",
                code="task_state_invalid",
                params={"state": status},
            )
        if message and message.strip():
            return await self._end(task.id, "completed", result=message.strip())
        row = await self._platform.db.read(lambda: TaskRecord.get_by_id(task.id))
        if turn is not None and row.reported_in_turn == turn:
            return await self._end(task.id, "completed", result=row.result, delivered=True)
        return task  # completed with the turn's final answer when the turn ends

    # -- the parent's side ---------------------------------------------------------------------

    async def respond(self, parent_kin_id: str, task_id: str, answer: str) -> TaskView:
        """Answer a sub-Kin's question: the answer is queued in its session (its next turn)."""
        task = await self._own(parent_kin_id, task_id)
        if task.ended:
            raise TaskError(
                f"Task {task_id} has ended ({task.status}).",
                code="task_ended",
                params={"state": task.status},
            )
        if not answer.strip():
            raise TaskError("The answer is empty.", code="task_answer_empty")

        def clear() -> None:
            # With the answer, in one transaction: the sub-Kin is never seen waiting for
            # nothing (its turn may be ending right now).
            cleared = (
                TaskRecord.update(awaiting_input=False)
                .where((TaskRecord.id == task_id) & TaskRecord.awaiting_input)
                .execute()
            )
            if not cleared:
                raise TaskError(
                    f"Task {task_id} has not asked you anything to answer.",
                    code="task_no_question",
                )

        parent = await self._platform.kins.get(parent_kin_id, include_tasks=True)
        assert task.session_kin_id is not None
        await self._platform.kins.enqueue(
            task.session_kin_id,
            answer,
            source="kin",
            sender_id=parent.id,
            sender_name=parent.name,
            kin_message_type="task_answer",
            task_id=task.id,
            guard=clear,
        )
        task = await self.get(task_id)
        self._publish(task)
        return task

    async def cancel(self, task_id: str, *, parent_kin_id: str | None = None) -> TaskView:
        """Cancel a pending or running task (and its own sub-tasks); its running turn is
        stopped. With ``parent_kin_id``, only that parent's task."""
        task = (
            await self._own(parent_kin_id, task_id)
            if parent_kin_id is not None
            else await self.get(task_id)
        )
        if task.ended:
            raise TaskError(
                f"Task {task_id} has already ended ({task.status}).",
                code="task_ended",
                params={"state": task.status},
            )
        by = "its parent" if parent_kin_id is not None else "a user"
        code = CANCELLED_BY_PARENT if parent_kin_id is not None else CANCELLED_BY_USER
        return await self._end(task_id, "cancelled", error=f"Cancelled by {by}.", error_code=code)

    async def _own(self, parent_kin_id: str, task_id: str) -> TaskView:
        try:
            task = await self.get(task_id)
        except TaskNotFound:
            task = None
        if task is None or task.parent_kin_id != parent_kin_id:
            raise TaskNotFound(f"You have no task {task_id!r}; list_tasks shows yours.")
        return task

    # -- turns of sub-Kins ---------------------------------------------------------------------

    async def turn_ended(self, session_kin_id: str, turn: int, error: str | None) -> None:
        """A sub-Kin's turn ended (``error``: why it failed). The task fails with the error,
        or completes unless the sub-Kin waits for an answer, a sub-task or a reply."""
        task = await self.of_session(session_kin_id)
        if task is None or task.ended:
            return
        if error is not None:
            facts = await self._platform.db.read(_turn_failure, session_kin_id, turn)
            await self._end(
                task.id,
                "failed",
                error=error,
                error_code=facts.get("error_code") or turn_meta.TURN_STOPPED,
                error_detail=facts.get("detail"),
            )
            return
        state = await self._platform.db.read(_turn_state, task.id, session_kin_id, turn)
        if state.waiting:
            return
        if state.reported:
            await self._end(task.id, "completed", result=state.report, delivered=True)
        elif state.answer:
            await self._end(task.id, "completed", result=state.answer)
        else:
            await self._end(
                task.id, "failed", error="The sub-Kin ended without a result.", error_code=NO_RESULT
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

    # -- ending --------------------------------------------------------------------------------

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
        a cron), its result or error (vault values masked), and its cron's name."""
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
        return {
            "task_title": task.title,
            "worker_name": worker_name,
            "spawned_self": task.kin_id == parent_identity,
            "result": mask(task.result) if task.status == "completed" and task.result else None,
            "error": mask(task.error) if task.status != "completed" and task.error else None,
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


class _TurnState:
    """What a sub-Kin's ended turn left: whether it waits, what it reported, its answer."""

    def __init__(self, waiting: bool, reported: bool, report: str | None, answer: str) -> None:
        self.waiting = waiting
        self.reported = reported
        self.report = report
        self.answer = answer


def _waiting(row: TaskRecord, session_kin_id: str) -> bool:
    """Whether the sub-Kin of task ``row`` waits: for its parent's answer, an ``await``
    sub-task of its own, a reply to a request it sent, or a message already queued."""
    if row.awaiting_input:
        return True
    if (
        TaskRecord.select()
        .where(
            (TaskRecord.parent_kin == session_kin_id)
            & (TaskRecord.mode == "await")
            & TaskRecord.status.not_in(ENDED)
        )
        .exists()
    ):
        return True
    if (
        KinRequestRecord.select()
        .where((KinRequestRecord.from_kin == session_kin_id) & (KinRequestRecord.status == "open"))
        .exists()
    ):
        return True
    return bool(
        MessageRecord.select()
        .where((MessageRecord.kin == session_kin_id) & (MessageRecord.status == "queued"))
        .exists()
    )


def _turn_state(task_id: str, session_kin_id: str, turn: int) -> _TurnState:
    row = TaskRecord.get_by_id(task_id)
    last = (
        MessageRecord.select(MessageRecord.content)
        .where(
            (MessageRecord.kin == session_kin_id)
            & (MessageRecord.turn_of == turn)
            & (MessageRecord.role == "assistant")
        )
        .order_by(MessageRecord.id.desc())
        .first()
    )
    return _TurnState(
        waiting=_waiting(row, session_kin_id),
        reported=row.reported_in_turn == turn,
        report=row.result,
        answer=(last.content if last else "").strip(),
    )


def _turn_failure(session_kin_id: str, turn: int) -> dict[str, Any]:
    """The meta of the error message that ended a sub-Kin's turn (``{}``: none recorded)."""
    row = (
        MessageRecord.select(MessageRecord.meta)
        .where(
            (MessageRecord.kin == session_kin_id)
            & (MessageRecord.turn_of == turn)
            & MessageRecord.is_error
        )
        .order_by(MessageRecord.id.desc())
        .first()
    )
    if row is None or not row.meta:
        return {}
    facts = json.loads(row.meta)
    return facts if isinstance(facts, dict) else {}


def _recovery_state(task: TaskView) -> str:
    """``resumes``, ``unbriefed`` (it never got its first message) or ``lost``."""
    session = task.session_kin_id
    if session is None:
        return "lost"
    if _waiting(TaskRecord.get_by_id(task.id), session):
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

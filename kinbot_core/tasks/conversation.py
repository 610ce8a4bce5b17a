"""What a sub-Kin and its parent say to each other through a task: the sub-Kin's reports,
questions and state, the parent's answers and cancellations, and what a sub-Kin's ended
turn means for its task."""

from __future__ import annotations

import json
from typing import Any

from kinbot_core.db.models import KinRequestRecord, MessageRecord, TaskRecord
from kinbot_core.kins import meta as turn_meta
from kinbot_core.tasks.ending import TaskEnding
from kinbot_core.tasks.records import (
    CANCELLED_BY_PARENT,
    CANCELLED_BY_USER,
    ENDED,
    GAVE_UP,
    NO_RESULT,
    TaskError,
    TaskNotFound,
    TaskView,
)


class TaskConversation(TaskEnding):
    """The conversation half of ``TaskService``, which mixes it in and holds what it uses
    (its ending, ``TaskEnding``, comes with it)."""

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
        # The model reads how to answer; a person reads the question alone (``meta``).
        shown = {"question": self._platform.vault.masker().mask(question)}
        await self._deliver(task, content, "task_input", queue=True, meta=shown)
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


class _TurnState:
    """What a sub-Kin's ended turn left: whether it waits, what it reported, its answer."""

    def __init__(self, waiting: bool, reported: bool, report: str | None, answer: str) -> None:
        self.waiting = waiting
        self.reported = reported
        self.report = report
        self.answer = answer


def sub_kin_waits(row: TaskRecord, session_kin_id: str) -> bool:
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
        waiting=sub_kin_waits(row, session_kin_id),
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

"""The sub-Kin tools, over ``platform.tasks`` (``kinbot_core.tasks``).

A Kin (or a sub-Kin, within the depth limit) spawns and manages sub-Kins with ``spawn_self``,
``spawn_kin``, ``respond_to_task``, ``cancel_task`` and ``list_tasks``; a sub-Kin talks to its
parent with ``report_to_parent``, ``update_task_status`` and ``request_input``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.kins.access import shown_in
from kinbot_core.tasks import TaskError, TaskSpec, TaskView
from kinbot_core.tasks.service import describe
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    optional_text,
    required_text,
)

MODE = {
    "type": "string",
    "enum": ["await", "async"],
    "description": (
        "await (default): end your turn now; the result comes back as a new message and you "
        "continue then. async: go on without waiting; the result is added to your session "
        "without interrupting you."
    ),
}
MODEL = {"type": "string", "description": "The model to use (default: the Kin's)."}
DESCRIPTION = {
    "type": "string",
    "description": "The whole mission: what to do, what result to give back. It is all the "
    "sub-Kin will know.",
}
PARENT_HINT = (
    "Sub-Kins: spawn one (spawn_self, spawn_kin) for a piece of work that can be done apart. "
    "In await mode end your turn right after spawning: the result comes back as a message. "
    "A sub-Kin's question (labelled as coming from its task) is answered with "
    "respond_to_task(task_id, answer)."
)


def spawned(task: TaskView) -> dict[str, Any]:
    """What a spawn tool tells the model."""
    follow = (
        "End your turn now: the result will come back as a new message."
        if task.mode == "await"
        else "Go on: the result will be added to your session when it is ready."
    )
    waiting = (
        " It waits for a free slot (too many tasks are running)."
        if task.status == "pending"
        else ""
    )
    return {"task_id": task.id, "status": task.status, "next": follow + waiting}


class _TaskTool:
    """Shared argument handling: ``TaskError`` becomes the model's ``ToolError``."""

    name = ""
    description = ""
    parameters: dict[str, Any] = {}
    prompt_hint = ""
    audience = "all"

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        try:
            return await self.call(context, named_arguments(self, arguments))
        except TaskError as exc:
            raise ToolError(exc.message) from exc

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        raise NotImplementedError


async def _identity_of(context: ToolContext) -> str:
    """The Kin a caller is: itself, or for a sub-Kin the Kin it is a copy of."""
    task = await context.platform.tasks.of_session(context.kin_id)
    return task.kin_id if task is not None else context.kin_id


def _mode(arguments: dict[str, Any]) -> str:
    mode = optional_text(arguments, "mode") or "await"
    if mode not in ("await", "async"):
        raise ToolError('\'mode\' must be "await" or "async".')
    return mode


class SpawnSelfTool(_TaskTool):
    """``spawn_self(task_description, mode, model?)``: a copy of yourself for one task."""

    name = "spawn_self"
    description = (
        "Spawn a sub-Kin: a copy of yourself (same character and expertise) that works on one "
        "task in its own session, then reports the result to you."
    )
    parameters = object_schema(
        {"task_description": DESCRIPTION, "mode": MODE, "model": MODEL}, ["task_description"]
    )
    prompt_hint = PARENT_HINT

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        spec = TaskSpec(
            parent_kin_id=context.kin_id,
            kin_id=await _identity_of(context),
            description=required_text(arguments, "task_description"),
            mode=_mode(arguments),
            model=optional_text(arguments, "model"),
        )
        return spawned(await context.platform.tasks.spawn(spec))


class SpawnKinTool(_TaskTool):
    """``spawn_kin(kin_id, task_description, mode, model?)``: another Kin, for one task."""

    name = "spawn_kin"
    description = (
        "Spawn a sub-Kin of another Kin of the platform (find its id with list_kins) to do "
        "one task that needs its expertise; it reports the result to you."
    )
    parameters = object_schema(
        {
            "kin_id": {"type": "string", "description": "The Kin to instantiate."},
            "task_description": DESCRIPTION,
            "mode": MODE,
            "model": {"type": "string", "description": "The model to use (default: that Kin's)."},
        },
        ["kin_id", "task_description"],
    )

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        identity = required_text(arguments, "kin_id")
        if context.platform.kin_access.known(identity) and not shown_in(
            context.platform, context.kin_id, identity
        ):
            raise ToolError(
                "Refused: that Kin is not used by the same people as you, so its sub-Kin's "
                "work cannot be shown in your conversation."
            )
        spec = TaskSpec(
            parent_kin_id=context.kin_id,
            kin_id=identity,
            description=required_text(arguments, "task_description"),
            mode=_mode(arguments),
            model=optional_text(arguments, "model"),
        )
        return spawned(await context.platform.tasks.spawn(spec))


class RespondToTaskTool(_TaskTool):
    """``respond_to_task(task_id, answer)``: answer a sub-Kin's question."""

    name = "respond_to_task"
    description = (
        "Answer the question one of your sub-Kins asked you (request_input); it resumes its "
        "work with your answer."
    )
    parameters = object_schema(
        {
            "task_id": {"type": "string", "description": "The task that asked."},
            "answer": {"type": "string", "description": "Your answer."},
        },
        ["task_id", "answer"],
    )

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        task = await context.platform.tasks.respond(
            context.kin_id, required_text(arguments, "task_id"), required_text(arguments, "answer")
        )
        return {"task_id": task.id, "status": task.status, "answered": True}


class CancelTaskTool(_TaskTool):
    """``cancel_task(task_id)``: cancel one of your tasks."""

    name = "cancel_task"
    description = "Cancel one of your sub-Kins' tasks that is still pending or running."
    parameters = object_schema(
        {"task_id": {"type": "string", "description": "The task to cancel."}}, ["task_id"]
    )

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        task = await context.platform.tasks.cancel(
            required_text(arguments, "task_id"), parent_kin_id=context.kin_id
        )
        return describe(task)


class ListTasksTool(_TaskTool):
    """``list_tasks()``: your tasks, running ones first."""

    name = "list_tasks"
    description = "List the tasks of your sub-Kins and where each stands."
    parameters = object_schema({})

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        tasks = await context.platform.tasks.list(parent_kin_id=context.kin_id, limit=50)
        tasks.sort(key=lambda task: task.ended)
        return [describe(task) for task in tasks]


class ReportToParentTool(_TaskTool):
    """``report_to_parent(message)``: a sub-Kin's result or news, to its parent."""

    name = "report_to_parent"
    description = (
        "Send your parent your result (or news on the way). When your turn then ends, your "
        "task is complete with this report as its result."
    )
    parameters = object_schema(
        {"message": {"type": "string", "description": "The result or the news."}}, ["message"]
    )
    audience = "task"

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        task = await context.platform.tasks.report(
            context.kin_id, required_text(arguments, "message"), turn=context.trigger_id
        )
        return {"task_id": task.id, "delivered": True}


class UpdateTaskStatusTool(_TaskTool):
    """``update_task_status(status, message?)``: a sub-Kin sets its task's state."""

    name = "update_task_status"
    description = (
        "Set your task's state: in_progress, completed (message: the result, if you have not "
        "reported it) or failed (message: why)."
    )
    parameters = object_schema(
        {
            "status": {"type": "string", "enum": ["in_progress", "completed", "failed"]},
            "message": {"type": "string", "description": "The result, or why it failed."},
        },
        ["status"],
    )
    audience = "task"

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        task = await context.platform.tasks.set_status(
            context.kin_id,
            required_text(arguments, "status"),
            optional_text(arguments, "message"),
            turn=context.trigger_id,
        )
        return {"task_id": task.id, "status": task.status}


class RequestInputTool(_TaskTool):
    """``request_input(question)``: a sub-Kin asks its parent and waits for the answer."""

    name = "request_input"
    description = (
        "Ask your parent a question you cannot go on without, then end your turn: the answer "
        "comes back as your next message. Only a few questions are allowed per task."
    )
    parameters = object_schema(
        {"question": {"type": "string", "description": "The question."}}, ["question"]
    )
    audience = "task"

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        task, left = await context.platform.tasks.request_input(
            context.kin_id, required_text(arguments, "question")
        )
        return {
            "task_id": task.id,
            "asked": True,
            "questions_left": left,
            "next": "End your turn now: the answer will come as your next message.",
        }


#: The tools this plugin contributes, in registration order.
TOOLS: tuple[Tool, ...] = (
    SpawnSelfTool(),
    SpawnKinTool(),
    RespondToTaskTool(),
    CancelTaskTool(),
    ListTasksTool(),
    ReportToParentTool(),
    UpdateTaskStatusTool(),
    RequestInputTool(),
)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

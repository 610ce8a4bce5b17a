"""``/api/tasks``: every sub-Kin task of the platform, its session, and cancelling one."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import validate_querystring

from kinbot_core.tasks import ENDED
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.blueprints.schemas import RowId, SqlInt
from kinbot_web.errors import ApiError
from kinbot_web.kin_guard import hidden_from, usable

blueprint = Blueprint("tasks", __name__)

STATUSES = ("pending", "in_progress", *ENDED)


class TasksQuery(BaseModel):
    #: One state, or ``active`` for pending and running tasks.
    status: str = Field("", max_length=32)
    #: Only the tasks of this parent Kin.
    kin_id: str = Field("", max_length=100)
    #: At most 500.
    limit: SqlInt = 100


class TaskQuery(BaseModel):
    #: A message id: the page of the sub-Kin's session ends just before it.
    before: RowId | None = None
    #: At most 200.
    limit: SqlInt = 200


@blueprint.get("/api/tasks")
@signed_in
@validate_querystring(TasksQuery)
async def list_tasks(query_args: TasksQuery) -> dict[str, object]:
    """Tasks, newest first: ``?status=`` (one state, or ``active`` for pending and running
    ones), ``?kin_id=`` (tasks of one parent) and ``?limit=`` (at most 500)."""
    status = query_args.status or None
    if status is not None and status != "active" and status not in STATUSES:
        raise ApiError(400, "invalid_request", f"status is active or one of {', '.join(STATUSES)}.")
    tasks = await current_platform().tasks.list(
        parent_kin_id=query_args.kin_id or None,
        status=None if status == "active" else status,
        active_only=status == "active",
        limit=min(max(query_args.limit, 1), 500),
        hidden_kins=hidden_from(current_user()),
    )
    shown = usable(current_user(), tasks, lambda t: t.parent_kin_id, lambda t: t.kin_id)
    return {"tasks": [task.to_dict() for task in shown]}


@blueprint.get("/api/tasks/<task_id>")
@signed_in
@validate_querystring(TaskQuery)
async def get_task(task_id: str, query_args: TaskQuery) -> dict[str, object]:
    """One task with its sub-Kin's session (the last ``?limit=`` messages, 200 at most;
    ``?before=<message id>`` pages back) and the ``draft`` of its running turn (as on
    ``GET /api/kins/:id/messages``)."""
    platform = current_platform()
    task = await platform.tasks.get(task_id)
    before = query_args.before
    messages = []
    draft = None
    if task.session_kin_id is not None:
        draft = platform.workers.draft(task.session_kin_id) if before is None else None
        messages = await platform.kins.messages(
            task.session_kin_id, before=before, limit=min(max(query_args.limit, 1), 200)
        )
    return {"task": task.to_dict(), "messages": [m.to_dict() for m in messages], "draft": draft}


@blueprint.post("/api/tasks/<task_id>/cancel")
@signed_in
async def cancel_task(task_id: str) -> dict[str, object]:
    """Cancel a pending or running task (and its own sub-tasks); 409 once it has ended."""
    task = await current_platform().tasks.cancel(task_id)
    return {"task": task.to_dict()}

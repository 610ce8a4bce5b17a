"""``/api/tasks``: every sub-Kin task of the platform, its session, and cancelling one."""

from __future__ import annotations

from quart import Blueprint, request

from kinbot_core.tasks import ENDED
from kinbot_web.app_context import current_platform
from kinbot_web.auth import signed_in
from kinbot_web.errors import ApiError

blueprint = Blueprint("tasks", __name__)

STATUSES = ("pending", "in_progress", *ENDED)


def _limit(default: int, most: int) -> int:
    try:
        return min(max(int(request.args.get("limit", default)), 1), most)
    except ValueError:
        raise ApiError(400, "invalid_request", "limit is a whole number.") from None


@blueprint.get("/api/tasks")
@signed_in
async def list_tasks() -> dict[str, object]:
    """Tasks, newest first: ``?status=`` (one state, or ``active`` for pending and running
    ones), ``?kin_id=`` (tasks of one parent) and ``?limit=`` (at most 500)."""
    status = request.args.get("status") or None
    if status is not None and status != "active" and status not in STATUSES:
        raise ApiError(400, "invalid_request", f"status is active or one of {', '.join(STATUSES)}.")
    tasks = await current_platform().tasks.list(
        parent_kin_id=request.args.get("kin_id") or None,
        status=None if status == "active" else status,
        active_only=status == "active",
        limit=_limit(100, 500),
    )
    return {"tasks": [task.to_dict() for task in tasks]}


@blueprint.get("/api/tasks/<task_id>")
@signed_in
async def get_task(task_id: str) -> dict[str, object]:
    """One task with its sub-Kin's session (the last ``?limit=`` messages, 200 at most;
    ``?before=<message id>`` pages back) and the ``draft`` of its running turn (as on
    ``GET /api/kins/:id/messages``)."""
    platform = current_platform()
    task = await platform.tasks.get(task_id)
    try:
        before = int(request.args["before"]) if "before" in request.args else None
    except ValueError:
        raise ApiError(400, "invalid_request", "before is a whole number.") from None
    messages = []
    draft = None
    if task.session_kin_id is not None:
        draft = platform.workers.draft(task.session_kin_id) if before is None else None
        messages = await platform.kins.messages(
            task.session_kin_id, before=before, limit=_limit(200, 200)
        )
    return {"task": task.to_dict(), "messages": [m.to_dict() for m in messages], "draft": draft}


@blueprint.post("/api/tasks/<task_id>/cancel")
@signed_in
async def cancel_task(task_id: str) -> dict[str, object]:
    """Cancel a pending or running task (and its own sub-tasks); 409 once it has ended."""
    task = await current_platform().tasks.cancel(task_id)
    return {"task": task.to_dict()}

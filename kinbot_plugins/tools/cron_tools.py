"""The cron tools of a Kin's main session: ``create_cron``, ``update_cron``, ``delete_cron``
and ``list_crons``, over ``platform.crons`` (``kinbot_core.crons``).

A cron a Kin creates is a proposal: it runs only once a user confirmed it; a Kin changing what
a confirmed cron does sends it back for confirmation, and it may deactivate one freely. A Kin
manages the crons it created and those that run on it. Sub-Kins do not get these tools.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.crons import Author, CronError, CronView
from kinbot_core.crons.schedule import resolve_zone
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    required_text,
)

NAME = {"type": "string", "description": "A short label for the scheduled job."}
SCHEDULE = {
    "type": "string",
    "description": (
        "A cron expression: minute hour day-of-month month day-of-week, e.g. '0 9 * * *' for "
        "every day at 9:00, '30 18 * * 1-5' for weekdays at 18:30 (optionally a leading "
        "seconds field)."
    ),
}
TASK = {
    "type": "string",
    "description": "The instructions a sub-Kin gets at each run: all it will know.",
}
KIN_ID = {
    "type": "string",
    "description": "The Kin the cron runs on (default: you); list_kins gives the ids.",
}
MODEL = {"type": "string", "description": "The model of its sub-Kin (default: the Kin's)."}
TIMEZONE = {
    "type": "string",
    "description": "An IANA time zone for the schedule, e.g. 'Europe/Paris' (default: the "
    "platform's).",
}
CRON_ID = {"type": "string", "description": "The cron's id (list_crons gives them)."}
PROMPT_HINT = (
    "Scheduled jobs: create_cron proposes a recurring task (a user must confirm it before it "
    "runs). Each run's result is added to your session as a message from the cron; you do "
    "not answer it unless someone asks."
)


def _when(timestamp: float | None, cron: CronView, default_zone: str) -> str | None:
    if timestamp is None:
        return None
    zone = resolve_zone(cron.timezone, default_zone)
    return datetime.fromtimestamp(timestamp, zone).isoformat(timespec="seconds")


def described(context: ToolContext, cron: CronView) -> dict[str, Any]:
    """A cron as the tools show it to a model."""
    platform = context.platform
    zone: str = platform.settings.cron_timezone
    result: dict[str, Any] = {
        "cron_id": cron.id,
        "name": cron.name,
        "schedule": cron.schedule,
        "timezone": cron.timezone or zone or "local",
        "task_description": cron.task_description,
        "kin_id": cron.kin_id,
        "model": cron.model,
        "state": cron.state,
        "next_run": _when(platform.crons.scheduler.next_run_at(cron.id), cron, zone),
        "last_run": _when(cron.last_run_at, cron, zone),
        "last_run_status": cron.last_run_status,
    }
    if cron.last_skip_reason:
        result["last_skip"] = {
            "at": _when(cron.last_skip_at, cron, zone),
            "reason": cron.last_skip_reason,
        }
    if cron.state == "awaiting_confirmation":
        result["note"] = "A user must confirm this cron before it runs."
    return result


class _CronTool:
    """Shared argument handling: a ``CronError`` becomes the model's ``ToolError``."""

    name = ""
    description = ""
    parameters: dict[str, Any] = {}
    prompt_hint = ""
    audience = "main"

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        try:
            return await self.call(context, named_arguments(self, arguments))
        except CronError as exc:
            raise ToolError(exc.message) from exc

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        raise NotImplementedError


class CreateCronTool(_CronTool):
    """``create_cron(name, schedule, task_description, kin_id?, model?, timezone?)``."""

    name = "create_cron"
    description = (
        "Propose a scheduled job: at each time of the schedule, a sub-Kin does the task and "
        "its result is added to the Kin's session. It stays inactive until a user confirms it."
    )
    parameters = object_schema(
        {
            "name": NAME,
            "schedule": SCHEDULE,
            "task_description": TASK,
            "kin_id": KIN_ID,
            "model": MODEL,
            "timezone": TIMEZONE,
        },
        ["name", "schedule", "task_description"],
    )
    prompt_hint = PROMPT_HINT

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        for key in ("name", "schedule", "task_description"):
            required_text(arguments, key)
        cron = await context.platform.crons.create(arguments, Author("kin", context.kin_id))
        return described(context, cron)


class UpdateCronTool(_CronTool):
    """``update_cron(cron_id, name?, schedule?, task_description?, kin_id?, model?,
    timezone?, active?)``."""

    name = "update_cron"
    description = (
        "Change one of your crons (those you created or that run on you). Changing its "
        "schedule, time zone, task, Kin or model, or activating it, needs a user's "
        "confirmation again; deactivating it (active false) does not."
    )
    parameters = object_schema(
        {
            "cron_id": CRON_ID,
            "name": NAME,
            "schedule": SCHEDULE,
            "task_description": TASK,
            "kin_id": KIN_ID,
            "model": MODEL,
            "timezone": TIMEZONE,
            "active": {"type": "boolean", "description": "false pauses it; true asks to resume."},
        },
        ["cron_id"],
    )

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        cron_id = required_text(arguments, "cron_id")
        changes = {k: v for k, v in arguments.items() if k != "cron_id" and v is not None}
        if not changes:
            raise ToolError("Nothing to change: give at least one field besides cron_id.")
        cron = await context.platform.crons.update(cron_id, changes, Author("kin", context.kin_id))
        return described(context, cron)


class DeleteCronTool(_CronTool):
    """``delete_cron(cron_id)``."""

    name = "delete_cron"
    description = "Delete one of your crons (those you created or that run on you)."
    parameters = object_schema({"cron_id": CRON_ID}, ["cron_id"])

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        cron_id = required_text(arguments, "cron_id")
        await context.platform.crons.delete(cron_id, Author("kin", context.kin_id))
        return {"status": "deleted", "cron_id": cron_id}


class ListCronsTool(_CronTool):
    """``list_crons()``."""

    name = "list_crons"
    description = "List your crons (those you created or that run on you) and their state."
    parameters = object_schema({})

    async def call(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        crons = await context.platform.crons.list_for_kin(context.kin_id)
        return {"crons": [described(context, cron) for cron in crons]}


#: The tools this plugin contributes, in registration order.
TOOLS: tuple[Tool, ...] = (CreateCronTool(), UpdateCronTool(), DeleteCronTool(), ListCronsTool())


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

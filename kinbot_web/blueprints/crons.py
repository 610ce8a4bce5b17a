"""``/api/crons``: the scheduled jobs of the shared Kins, for every signed-in user."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from quart import Blueprint, Response
from quart_schema import validate_querystring, validate_request

from kinbot_core.crons import Author, CronError
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.errors import ApiError, error_response
from kinbot_web.kin_guard import usable

blueprint = Blueprint("crons", __name__)


class CronIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    #: A cron expression (5 fields, or 6 with seconds first).
    schedule: str = Field(min_length=1, max_length=200)
    task_description: str = Field(min_length=1, max_length=20_000)
    #: The Kin it runs on.
    kin_id: str = Field(min_length=1, max_length=100)
    #: An IANA zone; null: the platform's ``cron_timezone``.
    timezone: str | None = Field(None, max_length=100)
    #: null: the Kin's model.
    model: str | None = Field(None, max_length=200)
    active: bool = True


class CronUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=120)
    schedule: str | None = Field(None, min_length=1, max_length=200)
    task_description: str | None = Field(None, min_length=1, max_length=20_000)
    kin_id: str | None = Field(None, min_length=1, max_length=100)
    #: Empty or null: back to the platform's zone.
    timezone: str | None = Field(None, max_length=100)
    #: Empty or null: back to the Kin's model.
    model: str | None = Field(None, max_length=200)
    active: bool | None = None


class CronsQuery(BaseModel):
    #: Only the crons running on this Kin.
    kin_id: str = Field("", max_length=100)


@blueprint.errorhandler(CronError)
async def cron_error(exc: CronError) -> Response:
    return error_response(exc.status, exc.code, exc.message)


@blueprint.get("/api/crons")
@signed_in
@validate_querystring(CronsQuery)
async def list_crons(query_args: CronsQuery) -> dict[str, object]:
    """Every cron, or those running on one Kin (``?kin_id=``), oldest first."""
    crons = current_platform().crons
    found = usable(current_user(), await crons.list(query_args.kin_id or None), lambda c: c.kin_id)
    return {"crons": [crons.describe(cron) for cron in found]}


@blueprint.post("/api/crons")
@signed_in
@validate_request(CronIn)
async def create_cron(data: CronIn) -> tuple[dict[str, object], int]:
    """Create a cron; a user's cron is active at once (unless ``active`` is false)."""
    crons = current_platform().crons
    cron = await crons.create(data.model_dump(), Author("user", current_user().id))
    return {"cron": crons.describe(cron)}, 201


@blueprint.get("/api/crons/<cron_id>")
@signed_in
async def get_cron(cron_id: str) -> dict[str, object]:
    """One cron, with its latest runs (and skips)."""
    crons = current_platform().crons
    cron = await crons.get(cron_id)
    return {"cron": crons.describe(cron), "runs": await crons.runs(cron_id)}


@blueprint.patch("/api/crons/<cron_id>")
@signed_in
@validate_request(CronUpdate)
async def update_cron(cron_id: str, data: CronUpdate) -> dict[str, object]:
    """Change a cron; activating a Kin's proposal confirms it."""
    changes = data.model_dump(exclude_unset=True)
    for key in ("name", "schedule", "task_description", "kin_id", "active"):
        if key in changes and changes[key] is None:
            raise ApiError(400, "invalid_request", f"'{key}' cannot be null.")
    crons = current_platform().crons
    cron = await crons.update(cron_id, changes, Author("user", current_user().id))
    return {"cron": crons.describe(cron)}


@blueprint.delete("/api/crons/<cron_id>")
@signed_in
async def delete_cron(cron_id: str) -> Response:
    """Delete a cron and its run history."""
    await current_platform().crons.delete(cron_id, Author("user", current_user().id))
    return Response(status=204)


@blueprint.post("/api/crons/<cron_id>/confirm")
@signed_in
async def confirm_cron(cron_id: str) -> dict[str, object]:
    """Confirm a cron a Kin proposed (or changed): it becomes active."""
    crons = current_platform().crons
    cron = await crons.confirm(cron_id, current_user().id)
    return {"cron": crons.describe(cron)}

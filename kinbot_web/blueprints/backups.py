"""``/api/backups``: administrators set the schedule of automatic backups, start one now and
see the recent ones (docs/backups.md). The archives' passphrase is write-only."""

from __future__ import annotations

from dataclasses import asdict

from pydantic import BaseModel, Field
from quart import Blueprint, Response, send_file
from quart_schema import validate_request

from kinbot_core.backup.schedule import BackupError
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("backups", __name__)


class BackupScheduleIn(BaseModel):
    enabled: bool | None = None
    #: Hours between two automatic backups (24: daily).
    interval_hours: float | None = Field(None, ge=1, le=24 * 31)
    #: How many archives to keep in the folder; older ones are deleted.
    keep: int | None = Field(None, ge=1, le=365)
    #: An absolute folder; empty: ``backups/`` in the data directory.
    target_dir: str | None = Field(None, max_length=1024)
    #: The archives' new passphrase (never returned); too short, it is refused with
    #: ``backup_passphrase_short`` and its ``min_length``.
    passphrase: str | None = Field(None, max_length=1024)


@blueprint.errorhandler(BackupError)
async def backup_error(exc: BackupError) -> Response:
    status = 409 if exc.code == "backup_running" else 400
    return error_response(status, exc.code, str(exc), **exc.params)


async def _view() -> dict[str, object]:
    backups = current_platform().backups
    return {"schedule": asdict(await backups.schedule()), "runs": await backups.runs()}


@blueprint.get("/api/backups")
@admin_only
async def list_backups() -> dict[str, object]:
    """The schedule (the passphrase only as ``passphrase_set``) and the 20 latest backups."""
    return await _view()


@blueprint.put("/api/backups/schedule")
@admin_only
@validate_request(BackupScheduleIn)
async def update_schedule(data: BackupScheduleIn) -> dict[str, object]:
    """Change the schedule. 400 ``backup_passphrase_required`` to turn it on before a
    passphrase is set; ``backup_target_invalid`` for a folder that is not absolute."""
    await current_platform().backups.update(**data.model_dump(exclude_none=True))
    return await _view()


@blueprint.post("/api/backups")
@admin_only
async def back_up_now() -> tuple[dict[str, object], int]:
    """Start a backup now (without the master key); 202 with its run, ``running``.
    409 ``backup_running`` while another runs."""
    run = await current_platform().backups.back_up_now()
    return {"run": run}, 202


@blueprint.get("/api/backups/<run_id>/file")
@admin_only
async def download_backup(run_id: str) -> Response:
    """A finished backup's archive, as a download; 404 ``not_found`` once pruned, for a run
    that did not finish, or for an id that is no run's."""
    number = int(run_id) if run_id.isdecimal() and len(run_id) <= 18 else None
    path = None if number is None else await current_platform().backups.archive(number)
    if path is None:
        raise ApiError(404, "not_found", "No such backup file.")
    response = await send_file(
        path,
        mimetype="application/octet-stream",
        as_attachment=True,
        attachment_filename=path.name,
    )
    response.headers["Cache-Control"] = "no-store"
    return response

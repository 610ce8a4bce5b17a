"""``/api/kins/<id>/compacting``: a Kin's summary layer, its snapshots, purge and rollback."""

from __future__ import annotations

from pydantic import BaseModel
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.compacting import CompactingError
from kinbot_web.app_context import current_platform
from kinbot_web.auth import signed_in
from kinbot_web.blueprints.schemas import RowId
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("compacting", __name__)


class RollbackIn(BaseModel):
    snapshot_id: RowId


@blueprint.errorhandler(CompactingError)
async def compacting_error(exc: CompactingError) -> Response:
    return error_response(exc.status, exc.code, exc.message)


@blueprint.get("/api/kins/<kin_id>/compacting")
@signed_in
async def compacting_state(kin_id: str) -> dict[str, object]:
    """The Kin's active summary, the context's size against the trigger, and the snapshots
    kept, newest first."""
    state = await current_platform().compacting.state(kin_id)
    return state.to_dict()


@blueprint.post("/api/kins/<kin_id>/compacting")
@signed_in
async def compact_now(kin_id: str) -> tuple[dict[str, object], int]:
    """Compact the session now, whatever its size (the recent messages stay verbatim)."""
    platform = current_platform()
    snapshot = await platform.compacting.compact(kin_id, force=True)
    if snapshot is None:
        raise ApiError(409, "nothing_to_compact", "Nothing can be compacted yet.")
    return {"snapshot": snapshot.to_dict()}, 201


@blueprint.post("/api/kins/<kin_id>/compacting/purge")
@signed_in
async def purge(kin_id: str) -> tuple[dict[str, object], int]:
    """Start again from a blank summary; the messages stay, and a rollback can undo it."""
    snapshot = await current_platform().compacting.purge(kin_id)
    return {"snapshot": snapshot.to_dict()}, 201


@blueprint.post("/api/kins/<kin_id>/compacting/rollback")
@signed_in
@validate_request(RollbackIn)
async def rollback(kin_id: str, data: RollbackIn) -> dict[str, object]:
    """Make one of the Kin's kept snapshots the active one."""
    snapshot = await current_platform().compacting.rollback(kin_id, data.snapshot_id)
    return {"snapshot": snapshot.to_dict()}

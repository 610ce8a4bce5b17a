"""Who may use a Kin: ``/api/kins/<id>/access`` and, for administrators, ``/api/kin-access``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import validate_request

from kinbot_core.kins.access_settings import MAX_MEMBERS, access_of, every_access, set_access
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in
from kinbot_web.blueprints.schemas import Identifier
from kinbot_web.kin_guard import manages_kin_access

blueprint = Blueprint("kin_access", __name__)


class AccessIn(BaseModel):
    #: ``everyone`` (the default), ``members`` (the people in ``members``) or ``private``.
    access: Literal["everyone", "members", "private"]
    #: User ids: who may use it (``members``), or its one person (``private``; empty: you).
    members: list[Identifier] = Field(default_factory=list, max_length=MAX_MEMBERS)


@blueprint.get("/api/kins/<kin_id>/access")
@signed_in
@manages_kin_access
async def get_access(kin_id: str) -> dict[str, object]:
    """Who may use the Kin: ``access`` and ``members`` (user ids)."""
    return (await access_of(current_platform(), kin_id)).to_dict()


@blueprint.put("/api/kins/<kin_id>/access")
@signed_in
@manages_kin_access
@validate_request(AccessIn)
async def put_access(kin_id: str, data: AccessIn) -> dict[str, object]:
    """Change who may use the Kin. Administrators set any Kin's access; another member can
    make a Kin they created private to themselves (and shared again)."""
    platform = current_platform()
    changed = await set_access(platform, kin_id, data.access, list(data.members), by=current_user())
    return changed.to_dict()


@blueprint.get("/api/kin-access")
@admin_only
async def list_access() -> dict[str, object]:
    """Every Kin's name and access, including Kins the administrator may not use (so a
    mistake can be fixed); nothing else of them."""
    platform = current_platform()
    names = {kin.id: kin.name for kin in await platform.kins.list_all()}
    found = await every_access(platform)
    return {
        "kins": [
            {"id": kin_id, "name": name, **found[kin_id].to_dict()}
            for kin_id, name in names.items()
            if kin_id in found
        ]
    }

"""``/api/kins/<id>/context-window``: the context window of a Kin's model, and its source."""

from __future__ import annotations

from quart import Blueprint

from kinbot_core.providers.context_windows import window_of
from kinbot_web.app_context import current_platform
from kinbot_web.auth import signed_in

blueprint = Blueprint("context_window", __name__)


@blueprint.get("/api/kins/<kin_id>/context-window")
@signed_in
async def context_window(kin_id: str) -> dict[str, object]:
    """How many tokens the Kin's model takes in one call and who says so: ``source`` is
    ``server``, ``provider``, ``known_model``, ``admin`` or ``fallback``."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    window = await window_of(platform.providers, kin.model)
    return {"model": kin.model, **window.to_dict()}

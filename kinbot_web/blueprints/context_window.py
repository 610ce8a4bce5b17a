"""``/api/kins/<id>/context-window``: the context window of a Kin's model, and its source;
administrators give it by hand for a server that does not say it (``PUT``) or clear it
(``DELETE``)."""

from __future__ import annotations

from quart import Blueprint, request

from kinbot_core.providers.context_windows import MAX_TOKENS, MIN_TOKENS, parse_tokens, window_of
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, signed_in
from kinbot_web.auth.access import current_user
from kinbot_web.errors import ApiError

blueprint = Blueprint("context_window", __name__)


async def _view(kin_id: str) -> dict[str, object]:
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    window = await window_of(platform.providers, kin.model)
    key = await platform.model_windows.key_of(kin.model)
    return {
        "model": kin.model,
        **window.to_dict(),
        #: The window an administrator gave this model here, if any (``DELETE`` clears it).
        "given": platform.model_windows.given(key),
        #: Whether the current user may give it (administrators).
        "may_set": current_user().is_admin,
    }


@blueprint.get("/api/kins/<kin_id>/context-window")
@signed_in
async def context_window(kin_id: str) -> dict[str, object]:
    """How many tokens the Kin's model takes in one call and who says so: ``source`` is
    ``server``, ``provider``, ``known_model``, ``admin`` or ``fallback``."""
    return await _view(kin_id)


@blueprint.put("/api/kins/<kin_id>/context-window")
@admin_only
async def give_context_window(kin_id: str) -> dict[str, object]:
    """Give the window of the Kin's model by hand (``{"tokens": 8192}``): it is in force at
    once for every Kin on that model. Not a whole number of tokens from ``MIN_TOKENS`` to
    ``MAX_TOKENS``: 400 ``context_window_invalid``."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    body = await request.get_json(silent=True)
    tokens = parse_tokens(body.get("tokens")) if isinstance(body, dict) else None
    if tokens is None:
        raise ApiError(
            400,
            "context_window_invalid",
            f"A context window is a whole number of tokens from {MIN_TOKENS} to {MAX_TOKENS}.",
            min=MIN_TOKENS,
            max=MAX_TOKENS,
        )
    await platform.model_windows.give(await platform.model_windows.key_of(kin.model), tokens)
    return await _view(kin_id)


@blueprint.delete("/api/kins/<kin_id>/context-window")
@admin_only
async def clear_context_window(kin_id: str) -> dict[str, object]:
    """Forget the window given by hand for the Kin's model: the next source is in force."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    await platform.model_windows.give(await platform.model_windows.key_of(kin.model), None)
    return await _view(kin_id)

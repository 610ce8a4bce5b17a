"""Onboarding: which step comes next, and screen 1 (the first administrator)."""

from __future__ import annotations

from pydantic import BaseModel
from quart import Blueprint, Response, jsonify
from quart_schema import validate_request, validate_response

from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, public
from kinbot_web.auth.session import client_ip, set_session_cookie, user_agent
from kinbot_web.blueprints.schemas import IdentityIn

blueprint = Blueprint("onboarding", __name__)

#: The wizard's steps, in order.
STEPS = ("identity", "providers", "search_providers", "first_kin")


class OnboardingStatus(BaseModel):
    step: str
    completed: list[str]


@blueprint.get("/api/onboarding")
@public
@validate_response(OnboardingStatus)
async def status() -> OnboardingStatus:
    """The next onboarding step (``done`` when finished) and the steps completed so far."""
    platform = current_platform()
    done = {
        "identity": await platform.accounts.has_users(),
        "providers": (await platform.providers.coverage()).ready,
        "search_providers": await platform.providers.search_step_done(),
        "first_kin": bool(await platform.kins.list_all()),
    }
    completed = [step for step in STEPS if done[step]]
    pending = [step for step in STEPS if not done[step]]
    return OnboardingStatus(step=pending[0] if pending else "done", completed=completed)


@blueprint.post("/api/onboarding/search-providers/skip")
@admin_only
async def skip_search_providers() -> Response:
    """Screen 3's "Skip": continue without a search provider (web search stays off)."""
    await current_platform().providers.skip_search_providers()
    return Response(status=204)


@blueprint.post("/api/onboarding/identity")
@public
@validate_request(IdentityIn)
async def create_first_admin(data: IdentityIn) -> Response:
    """Screen 1: create the first user as administrator, and sign them in.

    409 ``already_set_up`` once any user exists.
    """
    platform = current_platform()
    grant = await platform.accounts.create_first_admin(
        data.identity(), ip=client_ip(), user_agent=user_agent()
    )
    response = jsonify({"user": grant.user.to_dict()})
    response.status_code = 201
    set_session_cookie(response, grant, platform.settings)
    return response

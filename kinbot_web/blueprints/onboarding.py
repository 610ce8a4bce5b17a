"""Onboarding: which step comes next, and screen 1 (the first administrator).

Screen 1 is open to a client on this machine, or to one showing the set-up code printed in
the server's log (``kinbot_web.setup_code``): nothing else on the network can claim a fresh
instance.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint, Response, current_app, g, jsonify
from quart_schema import validate_request, validate_response

from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, public
from kinbot_web.auth.session import client_ip, set_session_cookie, user_agent
from kinbot_web.blueprints.schemas import IdentityIn
from kinbot_web.errors import ApiError
from kinbot_web.setup_code import request_from_loopback, setup_code

blueprint = Blueprint("onboarding", __name__)

#: The wizard's steps, in order.
STEPS = ("identity", "providers", "search_providers", "first_kin")


class OnboardingStatus(BaseModel):
    step: str
    completed: list[str]
    #: Whether this client must give the set-up code to create the first administrator.
    setup_code_required: bool = False
    #: Whether the request came with a valid session: the web interface asks who is signed
    #: in only then, rather than asking and being answered 401.
    signed_in: bool = False


class FirstAdminIn(IdentityIn):
    """Screen 1's identity, with the set-up code when the client is not on this machine."""

    setup_code: str | None = Field(None, max_length=200)


@blueprint.get("/api/onboarding")
@public
@validate_response(OnboardingStatus)
async def status() -> OnboardingStatus:
    """The next onboarding step (``done`` when finished), the steps completed so far, and
    whether the client is signed in."""
    platform = current_platform()
    done = {
        "identity": await platform.accounts.has_users(),
        "providers": (await platform.providers.coverage()).ready,
        "search_providers": await platform.providers.search_step_done(),
        "first_kin": bool(await platform.kins.list_all()),
    }
    completed = [step for step in STEPS if done[step]]
    pending = [step for step in STEPS if not done[step]]
    return OnboardingStatus(
        step=pending[0] if pending else "done",
        completed=completed,
        setup_code_required=not done["identity"] and not request_from_loopback(platform.settings),
        signed_in=g.user is not None,
    )


@blueprint.post("/api/onboarding/search-providers/skip")
@admin_only
async def skip_search_providers() -> Response:
    """Screen 3's "Skip": continue without a search provider (web search stays off)."""
    await current_platform().providers.skip_search_providers()
    return Response(status=204)


@blueprint.post("/api/onboarding/identity")
@public
@validate_request(FirstAdminIn)
async def create_first_admin(data: FirstAdminIn) -> Response:
    """Screen 1: create the first user as administrator, and sign them in.

    From another machine, 403 ``setup_code_required`` without ``setup_code`` and 403
    ``setup_code_invalid`` with a wrong one (the code is gone once the administrator
    exists); 409 ``already_set_up`` once any user exists.
    """
    platform = current_platform()
    code = setup_code(current_app)
    if not request_from_loopback(platform.settings) and not code.accepts(data.setup_code):
        if data.setup_code:
            raise ApiError(
                403,
                "setup_code_invalid",
                "This set-up code is not valid: it is the one printed in KinBot's log at "
                "start-up, and works once.",
            )
        raise ApiError(
            403,
            "setup_code_required",
            "Creating the first administrator from another machine needs the set-up code "
            "printed in KinBot's log at start-up.",
        )
    grant = await platform.accounts.create_first_admin(
        data.identity(), ip=client_ip(), user_agent=user_agent()
    )
    code.discard()
    response = jsonify({"user": grant.user.to_dict()})
    response.status_code = 201
    set_session_cookie(response, grant, platform.settings)
    return response

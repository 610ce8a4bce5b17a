"""Signing in and out, and creating an account from an invitation."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint, Response, g, jsonify
from quart_schema import validate_request

from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, public, signed_in
from kinbot_web.auth.session import (
    clear_session_cookie,
    client_ip,
    set_session_cookie,
    user_agent,
)
from kinbot_web.blueprints.schemas import IdentityIn

blueprint = Blueprint("auth", __name__)


class LoginIn(BaseModel):
    email: str = Field(min_length=1, max_length=320)
    password: str = Field(min_length=1, max_length=256)


class RegisterIn(IdentityIn):
    code: str = Field(min_length=1, max_length=100)


@blueprint.post("/api/auth/login")
@public
@validate_request(LoginIn)
async def login(data: LoginIn) -> Response:
    """Sign in with email and password; a fresh session cookie replaces any previous one."""
    platform = current_platform()
    if g.session_id is not None:
        await platform.accounts.logout(g.session_id, current_user().id)
    grant = await platform.accounts.login(
        data.email, data.password, ip=client_ip(), user_agent=user_agent()
    )
    response = jsonify({"user": grant.user.to_dict()})
    set_session_cookie(response, grant, platform.settings)
    return response


@blueprint.post("/api/auth/logout")
@signed_in
async def logout() -> Response:
    """End this browser's session."""
    platform = current_platform()
    await platform.accounts.logout(g.session_id, current_user().id)
    platform.live.close_session(g.session_id)
    response = Response(status=204)
    clear_session_cookie(response, platform.settings)
    return response


@blueprint.get("/api/auth/invitations/<code>")
@public
async def check_invitation(code: str) -> dict[str, object]:
    """Whether an invitation code can be used (for the registration page)."""
    invitation = await current_platform().accounts.check_invitation(code)
    return {"role": invitation.role, "expires_at": invitation.expires_at}


@blueprint.post("/api/auth/register")
@public
@validate_request(RegisterIn)
async def register(data: RegisterIn) -> Response:
    """Create an account with a valid invitation code (used up by this) and sign in."""
    platform = current_platform()
    grant = await platform.accounts.register(
        data.code, data.identity(), ip=client_ip(), user_agent=user_agent()
    )
    response = jsonify({"user": grant.user.to_dict()})
    response.status_code = 201
    set_session_cookie(response, grant, platform.settings)
    return response

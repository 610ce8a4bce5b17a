"""User administration and invitations (administrators); the members of the family and
their avatars (signed-in users)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from quart import Blueprint, Response, request
from quart_schema import validate_request

from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in
from kinbot_web.errors import ApiError
from kinbot_web.images import avatar_response

blueprint = Blueprint("users", __name__)


class UserUpdate(BaseModel):
    role: Literal["admin", "member"] | None = None
    is_active: bool | None = None


class InvitationIn(BaseModel):
    role: Literal["admin", "member"] = "member"
    note: str | None = Field(None, max_length=200)


@blueprint.get("/api/users")
@admin_only
async def list_users() -> dict[str, object]:
    """Every user."""
    users = await current_platform().accounts.list_users()
    return {"users": [user.to_dict() for user in users]}


@blueprint.patch("/api/users/<user_id>")
@admin_only
@validate_request(UserUpdate)
async def update_user(user_id: str, data: UserUpdate) -> dict[str, object]:
    """Change a user's role or disable them; lowering or disabling ends their sessions now."""
    user = await current_platform().accounts.update_user(
        user_id, role=data.role, is_active=data.is_active
    )
    return {"user": user.to_dict()}


@blueprint.delete("/api/users/<user_id>")
@admin_only
async def delete_user(user_id: str) -> Response:
    """Remove a user (not oneself, not the last administrator)."""
    if user_id == current_user().id:
        raise ApiError(409, "cannot_remove_self", "You cannot remove your own account.")
    await current_platform().accounts.delete_user(user_id)
    return Response(status=204)


@blueprint.get("/api/members")
@signed_in
async def list_members() -> dict[str, object]:
    """Who speaks in the chats: every user's id, display name and avatar URL, nothing more (no
    e-mail, role or state), for any signed-in user of this instance."""
    users = await current_platform().accounts.list_users()
    return {
        "members": [
            {
                "id": user.id,
                "display_name": user.pseudonym or user.first_name,
                "avatar_url": user.to_dict()["avatar_url"],
            }
            for user in users
        ]
    }


@blueprint.get("/api/users/<user_id>/avatar")
@signed_in
async def avatar(user_id: str) -> Response:
    """A user's avatar image (signed-in users only)."""
    accounts = current_platform().accounts
    user = await accounts.get(user_id)
    if user.avatar is None:
        raise ApiError(404, "not_found", "This user has no avatar.")
    return await avatar_response(accounts.avatars.path(user.avatar))


@blueprint.get("/api/invitations")
@admin_only
async def list_invitations() -> dict[str, object]:
    """Every invitation with its status (pending, used, revoked, expired); never the codes."""
    invitations = await current_platform().accounts.list_invitations()
    return {"invitations": [invitation.to_dict() for invitation in invitations]}


@blueprint.post("/api/invitations")
@admin_only
@validate_request(InvitationIn)
async def create_invitation(data: InvitationIn) -> tuple[dict[str, object], int]:
    """A one-time, expiring invitation. The code and link are shown in this answer only."""
    invitation, code = await current_platform().accounts.create_invitation(
        current_user().id, role=data.role, note=data.note
    )
    link = f"{request.host_url.rstrip('/')}/invite/{code}"
    return {"invitation": invitation.to_dict(), "code": code, "link": link}, 201


@blueprint.delete("/api/invitations/<invitation_id>")
@admin_only
async def revoke_invitation(invitation_id: str) -> dict[str, object]:
    """Revoke an unused invitation."""
    invitation = await current_platform().accounts.revoke_invitation(invitation_id)
    return {"invitation": invitation.to_dict()}

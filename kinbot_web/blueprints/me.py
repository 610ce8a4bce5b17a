"""``/api/me``: the signed-in user's own account."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, Field, model_validator
from quart import Blueprint, Response, g, jsonify
from quart_schema import DataSource, document_request, validate_request

from kinbot_core.accounts import AccountView
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.auth.session import client_ip, set_session_cookie, user_agent
from kinbot_web.blueprints.schemas import AvatarIn
from kinbot_web.images import uploaded_avatar

blueprint = Blueprint("me", __name__)


class PasswordChange(BaseModel):
    current: str = Field(min_length=1, max_length=256)
    new: str = Field(min_length=1, max_length=256)
    confirmation: str = Field(max_length=256)

    @model_validator(mode="after")
    def _confirmed(self) -> Self:
        if self.new != self.confirmation:
            raise ValueError("confirmation does not match the new password")
        return self


class ProfileIn(BaseModel):
    first_name: str | None = Field(None, min_length=1, max_length=100)
    last_name: str | None = Field(None, min_length=1, max_length=100)
    pseudonym: str | None = Field(None, min_length=1, max_length=50)
    language: Literal["en", "fr"] | None = None
    password: PasswordChange | None = None


def _me(user: AccountView) -> dict[str, object]:
    return {"user": user.to_dict()}


@blueprint.get("/api/me")
@signed_in
async def get_me() -> dict[str, object]:
    """The signed-in user's account."""
    return _me(current_user())


@blueprint.patch("/api/me")
@signed_in
@validate_request(ProfileIn)
async def update_me(data: ProfileIn) -> Response:
    """Change names, pseudonym, language and/or password (with the current password).

    A password change ends every session of the user; this browser gets a fresh one.
    """
    platform = current_platform()
    user = current_user()
    changes = data.model_dump(exclude_unset=True, exclude={"password"})
    changes = {key: value.strip() if isinstance(value, str) else value
               for key, value in changes.items() if value is not None}  # fmt: skip
    grant = None
    if data.password is not None:
        grant = await platform.accounts.change_password(
            user.id,
            data.password.current,
            data.password.new,
            ip=client_ip(),
            user_agent=user_agent(),
        )
        g.session_id = grant.session_id
    updated = await platform.accounts.update_profile(user.id, changes)
    response = jsonify(_me(updated))
    if grant is not None:
        set_session_cookie(response, grant, platform.settings)
    return response


@blueprint.put("/api/me/avatar")
@signed_in
@document_request(AvatarIn, source=DataSource.FORM_MULTIPART)
async def upload_avatar() -> dict[str, object]:
    """Upload an avatar (multipart field ``avatar``: PNG, JPEG, WebP or GIF)."""
    data = await uploaded_avatar(current_platform().settings.avatar_max_bytes)
    updated = await current_platform().accounts.set_avatar(current_user().id, data)
    return _me(updated)


@blueprint.delete("/api/me/avatar")
@signed_in
async def delete_avatar() -> dict[str, object]:
    """Remove the avatar."""
    return _me(await current_platform().accounts.remove_avatar(current_user().id))

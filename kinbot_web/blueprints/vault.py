"""``/api/vault``: the Vault's secrets, for administrators only.

Values are accepted (on creation and change) and never returned: every response carries the
key, the description and dates, with ``value`` masked. Kins read values through their
``get_secret`` tool, never through the API.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.vault import SecretKeyTaken, SecretNotFound, VaultError
from kinbot_core.vault.rules import MAX_DESCRIPTION_LENGTH, MAX_KEY_LENGTH, MAX_VALUE_LENGTH
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user
from kinbot_web.errors import error_response

blueprint = Blueprint("vault", __name__)


class SecretIn(BaseModel):
    key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH)
    value: str = Field(min_length=1, max_length=MAX_VALUE_LENGTH)
    description: str = Field("", max_length=MAX_DESCRIPTION_LENGTH)


class SecretUpdate(BaseModel):
    #: A new name for the secret.
    key: str | None = Field(None, min_length=1, max_length=MAX_KEY_LENGTH)
    #: A new value; left out (or null), the value stays.
    value: str | None = Field(None, min_length=1, max_length=MAX_VALUE_LENGTH)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_LENGTH)


@blueprint.errorhandler(VaultError)
async def vault_error(exc: VaultError) -> Response:
    if isinstance(exc, SecretNotFound):
        status = 404
    elif isinstance(exc, SecretKeyTaken):
        status = 409
    else:
        status = 400
    return error_response(status, exc.code, exc.message)


@blueprint.get("/api/vault")
@admin_only
async def list_secrets() -> dict[str, object]:
    """Every secret, by key (values masked)."""
    secrets = await current_platform().vault.list_all()
    unreadable = sum(1 for secret in secrets if not secret.readable)
    return {"secrets": [secret.to_dict() for secret in secrets], "unreadable": unreadable}


@blueprint.post("/api/vault")
@admin_only
@validate_request(SecretIn)
async def create_secret(data: SecretIn) -> tuple[dict[str, object], int]:
    """Store a new secret, encrypted; the answer does not echo the value."""
    secret = await current_platform().vault.create(
        data.key, data.value, data.description, created_by=current_user().id
    )
    return {"secret": secret.to_dict()}, 201


@blueprint.get("/api/vault/<key>")
@admin_only
async def get_secret(key: str) -> dict[str, object]:
    """One secret (value masked)."""
    return {"secret": (await current_platform().vault.get(key)).to_dict()}


@blueprint.patch("/api/vault/<key>")
@admin_only
@validate_request(SecretUpdate)
async def update_secret(key: str, data: SecretUpdate) -> dict[str, object]:
    """Rename a secret, replace its value or change its description."""
    secret = await current_platform().vault.update(
        key,
        new_key=data.key,
        value=data.value,
        description=data.description,
        user_id=current_user().id,
    )
    return {"secret": secret.to_dict()}


@blueprint.delete("/api/vault/<key>")
@admin_only
async def delete_secret(key: str) -> Response:
    """Remove a secret."""
    await current_platform().vault.delete(key, user_id=current_user().id)
    return Response(status=204)

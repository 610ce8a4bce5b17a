"""``/api/channels``: messaging channel connections, pairings and linked accounts
(administrators); ``/api/me/channel-identities``: a person's own linked accounts.

A connection's secrets are accepted and never returned (``{"set": true}`` in their place).
A pairing's code is never shown again: a person enters the code they were sent, an
administrator links a pending pairing by its id. A member sees and removes only their own
linked accounts. A Kin's reply that could not be delivered back to its channel may be sent
again by the person it was for or an administrator.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.channels.connections import MAX_BOUND_KINS, MAX_LABEL_LENGTH, ChannelsError
from kinbot_core.channels.identity_records import PairingAttemptsExceeded
from kinbot_core.channels.types import ChannelType
from kinbot_core.channels.undelivered import MessageNotFound
from kinbot_core.db.models import ChannelBindingRecord, ContactRecord
from kinbot_core.schema_settings import SchemaSettings
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in
from kinbot_web.blueprints.schemas import row_id_in_path
from kinbot_web.errors import error_response

blueprint = Blueprint("channels", __name__)

_ID = Field(min_length=1, max_length=64)


class ChannelIn(BaseModel):
    type: str = Field(min_length=1, max_length=64)
    label: str = Field(min_length=1, max_length=MAX_LABEL_LENGTH)
    #: The values of the type's settings model (see ``GET /api/channels/types``).
    settings: dict[str, Any] = Field(default_factory=dict)
    kin_ids: list[str] = Field(min_length=1, max_length=MAX_BOUND_KINS)
    enabled: bool = True


class ChannelUpdate(BaseModel):
    label: str | None = Field(None, min_length=1, max_length=MAX_LABEL_LENGTH)
    #: Changed values only; a secret left out, empty or ``{"set": true}`` keeps its value.
    settings: dict[str, Any] | None = None
    kin_ids: list[str] | None = Field(None, min_length=1, max_length=MAX_BOUND_KINS)
    enabled: bool | None = None


class PairingLink(BaseModel):
    #: Link to this user…
    user_id: str | None = Field(None, min_length=1, max_length=64)
    #: …or to a contact of this Kin (a new one, named after the sender, without contact_id).
    kin_id: str | None = Field(None, min_length=1, max_length=64)
    contact_id: str | None = Field(None, min_length=1, max_length=64)


class PairingCode(BaseModel):
    code: str = Field(min_length=1, max_length=32)


@blueprint.errorhandler(ChannelsError)
async def channels_error(exc: ChannelsError) -> Response:
    if isinstance(exc, PairingAttemptsExceeded):
        response = error_response(
            exc.status, exc.code, exc.message, retry_after=round(exc.retry_after)
        )
        response.headers["Retry-After"] = str(max(round(exc.retry_after), 1))
        return response
    return error_response(exc.status, exc.code, exc.message)


def _type_info(channel_type: ChannelType, plugin: str) -> dict[str, Any]:
    return {
        "name": channel_type.name,
        "label": channel_type.label,
        "plugin": plugin,
        "max_message_length": channel_type.max_message_length,
        "settings_schema": SchemaSettings(channel_type.settings_model).form_schema(),
    }


# -- administrators: connections ----------------------------------------------------------


@blueprint.get("/api/channels/types")
@admin_only
async def list_channel_types() -> dict[str, object]:
    """The channel types the enabled plugins provide, with their settings' JSON Schema."""
    registry = current_platform().registries.channels
    return {"types": [_type_info(entry.item, entry.plugin) for entry in registry.entries()]}


@blueprint.get("/api/channels")
@admin_only
async def list_channels() -> dict[str, object]:
    """Every configured connection (secrets shown as set or not), with its state."""
    views = await current_platform().channels.connections.list_all()
    return {"channels": [view.to_dict() for view in views]}


@blueprint.post("/api/channels")
@admin_only
@validate_request(ChannelIn)
async def create_channel(data: ChannelIn) -> tuple[dict[str, object], int]:
    """Configure a connection; it starts at once when enabled."""
    runtime = current_platform().channels
    view = await runtime.connections.create(
        data.type, data.label, data.settings, data.kin_ids, enabled=data.enabled
    )
    await runtime.refresh(view.id)
    return {"channel": (await runtime.connections.get(view.id)).to_dict()}, 201


@blueprint.get("/api/channels/<channel_id>")
@admin_only
async def get_channel(channel_id: str) -> dict[str, object]:
    """One connection."""
    view = await current_platform().channels.connections.get(channel_id)
    return {"channel": view.to_dict()}


@blueprint.patch("/api/channels/<channel_id>")
@admin_only
@validate_request(ChannelUpdate)
async def update_channel(channel_id: str, data: ChannelUpdate) -> dict[str, object]:
    """Change a connection; it starts again with what changed."""
    runtime = current_platform().channels
    await runtime.connections.update(
        channel_id,
        label=data.label,
        settings=data.settings,
        kin_ids=data.kin_ids,
        enabled=data.enabled,
    )
    await runtime.refresh(channel_id)
    return {"channel": (await runtime.connections.get(channel_id)).to_dict()}


@blueprint.delete("/api/channels/<channel_id>")
@admin_only
async def delete_channel(channel_id: str) -> Response:
    """Stop and remove a connection, with its linked accounts and pending pairings."""
    await current_platform().channels.remove(channel_id)
    return Response(status=204)


@blueprint.get("/api/channels/<channel_id>/contacts")
@admin_only
async def list_channel_contacts(channel_id: str) -> dict[str, object]:
    """The people in the contacts of the Kins a connection talks to (to link a pairing)."""
    platform = current_platform()
    await platform.channels.connections.get(channel_id)

    def load() -> list[dict[str, str]]:
        kins = ChannelBindingRecord.select(ChannelBindingRecord.kin).where(
            ChannelBindingRecord.connection == channel_id
        )
        query = (
            ContactRecord.select()
            .where(ContactRecord.kin.in_(kins) & (ContactRecord.type == "human"))
            .order_by(ContactRecord.name)
        )
        return [{"id": c.id, "name": c.name, "kin_id": c.__data__["kin"]} for c in query]

    return {"contacts": await platform.db.read(load)}


# -- administrators: pairings and linked accounts -------------------------------------------


@blueprint.get("/api/channels/pairings")
@admin_only
async def list_pairings() -> dict[str, object]:
    """Senders waiting to be linked (their codes are never shown)."""
    pairings = await current_platform().channels.identities.pending()
    return {"pairings": [pairing.to_dict() for pairing in pairings]}


@blueprint.post("/api/channels/pairings/<pairing_id>/link")
@admin_only
@validate_request(PairingLink)
async def link_pairing(pairing_id: str, data: PairingLink) -> tuple[dict[str, object], int]:
    """Link a waiting sender to a user, or to a contact of a Kin the connection talks to;
    the sender is told in their chat."""
    runtime = current_platform().channels
    link = await runtime.identities.link_pairing(
        pairing_id,
        by=current_user().id,
        user_id=data.user_id,
        kin_id=data.kin_id,
        contact_id=data.contact_id,
    )
    await runtime.announce_link(link)
    return {"identity": link.identity.to_dict()}, 201


@blueprint.delete("/api/channels/pairings/<pairing_id>")
@admin_only
async def dismiss_pairing(pairing_id: str) -> Response:
    """Forget a waiting sender (their code stops working)."""
    await current_platform().channels.identities.dismiss(pairing_id)
    return Response(status=204)


@blueprint.get("/api/channels/identities")
@admin_only
async def list_identities() -> dict[str, object]:
    """Every linked account."""
    identities = await current_platform().channels.identities.identities()
    return {"identities": [identity.to_dict() for identity in identities]}


@blueprint.delete("/api/channels/identities/<identity_id>")
@admin_only
async def unlink_identity(identity_id: str) -> Response:
    """Remove anyone's linked account: its messages reach no Kin any more."""
    await current_platform().channels.identities.unlink(identity_id)
    return Response(status=204)


# -- everyone: their own linked accounts -----------------------------------------------------


@blueprint.get("/api/me/channel-identities")
@signed_in
async def my_identities() -> dict[str, object]:
    """The signed-in person's linked messaging accounts."""
    identities = await current_platform().channels.identities.identities(user_id=current_user().id)
    return {"identities": [identity.to_dict() for identity in identities]}


@blueprint.post("/api/me/channel-identities")
@signed_in
@validate_request(PairingCode)
async def link_my_identity(data: PairingCode) -> tuple[dict[str, object], int]:
    """Link the messaging account a pairing code was sent to with oneself; the account is
    told in its chat. 400 ``pairing_code_invalid`` for a wrong, used or expired code; 429
    after too many wrong ones."""
    runtime = current_platform().channels
    link = await runtime.identities.redeem(data.code, current_user().id)
    await runtime.announce_link(link)
    return {"identity": link.identity.to_dict()}, 201


@blueprint.delete("/api/me/channel-identities/<identity_id>")
@signed_in
async def unlink_my_identity(identity_id: str) -> Response:
    """Remove one of one's own linked accounts (another's answers 404)."""
    await current_platform().channels.identities.unlink(identity_id, user_id=current_user().id)
    return Response(status=204)


# -- everyone who may see the Kin: a reply that was not delivered ---------------------------


@blueprint.post("/api/kins/<kin_id>/messages/<message_id>/redeliver")
@signed_in
async def redeliver_reply(kin_id: str, message_id: str) -> dict[str, object]:
    """Send again a Kin's reply that could not be delivered to the channel it answers
    (``meta.undelivered``): for the person it was for, or an administrator (403
    ``forbidden`` for others); 409 ``delivery_not_failed`` when it is not undelivered (sent
    meanwhile, or queued again already)."""
    user = current_user()
    await current_platform().kins.get(kin_id)
    number = row_id_in_path(message_id)
    if number is None:
        raise MessageNotFound("No such message.")
    reply = await current_platform().channels.deliveries.redeliver(
        kin_id, number, user_id=user.id, admin=user.is_admin
    )
    return {"message": reply.to_dict()}

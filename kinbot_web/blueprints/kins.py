"""``/api/kins``: the shared squad of Kins, their sessions and their queues."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints
from quart import Blueprint, Response
from quart_schema import DataSource, document_request, validate_querystring, validate_request

from kinbot_core.kins.history_window import messages_after, messages_around
from kinbot_core.kins.replies import retry_last_turn
from kinbot_core.vault import SecretKeyTaken, VaultError
from kinbot_core.vault.pending import (
    PendingSecretError,
    PendingSecretForbidden,
    PendingSecretNotFound,
)
from kinbot_core.vault.rules import MAX_DESCRIPTION_LENGTH, MAX_KEY_LENGTH
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.blueprints.memory_marks import with_usage
from kinbot_web.blueprints.schemas import AvatarIn, Identifier, RowId, SqlInt, row_id_in_path
from kinbot_web.blueprints.uploads import attachment_references, upload_store
from kinbot_web.errors import ApiError, error_response
from kinbot_web.images import avatar_response, uploaded_avatar
from kinbot_web.kin_guard import usable

blueprint = Blueprint("kins", __name__)


#: A tool's name, as providers accept them (``web_search``, ``time__get_current_time``).
ToolName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")]


class KinIn(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    role: str = Field("", max_length=200)
    character: str = Field("", max_length=20_000)
    expertise: str = Field("", max_length=20_000)
    model: str = Field(min_length=1, max_length=200)
    #: The only tools the Kin is offered; empty: all of them.
    tools: list[ToolName] = Field(default_factory=list, max_length=200)


class KinUpdate(BaseModel):
    name: str | None = Field(None, min_length=1, max_length=80)
    role: str | None = Field(None, max_length=200)
    character: str | None = Field(None, max_length=20_000)
    expertise: str | None = Field(None, max_length=20_000)
    model: str | None = Field(None, min_length=1, max_length=200)
    tools: list[ToolName] | None = Field(None, max_length=200)
    #: The model that extracts the Kin's memories; empty: the platform's choice.
    memory_extraction_model: str | None = Field(None, max_length=200)
    #: The model that writes the Kin's compacting summaries; empty: the platform's choice.
    compacting_model: str | None = Field(None, max_length=200)
    #: Whether the Kin's own code may reach the network (admins and its creator only).
    network_access: bool | None = None


class MessageIn(BaseModel):
    content: str = Field("", max_length=100_000)
    #: Ids of files uploaded with ``POST /api/kins/<id>/uploads``.
    attachments: list[Identifier] = Field(default_factory=list, max_length=10)


class MessagesQuery(BaseModel):
    #: A message id: the page ends just before it.
    before: RowId | None = None
    #: A message id: the page starts just after it.
    after: RowId | None = None
    #: A message id: the page has it in the middle.
    around: RowId | None = None
    #: Messages in the page (1 to 200).
    limit: SqlInt = 50


class MemoriesQuery(BaseModel):
    q: str = Field("", max_length=1000)
    subject: str = Field("", max_length=200)
    category: str = Field("", max_length=100)


class PendingSecretIn(BaseModel):
    #: The Vault key to store it under (a new one).
    key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH)
    description: str = Field("", max_length=MAX_DESCRIPTION_LENGTH)


@blueprint.errorhandler(PendingSecretError)
async def pending_secret_error(exc: PendingSecretError) -> Response:
    if isinstance(exc, PendingSecretNotFound):
        status = 404
    elif isinstance(exc, PendingSecretForbidden):
        status = 403
    else:
        status = 400
    return error_response(status, exc.code, exc.message)


@blueprint.errorhandler(VaultError)
async def vault_error(exc: VaultError) -> Response:
    return error_response(409 if isinstance(exc, SecretKeyTaken) else 400, exc.code, exc.message)


async def _admin_or_creator(kin_id: str) -> bool:
    """Whether the signed-in person is an administrator or created the Kin (404 for a Kin
    that does not exist)."""
    user = current_user()
    kin = await current_platform().kins.get(kin_id)
    return user.is_admin or (kin.created_by is not None and kin.created_by == user.id)


@blueprint.get("/api/kins")
@signed_in
async def list_kins() -> dict[str, object]:
    """Every Kin the signed-in user may use, with its state and queue length."""
    platform = current_platform()
    queues = await platform.kins.queue_lengths()
    kins = usable(current_user(), await platform.kins.list_all(), lambda kin: kin.id)
    return {"kins": [kin.to_dict(queues.get(kin.id, 0)) for kin in kins]}


@blueprint.post("/api/kins")
@signed_in
@validate_request(KinIn)
async def create_kin(data: KinIn) -> tuple[dict[str, object], int]:
    """Create a Kin; its model must resolve to a configured provider."""
    kin = await current_platform().kins.create(data.model_dump(), created_by=current_user().id)
    return {"kin": kin.to_dict()}, 201


@blueprint.get("/api/kins/<kin_id>")
@signed_in
async def get_kin(kin_id: str) -> dict[str, object]:
    """One Kin."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    queues = await platform.kins.queue_lengths()
    return {"kin": kin.to_dict(queues.get(kin_id, 0))}


@blueprint.patch("/api/kins/<kin_id>")
@signed_in
@validate_request(KinUpdate)
async def update_kin(kin_id: str, data: KinUpdate) -> dict[str, object]:
    """Change a Kin's name, role, character, expertise, model, tools or memory extraction
    model; its ``network_access`` only for an administrator or the user who created it."""
    changes = data.model_dump(exclude_unset=True, exclude_none=True)
    platform = current_platform()
    if "network_access" in changes and not await _admin_or_creator(kin_id):
        raise ApiError(403, "forbidden", "Only an administrator or its creator can change this.")
    kin = await platform.kins.update(kin_id, changes)
    return {"kin": kin.to_dict()}


@blueprint.delete("/api/kins/<kin_id>")
@signed_in
async def delete_kin(kin_id: str) -> Response:
    """Delete a Kin and its session (and the sub-Kins working for it or as it), with the
    files uploaded into its chat: an administrator, or the person who created it (403
    ``kin_delete_forbidden`` for anyone else)."""
    if not await _admin_or_creator(kin_id):
        raise ApiError(
            403,
            "kin_delete_forbidden",
            "Only an administrator or the person who created this Kin can delete it.",
        )
    platform = current_platform()
    uploads = upload_store()
    uploaded = await uploads.ids_of(kin_id)
    hidden = await platform.kins.delete(kin_id)
    for removed in (kin_id, *hidden):
        await platform.workers.forget(removed)
    await uploads.remove_files(uploaded)
    return Response(status=204)


@blueprint.put("/api/kins/<kin_id>/avatar")
@signed_in
@document_request(AvatarIn, source=DataSource.FORM_MULTIPART)
async def upload_avatar(kin_id: str) -> dict[str, object]:
    """Upload the Kin's avatar (multipart field ``avatar``: PNG, JPEG, WebP or GIF)."""
    platform = current_platform()
    data = await uploaded_avatar(platform.settings.avatar_max_bytes)
    kin = await platform.kins.set_avatar(kin_id, platform.accounts.avatars, data)
    return {"kin": kin.to_dict()}


@blueprint.get("/api/kins/<kin_id>/avatar")
@signed_in
async def avatar(kin_id: str) -> Response:
    """The Kin's avatar image (signed-in users only)."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    if kin.avatar is None:
        raise ApiError(404, "not_found", "This Kin has no avatar.")
    return await avatar_response(platform.accounts.avatars.path(kin.avatar))


@blueprint.get("/api/kins/<kin_id>/messages")
@signed_in
@validate_querystring(MessagesQuery)
async def list_messages(kin_id: str, query_args: MessagesQuery) -> dict[str, object]:
    """A page of the session, oldest first: ``?before=<message id>&limit=50``. The latest
    page (no ``before``) also gives the running turn's ``draft``: the text it has streamed and
    the tool calls it is running, not stored yet (``null`` when the Kin is idle).
    ``?after=<id>`` pages forward and ``?around=<id>`` gives the page with that message in the
    middle; both say where to go on with ``next_before`` and ``next_after``."""
    before, limit = query_args.before, min(max(query_args.limit, 1), 200)
    platform = current_platform()
    anchors = [query_args.before, query_args.after, query_args.around]
    if sum(anchor is not None for anchor in anchors) > 1:
        raise ApiError(400, "invalid_request", "Give at most one of before, after and around.")
    if query_args.after is not None or query_args.around is not None:
        await platform.kins.get(kin_id, include_tasks=True)
        if query_args.around is not None:
            window = await messages_around(platform.db, kin_id, query_args.around, limit)
        else:
            window = await messages_after(platform.db, kin_id, query_args.after or 0, limit)
        shown = window.messages
        return {
            "messages": [m.to_dict() for m in shown],
            "next_before": shown[0].id if shown and window.more_before else None,
            "next_after": shown[-1].id if shown and window.more_after else None,
        }
    # Read before the messages: a reply stored in between supersedes it (the browser checks).
    draft = platform.workers.draft(kin_id) if before is None else None
    messages = await platform.kins.messages(kin_id, before=before, limit=limit)
    page: dict[str, object] = {
        "messages": [m.to_dict() for m in messages],
        "next_before": messages[0].id if len(messages) == limit else None,
    }
    if before is None:
        page["draft"] = draft
    return page


@blueprint.post("/api/kins/<kin_id>/messages")
@signed_in
@validate_request(MessageIn)
async def send_message(kin_id: str, data: MessageIn) -> tuple[dict[str, object], int]:
    """Queue a message from the signed-in user, with the files it attaches (ids from
    ``POST /api/kins/<id>/uploads``); the reply streams on ``/api/events``. A sub-Kin's
    session is read-only (404 here, as for any unknown Kin)."""
    user = current_user()
    kin = await current_platform().kins.get(kin_id)
    # A spent budget refuses the message before it is queued (the turn checks again).
    await current_platform().usage.refuse_over_budget(kin_id=kin.id, user_id=user.id)
    attached = await attachment_references(kin_id, data.attachments) if data.attachments else None
    message = await current_platform().kins.enqueue(
        kin_id,
        data.content,
        source="user",
        sender_id=user.id,
        sender_name=user.pseudonym,
        attachments=attached,
    )
    return {"message": message.to_dict()}, 202


def _whole(value: str, name: str) -> int:
    """A path's id or number; anything else names nothing (404)."""
    number = row_id_in_path(value)
    if number is None:
        raise ApiError(404, "not_found", f"No such {name}.")
    return number


@blueprint.post("/api/kins/<kin_id>/messages/<message_id>/secrets/<number>/store")
@signed_in
@validate_request(PendingSecretIn)
async def store_pending_secret(
    kin_id: str, message_id: str, number: str, data: PendingSecretIn
) -> tuple[dict[str, object], int]:
    """Store ``[PENDING SECRET <number>]`` of a message (a secret detected on arrival) in the
    Vault under a new key; the message then shows ``[SECRET: KEY]``. For the member who sent
    the message, or an administrator."""
    user = current_user()
    await current_platform().kins.get(kin_id)
    stored = await current_platform().vault.pending.store(
        kin_id,
        _whole(message_id, "message"),
        _whole(number, "hidden secret"),
        data.key,
        data.description,
        user_id=user.id,
        admin=user.is_admin,
    )
    return {"message": stored.message.to_dict(), "secret": stored.secret.to_dict()}, 201


@blueprint.post("/api/kins/<kin_id>/messages/<message_id>/secrets/<number>/dismiss")
@signed_in
async def dismiss_pending_secret(kin_id: str, message_id: str, number: str) -> dict[str, object]:
    """Say ``[PENDING SECRET <number>]`` of a message is not a secret: its text comes back.
    For the member who sent the message, or an administrator."""
    user = current_user()
    await current_platform().kins.get(kin_id)
    message = await current_platform().vault.pending.dismiss(
        kin_id,
        _whole(message_id, "message"),
        _whole(number, "hidden secret"),
        user_id=user.id,
        admin=user.is_admin,
    )
    return {"message": message.to_dict()}


@blueprint.get("/api/kins/<kin_id>/memories")
@signed_in
@validate_querystring(MemoriesQuery)
async def list_memories(kin_id: str, query_args: MemoriesQuery) -> dict[str, object]:
    """The Kin's memories: ``?q=`` searches them (hybrid: those containing its words, and
    those alike in meaning past ``memory_injection_min_score``), else ``?subject=`` and
    ``?category=`` filter the list, newest first."""
    platform = current_platform()
    await platform.kins.get(kin_id)
    query = query_args.q.strip()
    if query:
        # What the Kin would not be given for that query is no match for it either.
        found = await platform.memory.recall(
            kin_id, query, limit=50, min_similarity=platform.settings.memory_injection_min_score
        )
    else:
        found = await platform.memory.memories(
            kin_id, subject=query_args.subject or None, category=query_args.category or None
        )
    return {"memories": with_usage(found, await platform.memory.usage(kin_id))}


@blueprint.get("/api/kins/<kin_id>/memories/embedding")
@signed_in
async def memory_embedding(kin_id: str) -> dict[str, object]:
    """The embedding model in use and how many of the Kin's memories and messages still wait
    to be embedded with it (after a change of model, say)."""
    platform = current_platform()
    await platform.kins.get(kin_id)
    progress = await platform.memory.embedding_progress(kin_id)
    if progress is None:
        raise ApiError(404, "not_found", "The memory backend does not report its embedding.")
    return progress


@blueprint.delete("/api/kins/<kin_id>/memories/<memory_id>")
@signed_in
async def delete_memory(kin_id: str, memory_id: str) -> Response:
    """Delete one of the Kin's memories (from storage and both indexes)."""
    number = row_id_in_path(memory_id)
    if number is None:
        raise ApiError(404, "not_found", "No such memory.")
    platform = current_platform()
    await platform.kins.get(kin_id)
    await platform.memory.forget(kin_id, number)
    return Response(status=204)


@blueprint.post("/api/kins/<kin_id>/retry")
@signed_in
async def retry_reply(kin_id: str) -> tuple[dict[str, object], int]:
    """Answer the last turn's message(s) again: that turn's reply (assistant, tool and error
    messages) is superseded (kept, left out of the Kin's context). 409 ``kin_busy`` while
    the Kin answers or has messages waiting, ``nothing_to_retry`` without a reply."""
    superseded = await retry_last_turn(current_platform(), kin_id)
    return {"superseded": superseded}, 202


@blueprint.post("/api/kins/<kin_id>/stop")
@signed_in
async def stop_turn(kin_id: str) -> dict[str, object]:
    """Stop the Kin's running turn, if any: the text it streamed so far is kept as its
    reply, marked stopped."""
    platform = current_platform()
    await platform.kins.get(kin_id)
    return {"stopped": platform.workers.stop_turn(kin_id, keep_reply=True)}

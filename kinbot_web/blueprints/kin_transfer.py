"""``/api/kins/<id>/export`` and ``/api/kins/import``: one Kin as one file, and back.

Whoever may use a Kin may export it (the file holds what its settings already show them, no
secret); for anyone else it does not exist (404). Any signed-in user may import one, as they
may create a Kin; a Kin that was restricted arrives private to them. See
``kinbot_core.kin_export`` for what the file holds and what an import restores.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field
from quart import Blueprint, Response, request
from quart_schema import DataSource, document_request
from quart_schema.pydantic import File
from werkzeug.exceptions import RequestEntityTooLarge

from kinbot_core.kin_export import KinArchiveError, export_kin, import_kin
from kinbot_core.kins.access import may_use
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.download_names import ascii_file_name, attachment
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("kin_transfer", __name__)

MEDIA_TYPE = "application/zip"


class KinImportIn(BaseModel):
    """A Kin file upload (documents the multipart body; read by the view itself)."""

    #: The file made by ``GET /api/kins/<id>/export``.
    file: File
    #: A model to use instead of the file's (needed when that one is not offered here).
    model: str | None = Field(None, max_length=200)


@blueprint.errorhandler(KinArchiveError)
async def archive_error(exc: KinArchiveError) -> Response:
    return error_response(exc.status, exc.code, exc.message, **exc.params)


def file_name(kin_name: str) -> str:
    """An ASCII file name for the Kin's file (``<name>.kinbot.zip``)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_file_name(kin_name)).strip("-").lower()[:60]
    return f"{slug or 'kin'}.kinbot.zip"


@blueprint.get("/api/kins/<kin_id>/export")
@signed_in
async def export(kin_id: str) -> Response:
    """The Kin as one file (a zip): identity, character, expertise, avatar, memories,
    contacts, crons and custom tools with their scripts; never secrets or the session."""
    platform = current_platform()
    if not await may_use(platform, current_user(), kin_id):
        raise ApiError(404, "not_found", "No such Kin.")
    kin, data = await export_kin(platform, kin_id)
    name = file_name(kin.name)
    response = Response(data, mimetype=MEDIA_TYPE)
    response.headers["Content-Disposition"] = attachment(name)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blueprint.post("/api/kins/import")
@signed_in
@document_request(KinImportIn, source=DataSource.FORM_MULTIPART)
async def import_file() -> tuple[dict[str, object], int]:
    """Create a new Kin from a Kin file (multipart field ``file``, at most
    ``upload_max_bytes``; optional field ``model``). Its crons arrive paused; a taken name
    gets a number. Answers the new Kin and how many of each part arrived."""
    platform = current_platform()
    limit = platform.settings.upload_max_bytes
    too_large = ApiError(
        413, "kin_archive_too_large", "The file is larger than the upload limit.", limit_bytes=limit
    )
    try:
        files = await request.files
        form = await request.form
    except RequestEntityTooLarge:
        raise too_large from None
    sent = files.get("file")
    if sent is None:
        raise ApiError(400, "invalid_request", "Send the Kin file in the multipart field 'file'.")
    data: bytes = sent.read(limit + 1)
    if len(data) > limit:
        raise too_large
    model = (form.get("model") or "").strip()[:200] or None
    imported = await import_kin(platform, data, user=current_user(), model=model)
    return imported.to_dict(), 201

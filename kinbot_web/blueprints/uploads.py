"""``/api/kins/<id>/uploads`` and ``/api/uploads/<id>``: files users attach to their
messages (images, PDFs, documents), checked by their content and served only to signed-in
users."""

from __future__ import annotations

from pydantic import BaseModel
from quart import Blueprint, Response, request, send_file
from quart_schema import DataSource, document_request
from quart_schema.pydantic import File
from werkzeug.exceptions import RequestEntityTooLarge

from kinbot_core.upload_content import UploadError
from kinbot_core.uploads import UploadStore
from kinbot_web.app_context import current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.download_names import attachment
from kinbot_web.errors import ApiError

blueprint = Blueprint("uploads", __name__)

#: Room for the multipart framing around the file itself (the app's body limit adds it).
MULTIPART_SLACK = 4096


class UploadIn(BaseModel):
    """A file upload (documents the multipart body; read by the view itself)."""

    file: File


def upload_store() -> UploadStore:
    """The uploads of the platform serving this request."""
    platform = current_platform()
    return UploadStore(platform.db, platform.settings)


def _api_error(error: UploadError) -> ApiError:
    return ApiError(error.status, error.code, error.message)


async def attachment_references(kin_id: str, upload_ids: list[str]) -> list[dict[str, object]]:
    """What a message to ``kin_id`` keeps of the uploads it attaches (400 if one is not an
    upload into this Kin's chat)."""
    try:
        return await upload_store().references(kin_id, upload_ids)
    except UploadError as error:
        raise _api_error(error) from None


@blueprint.post("/api/kins/<kin_id>/uploads")
@signed_in
@document_request(UploadIn, source=DataSource.FORM_MULTIPART)
async def upload(kin_id: str) -> tuple[dict[str, object], int]:
    """Upload a file into the Kin's chat (multipart field ``file``): an image (PNG, JPEG,
    WebP, GIF), a PDF or a document (.txt, .md, .csv, .docx), at most ``upload_max_bytes``,
    its content matching its name. Attach it to a message with its ``id``."""
    platform = current_platform()
    await platform.kins.get(kin_id)
    limit = platform.settings.upload_max_bytes
    too_large = ApiError(
        413,
        "upload_too_large",
        f"The file is larger than the upload limit of {limit} bytes.",
        limit_bytes=limit,
    )
    try:
        files = await request.files
    except RequestEntityTooLarge:
        raise too_large from None
    sent = files.get("file")
    if sent is None:
        raise ApiError(400, "invalid_request", "Send the file in the multipart field 'file'.")
    data: bytes = sent.read(limit + 1)
    if len(data) > limit:
        raise too_large
    try:
        stored = await upload_store().save(kin_id, current_user().id, sent.filename, data)
    except UploadError as error:
        raise _api_error(error) from None
    return {"upload": stored.to_dict()}, 201


@blueprint.get("/api/uploads/<upload_id>")
@signed_in
async def uploaded_file(upload_id: str) -> Response:
    """An uploaded file (signed-in users only): images inline, other files as downloads."""
    store = upload_store()
    try:
        stored = await store.get(upload_id)
    except UploadError as error:
        raise _api_error(error) from None
    response = await send_file(store.path(stored.id), mimetype=stored.mime_type)
    if stored.kind != "image":
        response.headers["Content-Disposition"] = attachment(stored.filename)
    response.headers["Cache-Control"] = "private, max-age=3600"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response

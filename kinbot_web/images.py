"""Serving and receiving the avatar images of users and Kins."""

from __future__ import annotations

from pathlib import Path

from quart import Response, request, send_file

from kinbot_web.errors import ApiError


async def avatar_response(path: Path) -> Response:
    """A stored avatar (always WebP, re-encoded on upload), private to signed-in browsers."""
    response = await send_file(path, mimetype="image/webp")
    response.headers["Cache-Control"] = "private, max-age=3600"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


async def uploaded_avatar(limit: int) -> bytes:
    """The bytes of the multipart field ``avatar`` (one byte past ``limit`` at most, so that
    an oversized image is refused without reading all of it)."""
    upload = (await request.files).get("avatar")
    if upload is None:
        raise ApiError(400, "invalid_request", "Send the image in the multipart field 'avatar'.")
    data: bytes = upload.read(limit + 1)
    return data

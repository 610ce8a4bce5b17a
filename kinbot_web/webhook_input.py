"""The body of a request to an inbound webhook: read within the webhook's limit (refused as
soon as it is known to be larger), then turned into the text of a message by its content type
(JSON, a URL-encoded form, or text)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qsl

from quart import request
from werkzeug.exceptions import RequestTimeout

from kinbot_core.webhooks import render_form, render_json, render_text
from kinbot_web.errors import ApiError
from kinbot_web.request_input import parse_json_body

#: Character sets a text body may declare (UTF-8 when it declares none).
TEXT_CHARSETS = {
    "utf-8": "utf-8",
    "utf8": "utf-8",
    "us-ascii": "ascii",
    "ascii": "ascii",
    "iso-8859-1": "latin-1",
    "latin-1": "latin-1",
    "latin1": "latin-1",
    "windows-1252": "cp1252",
    "cp1252": "cp1252",
}
FORM = "application/x-www-form-urlencoded"
#: Most fields a form body may have.
FORM_MAX_FIELDS = 1000


def too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        "body_too_large",
        f"This webhook accepts bodies of {limit} bytes at most.",
        limit_bytes=limit,
    )


async def read_body(limit: int) -> bytes:
    """The request's body, or 413 ``body_too_large``: at once when its declared length is
    over ``limit``, else as soon as what has arrived is."""
    declared = request.content_length
    if declared is not None and declared > limit:
        raise too_large(limit)
    received = bytearray()
    try:
        async with asyncio.timeout(request.body_timeout):
            async for chunk in request.body:
                received += chunk
                if len(received) > limit:
                    raise too_large(limit)
    except TimeoutError:
        raise RequestTimeout() from None
    return bytes(received)


def media_type(content_type: str | None) -> tuple[str, dict[str, str]]:
    """The media type of a ``Content-Type`` value, lower case, and its parameters."""
    if not content_type:
        return "", {}
    kind, *rest = content_type.split(";")
    parameters = {}
    for parameter in rest:
        name, _, value = parameter.partition("=")
        parameters[name.strip().lower()] = value.strip().strip('"').lower()
    return kind.strip().lower(), parameters


def _unsupported(kind: str) -> ApiError:
    return ApiError(
        415,
        "webhook_unsupported_type",
        f"A webhook takes JSON, a URL-encoded form or text, not {kind[:100]}.",
    )


def _invalid(message: str) -> ApiError:
    return ApiError(400, "webhook_body_invalid", message)


def _decoded(body: bytes, charset: str) -> str:
    codec = TEXT_CHARSETS.get(charset)
    if codec is None:
        raise _unsupported(f"the character set {charset}")
    try:
        return body.decode(codec)
    except UnicodeDecodeError as error:
        raise _invalid(f"The body is not valid {charset} (byte {error.start}).") from None


def message_text(body: bytes, content_type: str | None) -> str:
    """What the Kin reads of a webhook's body: JSON rendered as readable text, a form's fields
    one a line, text as it is (``kinbot_core.webhooks.rendering``). 415
    ``webhook_unsupported_type`` for another content type, 400 ``invalid_json`` or
    ``webhook_body_invalid`` for a body that does not parse, 400 ``webhook_body_empty`` when
    nothing is left to say."""
    kind, parameters = media_type(content_type)
    if kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json")):
        text = render_json(parse_json_body(body, max_bytes=len(body)))
    elif kind == FORM:
        try:
            fields = parse_qsl(
                _decoded(body, "utf-8"),
                keep_blank_values=True,
                errors="strict",
                max_num_fields=FORM_MAX_FIELDS,
            )
        except ValueError as error:  # bad percent-encoded UTF-8, too many fields
            raise _invalid(f"The form cannot be read: {error}.") from None
        text = render_form(fields)
    elif kind == "" or kind.startswith("text/"):
        text = render_text(_decoded(body, parameters.get("charset", "utf-8")))
    else:
        raise _unsupported(kind)
    if not text.strip():
        raise ApiError(400, "webhook_body_empty", "The body has nothing to say.")
    return text

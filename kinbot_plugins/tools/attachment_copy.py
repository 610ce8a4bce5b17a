"""``save_attachment(file, path?)``: a file a member attached in the chat, copied into the
Kin's workspace so its code can work on it.

The model sees an attachment as ``[Attached file: <name>]`` (or ``[Attached image: …]``), so
``file`` is that name (the latest attachment of that name) or the upload's id. Only files
attached in the chat of the Kin whose workspace it is (for a sub-Kin, the Kin it is an
instance of) can be copied; the copy is written like a download (``workspace_output``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from kinbot_core.db.models import UploadRecord
from kinbot_core.tools import FunctionTool, ToolContext, ToolError, object_schema, required_text
from kinbot_core.uploads import UploadStore
from kinbot_plugins.tools.workspace_output import StagedFile, open_destination
from kinbot_plugins.tools.workspace_paths import confined, relative_name, workspace_of

#: Where an attachment goes when no path is given.
DEFAULT_FOLDER = "attachments"
#: Names listed when the file asked for is not found.
LISTED_NAMES = 20
CHUNK = 1024 * 1024


def _find(kin_id: str, wanted: str) -> tuple[UploadRecord | None, list[str]]:
    """The upload of ``kin_id``'s chat with this id, or the latest with this file name; and
    the names of the latest uploads (to say what there is when none matches)."""
    mine = UploadRecord.kin == kin_id
    match = (
        UploadRecord.select()
        .where(mine & ((UploadRecord.id == wanted) | (UploadRecord.filename == wanted)))
        .order_by(UploadRecord.created_at.desc())
        .first()
    )
    if match is not None:
        return match, []
    latest = (
        UploadRecord.select(UploadRecord.filename)
        .where(mine)
        .order_by(UploadRecord.created_at.desc())
        .limit(LISTED_NAMES)
    )
    return None, list(dict.fromkeys(row.filename for row in latest))


def _copy(source: Path, root: Path, target: Path) -> int:
    folder = open_destination(root, target)
    try:
        staged = StagedFile(folder, target.name)
        try:
            size = 0
            with open(source, "rb") as original:
                while chunk := original.read(CHUNK):
                    staged.write(chunk)
                    size += len(chunk)
            staged.publish()
        except BaseException:
            staged.discard()
            raise
        return size
    finally:
        os.close(folder)


async def _save_attachment(context: ToolContext, arguments: dict[str, Any]) -> Any:
    wanted = required_text(arguments, "file")
    platform = context.platform
    upload, names = await platform.db.read(_find, context.owner_id, wanted)
    if upload is None:
        there = ", ".join(f"'{name}'" for name in names) if names else "none"
        raise ToolError(f"No file '{wanted}' was attached in your chat (attached: {there}).")
    root = await workspace_of(context)
    path = arguments.get("path") or f"{DEFAULT_FOLDER}/{upload.filename}"
    target = confined(root, path)
    source = UploadStore(platform.db, platform.settings).path(upload.id)
    try:
        size = await asyncio.to_thread(_copy, source, root, target)
    except FileNotFoundError:
        raise ToolError(f"The file '{upload.filename}' is no longer available.") from None
    except OSError as error:
        raise ToolError(f"Could not save the file: {error.strerror}.") from None
    return {"path": relative_name(root, target), "size": size, "mime_type": upload.mime_type}


SAVE_ATTACHMENT = FunctionTool(
    "save_attachment",
    "Copy a file attached in your chat (an image, PDF or document a member sent) into your "
    "workspace, so your scripts can work on it. 'file' is its name as shown in the "
    "conversation (the latest one of that name) or its upload id. Returns the path, size "
    "and type.",
    object_schema(
        {
            "file": {"type": "string", "description": "The attached file's name (or id)."},
            "path": {
                "type": "string",
                "description": f"Where to save it in your workspace; '{DEFAULT_FOLDER}/<its "
                "name>' by default. An existing file there is replaced.",
            },
        },
        ["file"],
    ),
    _save_attachment,
)

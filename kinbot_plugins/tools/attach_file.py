"""``attach_file(path)``: a file of the Kin's workspace attached to its reply, so that the
person receives it (shown in the web chat, sent as a photo or a file on Telegram, an
attachment by e-mail) rather than only its path.

The file is stored as an upload of the Kin's chat (``UploadStore.save``: the same size and
type checks as a person's upload) and its reference joins the attachments of the turn's
final assistant message. The path is confined to the workspace like every workspace tool.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

from kinbot_core.tools import FunctionTool, ToolContext, ToolError, object_schema
from kinbot_core.upload_content import UploadError
from kinbot_core.uploads import MAX_ATTACHMENTS, UploadStore
from kinbot_plugins.tools.workspace_paths import confined, relative_name, workspace_of

_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _read_whole(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (``ToolError`` otherwise)."""
    fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ToolError("Only a regular file can be attached.")
        if info.st_size > limit:
            raise ToolError(
                f"The file is {info.st_size} bytes: files larger than {limit} bytes "
                "cannot be attached."
            )
        return file.read(limit + 1)


async def _attach_file(context: ToolContext, arguments: dict[str, Any]) -> Any:
    if context.attach is None:
        raise ToolError("Files can only be attached to a reply in a conversation.")
    root = await workspace_of(context)
    relative = arguments.get("path", "")
    path = confined(root, relative)
    settings = context.platform.settings
    try:
        data = await asyncio.to_thread(_read_whole, path, settings.upload_max_bytes)
    except FileNotFoundError:
        raise ToolError(f"There is no file '{relative}' in your workspace.") from None
    except IsADirectoryError:
        raise ToolError(f"'{relative}' is a directory: only a file can be attached.") from None
    if len(data) > settings.upload_max_bytes:
        raise ToolError(f"'{relative}' grew past the limit of attachments.")
    store = UploadStore(context.platform.db, settings)
    try:
        upload = await store.save(context.kin_id, None, path.name, data)
    except UploadError as error:
        raise ToolError(f"'{relative}' cannot be attached: {error.message}") from None
    context.attach(upload.reference())
    return {
        "attached": relative_name(root, path),
        "filename": upload.filename,
        "kind": upload.kind,
        "size": upload.size,
        "note": "It will be sent with your reply; no need to give its path.",
    }


ATTACH_FILE = FunctionTool(
    "attach_file",
    "Attach a file of your workspace (an image you made, a document you wrote) to your "
    f"reply, so that the person receives the file itself; up to {MAX_ATTACHMENTS} per reply.",
    object_schema(
        {"path": {"type": "string", "description": "A path relative to your workspace."}},
        ["path"],
    ),
    _attach_file,
    "To send a person a file of your workspace (an image you generated, say), call "
    "attach_file with its path: they receive the file with your reply.",
)

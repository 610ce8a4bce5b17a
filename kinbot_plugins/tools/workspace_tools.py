"""The workspace tools: a Kin lists, reads, writes and deletes files in its own workspace.

``list_files``, ``read_file``, ``write_file`` and ``delete_file``, ``save_attachment``
(``attachment_copy``: a file attached in the chat, copied in) and ``attach_file``
(``attach_file``: a file of the workspace attached to the Kin's reply). Every path is relative to
the workspace and must stay inside it once ``..`` and symbolic links are resolved
(``workspace_paths.confined``); reads and writes are bounded by ``workspace_read_max_bytes``
and ``workspace_write_max_bytes``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.tools import FunctionTool, Tool, ToolContext, ToolError, object_schema
from kinbot_plugins.tools.attach_file import ATTACH_FILE
from kinbot_plugins.tools.attachment_copy import SAVE_ATTACHMENT
from kinbot_plugins.tools.workspace_paths import confined, relative_name, workspace_of

#: Most entries ``list_files`` returns.
MAX_ENTRIES = 500
#: Never follow a link at the last step; never wait on a FIFO a script left there.
_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _flag(arguments: dict[str, Any], key: str) -> bool:
    value = arguments.get(key, False)
    if not isinstance(value, bool):
        raise ToolError(f"'{key}' must be true or false.")
    return value


def _entry(root: Path, relative: str) -> Path:
    """The entry ``relative`` names, its last component not followed (a link is the link):
    its parent's real path must be inside the workspace."""
    parent = confined(root, os.path.dirname(relative.rstrip("/")) or ".", allow_root=True)
    name = os.path.basename(relative.rstrip("/"))
    if name in ("", ".", ".."):
        raise ToolError(f"'{relative}' does not name a file of your workspace.")
    return parent / name


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    return "directory" if stat.S_ISDIR(mode) else "file"


def _list(root: Path, directory: Path, recursive: bool) -> dict[str, Any]:
    if not directory.is_dir():
        raise ToolError(f"'{relative_name(root, directory) or '.'}' is not a directory.")
    entries: list[dict[str, Any]] = []
    truncated = False
    for current, dirs, files in os.walk(directory, followlinks=False):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            info = os.lstat(os.path.join(current, name))
            entries.append(
                {
                    "path": relative_name(root, Path(current, name)),
                    "type": _kind(info.st_mode),
                    "size": info.st_size,
                }
            )
            if len(entries) >= MAX_ENTRIES:
                truncated = True
                break
        if truncated or not recursive:
            break
    return {"entries": entries, "truncated": truncated}


async def _list_files(context: ToolContext, arguments: dict[str, Any]) -> Any:
    root = await workspace_of(context)
    path = arguments.get("path") or "."
    directory = confined(root, path, allow_root=True)
    return await asyncio.to_thread(_list, root, directory, _flag(arguments, "recursive"))


def _read(path: Path, offset: int, limit: int) -> tuple[bytes, int]:
    fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ToolError("Only regular files can be read.")
        size = os.fstat(file.fileno()).st_size
        file.seek(offset)
        return file.read(limit), size


async def _read_file(context: ToolContext, arguments: dict[str, Any]) -> Any:
    root = await workspace_of(context)
    relative = arguments.get("path", "")
    path = confined(root, relative)
    offset = arguments.get("offset", 0)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ToolError("'offset' must be a whole number of bytes, 0 or more.")
    limit = context.platform.settings.workspace_read_max_bytes
    try:
        data, size = await asyncio.to_thread(_read, path, offset, limit)
    except FileNotFoundError:
        raise ToolError(f"There is no file '{relative}' in your workspace.") from None
    except IsADirectoryError:
        raise ToolError(f"'{relative}' is a directory: use list_files.") from None
    if b"\x00" in data:
        raise ToolError(f"'{relative}' is a binary file; read_file reads text files only.")
    end = offset + len(data)
    return {
        "path": relative_name(root, path),
        "content": data.decode("utf-8", errors="replace"),
        "size": size,
        "next_offset": end if end < size else None,
    }


def _write(root: Path, path: Path, data: bytes, append: bool, executable: bool) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    parent = Path(os.path.realpath(path.parent))
    if parent != root and root not in parent.parents:
        raise ToolError("The file's folder leads outside your workspace.")
    flags = os.O_WRONLY | os.O_CREAT | _OPEN_FLAGS | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(path, flags, 0o700 if executable else 0o600)
    with os.fdopen(fd, "wb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ToolError("Only regular files can be written.")
        file.write(data)
        if executable:
            os.fchmod(file.fileno(), 0o700)


async def _write_file(context: ToolContext, arguments: dict[str, Any]) -> Any:
    root = await workspace_of(context)
    path = confined(root, arguments.get("path", ""))
    content = arguments.get("content")
    if not isinstance(content, str):
        raise ToolError("'content' must be a string (the text to write).")
    data = content.encode()
    limit = context.platform.settings.workspace_write_max_bytes
    if len(data) > limit:
        raise ToolError(f"The content is {len(data)} bytes; write_file takes {limit} at most.")
    append = _flag(arguments, "append")
    executable = _flag(arguments, "executable")
    try:
        await asyncio.to_thread(_write, root, path, data, append, executable)
    except IsADirectoryError:
        raise ToolError("That path is a directory.") from None
    except NotADirectoryError:
        raise ToolError("A part of that path is a file, not a folder.") from None
    except OSError as exc:  # a FIFO without reader, a full disk…
        raise ToolError(f"Could not write that file: {exc.strerror}.") from None
    return {"path": relative_name(root, path), "written": len(data), "appended": append}


def _delete(path: Path, recursive: bool) -> str:
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode):
        if recursive:
            shutil.rmtree(path)  # never follows symbolic links
        else:
            try:
                path.rmdir()
            except OSError:
                raise ToolError(
                    "That folder is not empty: pass recursive=true to delete it and its content."
                ) from None
        return "directory"
    path.unlink()
    return _kind(info.st_mode)


async def _delete_file(context: ToolContext, arguments: dict[str, Any]) -> Any:
    root = await workspace_of(context)
    relative = arguments.get("path", "")
    if not isinstance(relative, str):
        raise ToolError("'path' must be a path relative to your workspace.")
    entry = _entry(root, relative)
    try:
        kind = await asyncio.to_thread(_delete, entry, _flag(arguments, "recursive"))
    except FileNotFoundError:
        raise ToolError(f"There is no file '{relative}' in your workspace.") from None
    return {"deleted": relative_name(root, entry), "type": kind}


HINT = (
    "Your workspace is a private folder for your files: notes, downloads, scripts. "
    "Use list_files, read_file, write_file and delete_file with paths relative to it "
    "(e.g. 'notes/todo.md'); paths outside it are refused. save_attachment copies a file "
    "attached in the chat into it."
)
_PATH = {"type": "string", "description": "A path relative to your workspace."}

TOOLS: tuple[FunctionTool, ...] = (
    FunctionTool(
        "list_files",
        "List the files and folders of your workspace (or of one of its folders).",
        object_schema(
            {
                "path": {**_PATH, "description": "A folder of your workspace; '.' by default."},
                "recursive": {"type": "boolean", "description": "Include sub-folders."},
            }
        ),
        _list_files,
        HINT,
    ),
    FunctionTool(
        "read_file",
        "Read a text file of your workspace (a long one in pieces: pass next_offset back).",
        object_schema(
            {"path": _PATH, "offset": {"type": "integer", "description": "Byte to start at."}},
            ["path"],
        ),
        _read_file,
    ),
    FunctionTool(
        "write_file",
        "Create or replace a text file of your workspace (folders are created as needed).",
        object_schema(
            {
                "path": _PATH,
                "content": {"type": "string"},
                "append": {"type": "boolean", "description": "Add to the end instead."},
                "executable": {"type": "boolean", "description": "Make it executable."},
            },
            ["path", "content"],
        ),
        _write_file,
    ),
    FunctionTool(
        "delete_file",
        "Delete a file (or, with recursive, a folder) of your workspace.",
        object_schema({"path": _PATH, "recursive": {"type": "boolean"}}, ["path"]),
        _delete_file,
    ),
)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)
    register(SAVE_ATTACHMENT)
    register(ATTACH_FILE)

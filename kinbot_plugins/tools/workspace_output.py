"""Putting a new file or folder into a Kin's workspace in one step, so nothing half-written is
ever there, and never outside it even while the Kin's own code renames folders meanwhile.

The destination's folder is opened once and checked through its descriptor (the real path
the kernel reports for it is inside the workspace); the file is written under a temporary
name in that folder and renamed to its name at the end, both relative to the descriptor.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from kinbot_core.tools import ToolError

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def open_destination(root: Path, target: Path) -> int:
    """A descriptor of ``target``'s folder (created if missing), checked to be inside the
    workspace ``root`` (``ToolError`` otherwise). The caller closes it."""
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolError("A part of that path is a file, not a folder.") from None
    folder = os.open(target.parent, _DIRECTORY)
    real = _real_path(folder, target.parent)
    if real != root and root not in real.parents:
        os.close(folder)
        raise ToolError("The file's folder leads outside your workspace.")
    return folder


def _real_path(descriptor: int, fallback: Path) -> Path:
    try:
        return Path(os.readlink(f"/proc/self/fd/{descriptor}"))
    except OSError:  # no /proc (not Linux): the path, resolved now
        return Path(os.path.realpath(fallback))


class StagedFile:
    """A file being written beside its destination under a temporary name: ``publish``
    renames it into place, ``discard`` removes it."""

    def __init__(self, folder: int, name: str) -> None:
        self.folder = folder
        self.name = name
        self.temporary = f".{name[:100]}.{secrets.token_hex(6)}.part"
        self.descriptor = os.open(self.temporary, _NEW_FILE, 0o600, dir_fd=folder)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self.descriptor, view)
            view = view[written:]

    def publish(self) -> None:
        """Close the file and give it its name (replacing a file of that name)."""
        os.close(self.descriptor)
        self.descriptor = -1
        try:
            os.replace(self.temporary, self.name, src_dir_fd=self.folder, dst_dir_fd=self.folder)
        except IsADirectoryError:
            raise ToolError("That path is a folder.") from None

    def discard(self) -> None:
        """Close and remove the file, if it is still there."""
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temporary, dir_fd=self.folder)


def move_folder_into(folder: int, name: str, source: Path) -> None:
    """Rename the finished folder ``source`` to ``name`` in the descriptor's folder, which
    must not hold that name yet (``ToolError``)."""
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        pass
    else:
        raise ToolError(f"'{name}' already exists: choose a new path.")
    try:
        os.rename(source, name, dst_dir_fd=folder)
    except OSError as error:  # raced with a new entry of that name, or another file system
        raise ToolError(f"Could not move the result into place: {error.strerror}.") from None

"""The backup folder: checked when an administrator chooses it, and what a failed backup's
``OSError`` becomes as a code the web interface words (never the system's text, which may
name paths of the machine)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any


class BackupError(ValueError):
    """A refused change or request; ``code`` (the class's, unless one is given) with
    ``params`` is what the web interface words."""

    code = "backup_error"

    def __init__(self, code: str | None = None, message: str = "", **params: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params = params


class FolderUnusable(BackupError):
    """Backups cannot be written in the folder, for a reason the system did not name."""

    code = "backup_target_unusable"


class FolderMissing(FolderUnusable):
    code = "backup_target_missing"


class NotAFolder(FolderUnusable):
    code = "backup_target_not_folder"


class FolderReadOnly(FolderUnusable):
    code = "backup_target_read_only"


class FolderDenied(FolderUnusable):
    code = "backup_permission_denied"


class NoSpace(FolderUnusable):
    code = "backup_no_space"


#: ``errno`` values and what a person is told.
_REASONS: dict[int, type[FolderUnusable]] = {
    errno.ENOSPC: NoSpace,
    errno.EDQUOT: NoSpace,
    errno.EACCES: FolderDenied,
    errno.EPERM: FolderDenied,
    errno.EROFS: FolderReadOnly,
    errno.ENOENT: FolderMissing,
    errno.ENOTDIR: FolderMissing,
    errno.EEXIST: NotAFolder,
}
#: A failed backup's code when its error says nothing a person can act on.
UNKNOWN = "backup_failed"


def failure_code(error: BaseException) -> str:
    """The code of a failed backup's error (``backup_failed`` when it is not a known
    ``OSError``)."""
    if isinstance(error, OSError) and error.errno in _REASONS:
        return _REASONS[error.errno].code
    return UNKNOWN


def check_folder(folder: Path) -> None:
    """Raise a ``FolderUnusable`` when ``folder`` cannot take backups: it is created if
    missing (as a backup would), and a file is written in it and removed."""
    message = "Backups cannot be written in this folder."
    try:
        if folder.exists() and not folder.is_dir():
            raise NotAFolder(message=message)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(prefix=".kinbot-probe-", dir=folder)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        reason = _REASONS.get(error.errno or 0, FolderUnusable)
        raise reason(message=message) from None

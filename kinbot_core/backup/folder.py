"""The backup folder: checked when an administrator chooses it, and what a failed backup's
``OSError`` becomes as a code the web interface words (never the system's text, which may
name paths of the machine)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

#: ``errno`` values and the code a person is told.
_CODES = {
    errno.ENOSPC: "backup_no_space",
    errno.EDQUOT: "backup_no_space",
    errno.EACCES: "backup_permission_denied",
    errno.EPERM: "backup_permission_denied",
    errno.EROFS: "backup_target_read_only",
    errno.ENOENT: "backup_target_missing",
    errno.ENOTDIR: "backup_target_missing",
    errno.EEXIST: "backup_target_not_folder",
}
#: When the error says nothing a person can act on.
UNKNOWN = "backup_failed"


def failure_code(error: BaseException) -> str:
    """The code of a failed backup's error (``backup_failed`` when it is not a known
    ``OSError``)."""
    if isinstance(error, OSError) and error.errno is not None:
        return _CODES.get(error.errno, UNKNOWN)
    return UNKNOWN


def unusable_reason(folder: Path) -> str | None:
    """Why ``folder`` cannot take backups (a code), or ``None`` when it can: it is created if
    missing (as a backup would), and a file is written in it and removed."""
    try:
        if folder.exists() and not folder.is_dir():
            return "backup_target_not_folder"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(prefix=".kinbot-probe-", dir=folder)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        code = failure_code(error)
        return "backup_target_unusable" if code == UNKNOWN else code
    return None

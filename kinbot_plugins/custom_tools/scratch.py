"""Where the sandbox's short-lived directories go (the probe's workspace, a run's private
``/tmp``, a workspace staged for ``nobody``): one directory of this process in the system's
temporary directory, so that what a killed server leaves behind is found and removed.

The directory holds a lock file that its process keeps locked while it lives. The first
directory a process asks for sweeps away every other such directory of the same user whose
lock can be taken: its process is gone (a kill, a crash, a container stopped hard). A clean
exit removes the process's own.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import tempfile
import threading
from pathlib import Path
from typing import IO

from kinbot_plugins.custom_tools.confinement import remove_tree

#: The name of a process's directory (what follows is random).
PREFIX = "kinbot-run-"
#: Its name while it is made, before its lock is held (never swept).
MAKING_PREFIX = "kinbot-making-"
#: The file its process keeps locked while it lives.
LOCK_NAME = ".owner"
#: Others may pass through it (``nobody`` reaches its own directories in it), not list it.
MODE = 0o711


class Scratch:
    """The short-lived directories of this process, under ``parent``."""

    def __init__(self, parent: Path | None = None) -> None:
        self.parent = parent
        self._root: Path | None = None
        self._lock_file: IO[bytes] | None = None
        self._making = threading.Lock()

    def directory(self, prefix: str) -> Path:
        """A new empty directory, readable by this user alone, to be removed by the caller
        once used (the process's directory is removed at exit, and by the next server to
        start after a kill)."""
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.root()))

    def root(self) -> Path:
        """This process's directory, made (after sweeping dead ones) on first use."""
        with self._making:
            if self._root is None:
                parent = self.parent or Path(tempfile.gettempdir())
                sweep(parent)
                self._root, self._lock_file = _make_locked(parent)
                atexit.register(self.remove)
            return self._root

    def remove(self) -> None:
        """Remove this process's directory and release its lock (at exit)."""
        with self._making:
            if self._root is not None and self._lock_file is not None:
                remove_tree(self._root)
                self._lock_file.close()
                self._root = self._lock_file = None


def _make_locked(parent: Path) -> tuple[Path, IO[bytes]]:
    # Made under another name and renamed once locked: a sweep never sees it unlocked.
    making = Path(tempfile.mkdtemp(prefix=MAKING_PREFIX, dir=parent))
    try:
        lock_file = open(making / LOCK_NAME, "xb")  # noqa: SIM115 (held for the process's life)
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.chmod(making, MODE)
        root = making.with_name(PREFIX + making.name.removeprefix(MAKING_PREFIX))
        making.rename(root)
    except BaseException:
        remove_tree(making)
        raise
    return root, lock_file


def sweep(parent: Path) -> list[Path]:
    """Remove the directories under ``parent`` left by this user's dead processes; returns
    them. A directory whose lock is held (its process lives), that has no lock file (not
    ours, or still being made) or that belongs to another user is left alone."""
    removed = []
    for candidate in parent.glob(PREFIX + "*"):
        with contextlib.suppress(OSError):
            if candidate.is_symlink() or candidate.lstat().st_uid != os.geteuid():
                continue
            with open(candidate / LOCK_NAME, "rb") as lock_file:
                try:
                    fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # its process lives
                remove_tree(candidate)
                removed.append(candidate)
    return removed


#: The directories of this process's sandbox runs.
SCRATCH = Scratch()

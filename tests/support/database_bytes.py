"""What a secret could leave in the database file: its traces, and the file's bytes."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from kinbot_core.db.driver import select_driver


def traces(value: str) -> list[bytes]:
    """What of ``value`` could survive somewhere: itself, and the middle of each long
    alphanumeric run lower-cased: the full-text index keeps terms (split at ``_``, lower
    case, stemmed at the end, stored after the prefix they share with the previous term)."""
    runs = [run for run in re.split(r"[^0-9A-Za-z]+", value) if len(run) >= 12]
    return [value.encode()] + [run.lower()[4:-2].encode() for run in runs]


def database_bytes(path: Path, *, checkpoint: bool = True) -> bytes:
    """The database file and its write-ahead log (after a checkpoint, unless told not to:
    then exactly what is on disk now, committed pages in the log included).

    The checkpoint goes through the SQLite library the platform uses: a second copy of SQLite
    in the process (the standard ``sqlite3`` beside pysqlite3) does not see the platform's
    connections, and closing its own can drop their locks and truncate the shared memory they
    map (a bus error in a running server)."""
    if checkpoint:
        with contextlib.closing(select_driver().connect(str(path))) as conn:
            conn.execute("pragma wal_checkpoint(truncate)")
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def leaked(value: str, path: Path, *, checkpoint: bool = True) -> list[bytes]:
    """The traces of ``value`` found in the database file (empty: none)."""
    raw = database_bytes(path, checkpoint=checkpoint)
    return [trace for trace in traces(value) if trace in raw]

"""Writing a backup archive of a data directory, while KinBot may be running on it.

The database is copied through SQLite's online backup API (a consistent snapshot, taken
without stopping writers: the file is in WAL mode) using the platform's own SQLite driver:
a second copy of SQLite in one process does not see the platform's connections, and closing
its own can drop their locks. The other files are read as they are at that moment.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import os
import stat
import tarfile
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

from kinbot_core import __version__
from kinbot_core.backup.manifest import (
    DATA_PREFIX,
    DATABASE_NAME,
    HEADER_NAME,
    KEY_NAME,
    MANIFEST_NAME,
    Header,
    Manifest,
)
from kinbot_core.backup.sealed_file import SealingWriter
from kinbot_core.config import CONFIG_FILE_NAME, Settings
from kinbot_core.master_key import load_master_key

#: The default folder of scheduled backups, inside the data directory (never backed up).
BACKUPS_DIR_NAME = "backups"
#: What the data directory holds that a restore does not need: the live database files (the
#: snapshot replaces them), the git clone staging area, half-written restores.
_LEFT_OUT = {
    DATABASE_NAME,
    f"{DATABASE_NAME}-wal",
    f"{DATABASE_NAME}-shm",
    f"{DATABASE_NAME}-journal",
    KEY_NAME,
    "staging",
    BACKUPS_DIR_NAME,
}
SUFFIX = ".kinbot-backup"


@dataclass(frozen=True)
class BackupResult:
    """A finished archive."""

    path: Path
    size: int
    created_at: float
    includes_key: bool
    files: int
    #: The configuration file was left out because it holds the master key's passphrase.
    config_left_out: bool = False


def archive_name(created_at: float) -> str:
    """``kinbot-20260131-021500-042.kinbot-backup`` (UTC, to the millisecond: two backups
    started within one second must not write the same file)."""
    milliseconds = int(created_at * 1000) % 1000
    stamp = time.strftime("kinbot-%Y%m%d-%H%M%S", time.gmtime(created_at))
    return f"{stamp}-{milliseconds:03d}{SUFFIX}"


def snapshot_database(driver: ModuleType, source: Path, target: Path) -> list[str]:
    """Copy the live database at ``source`` into ``target`` with SQLite's online backup API;
    returns the migrations it has applied (its schema version)."""
    with (
        contextlib.closing(driver.connect(str(source))) as live,
        contextlib.closing(driver.connect(str(target))) as copy,
    ):
        live.backup(copy)
        rows = copy.execute("select name from schema_migration order by id").fetchall()
    return [str(row[0]) for row in rows]


def mark_own_run(driver: ModuleType, snapshot: Path, run_id: int, finished_at: float) -> None:
    """In the snapshot only: the run writing this very archive reads as done (in the live
    database it is still running, and a restore would otherwise show it as interrupted)."""
    with contextlib.closing(driver.connect(str(snapshot))) as conn:
        conn.execute(
            "update backup_run set status = 'done', error_code = null, finished_at = ? "
            "where id = ?",
            (finished_at, run_id),
        )
        conn.commit()


def scheduled_folder(driver: ModuleType, snapshot: Path) -> Path | None:
    """The folder the administrator chose for scheduled backups, if any (left out)."""
    with contextlib.closing(driver.connect(str(snapshot))) as conn:
        try:
            row = conn.execute("select target_dir from backup_settings where id = 1").fetchone()
        except driver.OperationalError:  # a schema from before scheduled backups
            return None
    return Path(row[0]).resolve() if row and row[0] else None


def _walk(data_dir: Path, excluded: set[Path]) -> Iterator[tuple[str, Path | None]]:
    """Each path under ``data_dir`` to archive, relative; ``None`` for one that is not a
    regular file or directory (a symbolic link: left out and listed as skipped)."""
    for root, dirs, files in os.walk(data_dir):
        base = Path(root)
        dirs[:] = sorted(d for d in dirs if (base / d) not in excluded)
        relative_root = base.relative_to(data_dir)
        if base == data_dir:
            dirs[:] = [d for d in dirs if d not in _LEFT_OUT]
        for name in sorted([*dirs, *files]):
            path = base / name
            relative = (relative_root / name).as_posix()
            if (base == data_dir and name in _LEFT_OUT) or path in excluded:
                continue
            mode = path.lstat().st_mode
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                yield relative, path
            else:
                yield relative, None


class _Exactly(io.RawIOBase):
    """``size`` bytes of a file that may change meanwhile (cut when it grew, zero-padded when
    it shrank), hashed as they are read: the manifest describes what the archive holds."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self._handle, self._left = handle, size
        self.sha256 = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        want = self._left if n < 0 else min(n, self._left)
        chunk = self._handle.read(want)
        chunk += b"\0" * (want - len(chunk))
        self._left -= len(chunk)
        self.sha256.update(chunk)
        return chunk


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mtime: float) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), int(mtime), 0o600
    tar.addfile(info, io.BytesIO(data))


def _add_file(tar: tarfile.TarFile, name: str, path: Path, manifest: Manifest) -> bool:
    try:
        handle = path.open("rb")
    except FileNotFoundError:  # removed since the walk
        return False
    with handle:
        status = os.fstat(handle.fileno())
        info = tarfile.TarInfo(DATA_PREFIX + name)
        info.size, info.mtime, info.mode = status.st_size, int(status.st_mtime), 0o600
        reader = _Exactly(handle, status.st_size)
        tar.addfile(info, reader)
    manifest.files[name] = {"size": status.st_size, "sha256": reader.sha256.hexdigest()}
    return True


def _config_holds_key(path: Path) -> bool:
    try:
        return "secret_key" in tomllib.loads(path.read_text())
    except (OSError, ValueError):
        return True  # unreadable: treat it as the secret it may be


def create_backup(
    settings: Settings,
    driver: ModuleType,
    output: Path,
    passphrase: str,
    *,
    include_key: bool = False,
    exclude: Sequence[Path] = (),
    run_id: int | None = None,
) -> BackupResult:
    """Write the archive of ``settings.data_dir`` to ``output`` (created 0600; written to a
    ``.part`` file first, so a failure leaves no half archive under the final name).
    ``run_id``: the ``backup_run`` row of this backup, shown as done in the archive's copy."""
    data_dir = settings.data_dir.resolve()
    created_at = time.time()
    excluded = {Path(p).resolve() for p in (*exclude, output)}
    output.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".part")
    config = data_dir / CONFIG_FILE_NAME
    config_left_out = not include_key and config.is_file() and _config_holds_key(config)
    if config_left_out:
        excluded.add(config)
    with tempfile.TemporaryDirectory(prefix=".kinbot-backup-", dir=output.parent) as work:
        excluded.update({Path(work).resolve(), partial.resolve()})
        snapshot = Path(work) / DATABASE_NAME
        migrations = snapshot_database(driver, settings.database_path, snapshot)
        if run_id is not None:
            mark_own_run(driver, snapshot, run_id, created_at)
        folder = scheduled_folder(driver, snapshot)
        if folder is not None:
            excluded.add(folder)
        header = Header(__version__, migrations, created_at, include_key)
        manifest = Manifest(header)
        descriptor = os.open(partial, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as target:
                sealing = SealingWriter(target, passphrase)
                with tarfile.open(fileobj=sealing, mode="w|", format=tarfile.PAX_FORMAT) as tar:  # type: ignore[call-overload]
                    _add_bytes(tar, HEADER_NAME, header.to_json(), created_at)
                    _add_file(tar, DATABASE_NAME, snapshot, manifest)
                    if include_key:
                        key = base64.urlsafe_b64encode(load_master_key(settings)) + b"\n"
                        _add_bytes(tar, DATA_PREFIX + KEY_NAME, key, created_at)
                        manifest.files[KEY_NAME] = {
                            "size": len(key),
                            "sha256": hashlib.sha256(key).hexdigest(),
                        }
                    for name, path in _walk(data_dir, excluded):
                        if path is None:
                            manifest.skipped.append(name)
                        elif path.is_dir():
                            info = tarfile.TarInfo(DATA_PREFIX + name)
                            info.type, info.mode = tarfile.DIRTYPE, 0o700
                            tar.addfile(info)
                        else:
                            _add_file(tar, name, path, manifest)
                    _add_bytes(tar, MANIFEST_NAME, manifest.to_json(), created_at)
                sealing.close()
            os.replace(partial, output)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    return BackupResult(
        output,
        output.stat().st_size,
        created_at,
        include_key,
        len(manifest.files),
        config_left_out,
    )

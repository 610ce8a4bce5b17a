"""Restoring a backup archive into an empty data directory.

A hostile or damaged archive must not write outside the target, fill the disk beyond what it
declares, or exhaust memory: the archive is decrypted and authenticated before anything is
read from it, then each tar entry is checked (only ``header.json``, ``data/…`` regular files
and directories, and ``manifest.json``; no link, device, absolute path or ``..``; bounded
count and metadata sizes) and written with owner-only permissions while its SHA-256 is
computed. Any failure removes what was written, leaving the directory as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType

from kinbot_core.backup.manifest import (
    DATA_PREFIX,
    DATABASE_NAME,
    HEADER_NAME,
    MANIFEST_NAME,
    MAX_METADATA_BYTES,
    ArchiveError,
    Header,
    Manifest,
    check_schema,
)
from kinbot_core.backup.sealed_file import SealedFileError, open_file

#: The most entries an archive may have (a family's data directory has far fewer).
MAX_ENTRIES = 500_000
MAX_PATH_LENGTH = 1024
_COPY_CHUNK = 1024 * 1024
_SCRATCH = ".kinbot-restore.tar"


@dataclass(frozen=True)
class RestoreResult:
    """What was restored."""

    header: Header
    files: int
    size: int
    skipped: list[str]


def _is_empty(directory: Path) -> bool:
    return not directory.exists() or (directory.is_dir() and not any(directory.iterdir()))


def _relative(member: tarfile.TarInfo) -> str:
    """The path of a ``data/`` entry inside the data directory, refused when unsafe."""
    name = member.name
    if len(name) > MAX_PATH_LENGTH or "\0" in name or "\\" in name:
        raise ArchiveError("the backup holds an entry with an invalid name")
    path = PurePosixPath(name)
    if path.is_absolute() or any(part in ("", ".", "..") for part in name.split("/")):
        raise ArchiveError("the backup holds a path outside the data directory")
    if not member.isfile() and not member.isdir():
        raise ArchiveError("the backup holds a link or special file, which KinBot never writes")
    return str(path.relative_to(DATA_PREFIX.rstrip("/")))


def _read_small(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    if not member.isfile() or member.size > MAX_METADATA_BYTES:
        raise ArchiveError("the backup's metadata is malformed")
    handle = tar.extractfile(member)
    assert handle is not None
    return handle.read()


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> str:
    source = tar.extractfile(member)
    assert source is not None
    digest = hashlib.sha256()
    descriptor = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        while chunk := source.read(_COPY_CHUNK):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _extract(tar: tarfile.TarFile, target: Path) -> RestoreResult:
    members = iter(tar)
    first = next(members, None)
    if first is None or first.name != HEADER_NAME:
        raise ArchiveError("this is not a KinBot backup (no header)")
    header = Header.from_json(_read_small(tar, first))
    check_schema(header)
    written: dict[str, str] = {}
    manifest: Manifest | None = None
    for count, member in enumerate(members, start=2):
        if count > MAX_ENTRIES:
            raise ArchiveError(f"the backup holds more than {MAX_ENTRIES} entries")
        if manifest is not None:
            raise ArchiveError("the backup holds entries after its manifest")
        if member.name == MANIFEST_NAME:
            manifest = Manifest.from_json(_read_small(tar, member))
            continue
        if not member.name.startswith(DATA_PREFIX):
            raise ArchiveError("the backup holds a path outside the data directory")
        relative = _relative(member)
        path = target / relative
        if relative in written or path.exists():
            raise ArchiveError("the backup holds the same path twice")
        if not path.parent.resolve().is_relative_to(target.resolve()):
            raise ArchiveError("the backup holds a path outside the data directory")
        if member.isdir():
            path.mkdir(mode=0o700)
            written[relative] = ""
        else:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            written[relative] = _write(tar, member, path)
    if manifest is None:
        raise ArchiveError("the backup is incomplete (no manifest)")
    files = {name: digest for name, digest in written.items() if digest}
    if set(files) != set(manifest.files):
        raise ArchiveError("the backup's files do not match its manifest")
    for name, entry in manifest.files.items():
        if entry["sha256"] != files[name] or (target / name).stat().st_size != entry["size"]:
            raise ArchiveError(f"a file of the backup is damaged (checksum of {name})")
    if DATABASE_NAME not in files:
        raise ArchiveError("the backup holds no database")
    size = sum(entry["size"] for entry in manifest.files.values())
    return RestoreResult(header, len(files), size, manifest.skipped)


def _check_database(driver: ModuleType, path: Path, header: Header) -> None:
    with contextlib.closing(driver.connect(str(path))) as conn:
        (verdict,) = conn.execute("pragma quick_check").fetchone()
        names = [row[0] for row in conn.execute("select name from schema_migration order by id")]
    if verdict != "ok" or names != header.migrations:
        raise ArchiveError("the backup's database is damaged")


def restore_backup(
    archive: Path,
    target: Path,
    passphrase: str,
    driver: ModuleType,
) -> RestoreResult:
    """Restore ``archive`` into ``target``, which must be empty or absent.

    Raises ``ArchiveError`` (a sentence for a person) and leaves ``target`` as it found it.
    """
    if not archive.is_file():
        raise ArchiveError(f"{archive} is not a file")
    if not _is_empty(target):
        raise ArchiveError(
            f"{target} is not empty: restore into a new, empty data directory (KinBot never "
            "overwrites a data directory)"
        )
    created = not target.exists()
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    scratch = target / _SCRATCH
    try:
        descriptor = os.open(scratch, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(descriptor, "wb") as plain:
            try:
                open_file(archive, plain, passphrase)
            except SealedFileError as exc:
                raise ArchiveError(str(exc)) from None
        try:
            with tarfile.open(scratch, mode="r:") as tar:
                result = _extract(tar, target)
        except (tarfile.TarError, OSError):
            raise ArchiveError("the backup's contents are malformed") from None
        finally:
            scratch.unlink(missing_ok=True)
        _check_database(driver, target / DATABASE_NAME, result.header)
    except BaseException:
        _empty(target, remove=created)
        raise
    return result


def _empty(target: Path, *, remove: bool) -> None:
    if remove:
        shutil.rmtree(target, ignore_errors=True)
        return
    for child in target.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)

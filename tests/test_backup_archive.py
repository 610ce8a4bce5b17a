"""Backup archives without a server: what goes in, what comes back, and what is refused
(wrong passphrase, altered bytes, a newer schema, a non-empty directory, hostile entries)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from kinbot_core.backup import ArchiveError, create_backup, restore_backup
from kinbot_core.backup import restore as restore_module
from kinbot_core.backup.manifest import Header, Manifest, known_migrations
from kinbot_core.backup.sealed_file import MAGIC, SealingWriter
from kinbot_core.config import load_settings
from kinbot_core.db.driver import select_driver
from kinbot_core.platform import Platform

PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory made by a real start: database, key file, and some files."""
    data_dir = tmp_path_factory.mktemp("source") / "data"

    async def start_once() -> None:
        platform = Platform(load_settings(data_dir=data_dir), load_entry_points=False)
        await platform.start()
        await platform.stop()

    asyncio.run(start_once())
    (data_dir / "uploads" / "ab").mkdir(parents=True)
    (data_dir / "uploads" / "ab" / "photo.bin").write_bytes(bytes(range(256)) * 400)
    (data_dir / "workspaces" / "kin-1" / "empty").mkdir(parents=True)
    (data_dir / "workspaces" / "kin-1" / "notes.md").write_text("# Notes\n")
    (data_dir / "workspaces" / "kin-1" / "outside").symlink_to("/etc/hostname")
    (data_dir / "staging").mkdir()
    (data_dir / "staging" / "half-cloned").write_text("transient")
    return data_dir


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def _backup(source: Path, output: Path, *, include_key: bool = False) -> Path:
    settings = load_settings(data_dir=source)
    create_backup(settings, select_driver(), output, PASSPHRASE, include_key=include_key)
    return output


def test_a_backup_restores_every_file_byte_for_byte(source: Path, tmp_path: Path) -> None:
    archive = _backup(source, tmp_path / "a.kinbot-backup")
    result = restore_backup(archive, tmp_path / "restored", PASSPHRASE, select_driver())

    restored = _files(tmp_path / "restored")
    original = _files(source)
    expected = {
        name: data
        for name, data in original.items()
        if name not in ("kinbot.db", "secret.key") and not name.startswith("staging/")
    }
    assert {k: v for k, v in restored.items() if k != "kinbot.db"} == expected
    assert (tmp_path / "restored" / "workspaces" / "kin-1" / "empty").is_dir()
    assert not (tmp_path / "restored" / "workspaces" / "kin-1" / "outside").exists()
    assert result.skipped == ["workspaces/kin-1/outside"]
    assert result.header.migrations == known_migrations()
    assert not result.header.includes_key
    assert (tmp_path / "restored" / "kinbot.db").stat().st_mode & 0o077 == 0
    assert PASSPHRASE.encode() not in archive.read_bytes()
    assert b"# Notes" not in archive.read_bytes()


def test_the_key_is_in_the_archive_only_when_asked(source: Path, tmp_path: Path) -> None:
    archive = _backup(source, tmp_path / "k.kinbot-backup", include_key=True)
    result = restore_backup(archive, tmp_path / "restored", PASSPHRASE, select_driver())
    assert result.header.includes_key
    restored_key = (tmp_path / "restored" / "secret.key").read_bytes()
    assert restored_key == (source / "secret.key").read_bytes()


def test_a_non_empty_directory_is_refused_and_left_alone(source: Path, tmp_path: Path) -> None:
    archive = _backup(source, tmp_path / "a.kinbot-backup")
    target = tmp_path / "busy"
    target.mkdir()
    (target / "kinbot.db").write_bytes(b"someone's data")
    with pytest.raises(ArchiveError, match="is not empty"):
        restore_backup(archive, target, PASSPHRASE, select_driver())
    assert _files(target) == {"kinbot.db": b"someone's data"}


@pytest.mark.parametrize("damage", ["passphrase", "flipped byte", "truncated"])
def test_a_wrong_passphrase_or_an_altered_archive_is_refused(
    source: Path, tmp_path: Path, damage: str
) -> None:
    archive = _backup(source, tmp_path / "a.kinbot-backup")
    passphrase = PASSPHRASE
    raw = bytearray(archive.read_bytes())
    if damage == "passphrase":
        passphrase = "not the passphrase"
    elif damage == "flipped byte":
        raw[len(raw) // 2] ^= 1
    else:
        del raw[-100:]
    archive.write_bytes(bytes(raw))
    target = tmp_path / "restored"
    with pytest.raises(ArchiveError, match=r"passphrase is wrong|altered|truncated"):
        restore_backup(archive, target, passphrase, select_driver())
    assert not target.exists()


Entry = tuple[tarfile.TarInfo, bytes]


def _file(name: str, data: bytes) -> Entry:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _special(name: str, kind: bytes, link: str = "") -> Entry:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, b""


def _seal(path: Path, entries: list[Entry], passphrase: str = PASSPHRASE) -> Path:
    with path.open("wb") as target:
        sealing = SealingWriter(target, passphrase)
        with tarfile.open(fileobj=sealing, mode="w|", format=tarfile.PAX_FORMAT) as tar:  # type: ignore[call-overload]
            for info, data in entries:
                tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
        sealing.close()
    return path


def _header(migrations: list[str] | None = None) -> Header:
    return Header("0.1.0", migrations or known_migrations(), 1.0, False)


def _valid_entries(source: Path, files: dict[str, bytes], header: Header) -> list[Entry]:
    """A well-formed archive of ``files`` (plus the source's database)."""
    files = {"kinbot.db": (source / "kinbot.db").read_bytes(), **files}
    manifest = Manifest(header)
    for name, data in files.items():
        manifest.files[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return [
        _file("header.json", header.to_json()),
        *(_file(f"data/{name}", data) for name, data in files.items()),
        _file("manifest.json", manifest.to_json()),
    ]


def test_an_archive_with_a_newer_schema_is_refused_with_what_to_do(
    source: Path, tmp_path: Path
) -> None:
    header = Header("9.0.0", [*known_migrations(), "0999_from_the_future"], 1.0, False)
    archive = _seal(tmp_path / "new.kinbot-backup", _valid_entries(source, {}, header))
    target = tmp_path / "restored"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "kinbot_web.cli",
            "restore",
            "--data-dir",
            str(target),
            str(archive),
        ],
        env={"KINBOT_BACKUP_PASSPHRASE": PASSPHRASE, "PATH": "/usr/bin:/bin", **_pythonpath()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1, completed.stderr
    assert "newer than this KinBot's" in completed.stderr
    assert "install KinBot 9.0.0 or newer" in completed.stderr
    assert not target.exists()


def _pythonpath() -> dict[str, str]:
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def _tamper(
    source: Path,
) -> dict[str, Callable[[], list[Entry]]]:
    good = _valid_entries(source, {"uploads/x": b"x"}, _header())
    header, db, upload, manifest = good
    return {
        "parent path": lambda: [header, db, _file("data/../escaped", b"x"), manifest],
        "absolute path": lambda: [header, db, _file("/tmp/escaped", b"x"), manifest],
        "outside data": lambda: [header, db, _file("escaped", b"x"), manifest],
        "symlink": lambda: [
            header,
            db,
            _special("data/uploads/x", tarfile.SYMTYPE, "/etc"),
            manifest,
        ],
        "hard link": lambda: [
            header,
            db,
            _special("data/uploads/x", tarfile.LNKTYPE, "etc/passwd"),
            manifest,
        ],
        "device": lambda: [header, db, _special("data/uploads/x", tarfile.CHRTYPE), manifest],
        "no header": lambda: [db, upload, manifest],
        "no manifest": lambda: [header, db, upload],
        "after manifest": lambda: [header, db, upload, manifest, _file("data/late", b"x")],
        "twice": lambda: [header, db, upload, upload, manifest],
        "checksum": lambda: [header, db, _file("data/uploads/x", b"y"), manifest],
        "unlisted file": lambda: [header, db, upload, _file("data/extra", b"x"), manifest],
        "too many entries": lambda: [
            header,
            db,
            *(_file(f"data/f{i}", b"") for i in range(9)),
            manifest,
        ],
    }


REFUSALS = {
    "parent path": "outside the data directory",
    "absolute path": "outside the data directory",
    "outside data": "outside the data directory",
    "symlink": "link or special file",
    "hard link": "link or special file",
    "device": "link or special file",
    "no header": "no header",
    "no manifest": "no manifest",
    "after manifest": "after its manifest",
    "twice": "same path twice",
    "checksum": "damaged",
    "unlisted file": "do not match its manifest",
    "too many entries": "more than 8 entries",
}


@pytest.mark.parametrize("attack", list(REFUSALS))
def test_a_hostile_archive_is_refused_and_writes_nothing(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attack: str
) -> None:
    monkeypatch.setattr(restore_module, "MAX_ENTRIES", 8)
    archive = _seal(tmp_path / "hostile.kinbot-backup", _tamper(source)[attack]())
    target = tmp_path / "deep" / "restored"
    target.mkdir(parents=True)
    with pytest.raises(ArchiveError, match=REFUSALS[attack]):
        restore_backup(archive, target, PASSPHRASE, select_driver())
    assert list(target.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "hostile.kinbot-backup"]


def test_a_well_formed_crafted_archive_passes_the_same_checks(source: Path, tmp_path: Path) -> None:
    """The hostile cases above differ from this one only by their attack."""
    entries = _valid_entries(source, {"uploads/x": b"x"}, _header())
    archive = _seal(tmp_path / "fine.kinbot-backup", entries)
    restore_backup(archive, tmp_path / "restored", PASSPHRASE, select_driver())
    assert (tmp_path / "restored" / "uploads" / "x").read_bytes() == b"x"


def test_a_header_asking_scrypt_for_too_much_is_refused_before_deriving(tmp_path: Path) -> None:
    archive = tmp_path / "greedy.kinbot-backup"
    header = json.dumps(
        {
            "kdf": "scrypt",
            "n": 2**30,
            "r": 8,
            "p": 1,
            "salt": "A" * 24,
            "cipher": "AES-256-GCM",
            "nonce": "A" * 16,
        }
    ).encode()
    archive.write_bytes(MAGIC + len(header).to_bytes(4, "big") + header + bytes(64))
    with pytest.raises(ArchiveError, match="asks too much"):
        restore_backup(archive, tmp_path / "restored", PASSPHRASE, select_driver())


def test_the_folder_of_scheduled_backups_is_left_out(source: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(source, copy, symlinks=True)
    nas = copy / "nas"
    (nas / "older").mkdir(parents=True)
    (nas / "older" / "kinbot-20260101-000000.kinbot-backup").write_bytes(b"an older archive")
    with contextlib.closing(select_driver().connect(str(copy / "kinbot.db"))) as conn:
        conn.execute(
            "insert into backup_settings (id, target_dir, updated_at) values (1, ?, 0)", (str(nas),)
        )
        conn.commit()
    archive = _backup(copy, tmp_path / "a.kinbot-backup")
    restore_backup(archive, tmp_path / "restored", PASSPHRASE, select_driver())
    assert (tmp_path / "restored" / "uploads" / "ab" / "photo.bin").is_file()
    assert not (tmp_path / "restored" / "nas").exists()

"""What a backup archive says about itself: the header (read first, before anything is
written on restore) and the manifest (read last: every file's size and SHA-256).

Inside the encrypted archive is an uncompressed tar: ``header.json``, then the data directory
under ``data/`` (the database snapshot as ``data/kinbot.db``), then ``manifest.json``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from kinbot_core.db.database import MIGRATIONS_DIR

FORMAT = 1
HEADER_NAME = "header.json"
MANIFEST_NAME = "manifest.json"
DATA_PREFIX = "data/"
DATABASE_NAME = "kinbot.db"
#: The archive's name for the master key file (the instance's key file name as well).
KEY_NAME = "secret.key"
#: The largest header or manifest a restore reads into memory.
MAX_METADATA_BYTES = 64 * 1024 * 1024


class ArchiveError(ValueError):
    """An archive that cannot be restored here: the message says why, for a person."""


@dataclass(frozen=True)
class Header:
    """Which KinBot and which schema made the archive, and whether it holds the master key."""

    kinbot_version: str
    migrations: list[str]
    created_at: float
    includes_key: bool
    format: int = FORMAT

    @property
    def schema(self) -> str:
        """The last migration applied to the database (its schema version)."""
        return self.migrations[-1] if self.migrations else "none"

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=1).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Header:
        try:
            data = json.loads(raw)
            header = cls(
                kinbot_version=str(data["kinbot_version"]),
                migrations=[str(name) for name in data["migrations"]],
                created_at=float(data["created_at"]),
                includes_key=bool(data["includes_key"]),
                format=int(data["format"]),
            )
        except (ValueError, KeyError, TypeError):
            raise ArchiveError("the backup's header is malformed") from None
        return header


@dataclass
class Manifest:
    """The header again, plus each file of ``data/``: its size and SHA-256 (hex)."""

    header: Header
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Paths left out because they are not regular files (symbolic links, sockets).
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> bytes:
        return json.dumps(
            {"header": asdict(self.header), "files": self.files, "skipped": self.skipped},
            indent=1,
        ).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Manifest:
        try:
            data = json.loads(raw)
            header = Header.from_json(json.dumps(data["header"]).encode())
            files = {
                str(name): {"size": int(entry["size"]), "sha256": str(entry["sha256"])}
                for name, entry in data["files"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ArchiveError("the backup's manifest is malformed") from None
        return cls(header, files, [str(path) for path in data.get("skipped", [])])


def known_migrations() -> list[str]:
    """The migrations this KinBot knows, in order."""
    return sorted(path.stem for path in MIGRATIONS_DIR.glob("[0-9]*.py"))


def check_schema(header: Header) -> None:
    """Refuse an archive made by a KinBot with a newer (or unknown) schema, or another format."""
    if header.format != FORMAT:
        raise ArchiveError(
            f"this backup has format {header.format}, this KinBot reads format {FORMAT}: "
            "restore it with the KinBot version that made it, or a newer one"
        )
    known = known_migrations()
    unknown = [name for name in header.migrations if name not in known]
    if unknown:
        raise ArchiveError(
            f"this backup comes from KinBot {header.kinbot_version}, whose database schema "
            f"({header.schema}) is newer than this KinBot's ({known[-1]}): install KinBot "
            f"{header.kinbot_version} or newer, then restore"
        )

"""The Kin file as a zip archive: written from named parts, read back within fixed bounds.

A hostile file gets a ``KinArchiveError``, never a write anywhere (nothing is extracted to
disk), a memory blow-up or a crash: the archive's size is bounded by the caller, the number
of entries, each entry's size (read up to its bound, whatever its header claims) and the
total are bounded here, and only known entry names are read.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.kin_export.errors import KinArchiveError

FORMAT = "kinbot-kin"
VERSION = 1
MANIFEST = "manifest.json"
#: The JSON documents of an archive and the most bytes each may hold once uncompressed.
DOCUMENTS: dict[str, int] = {
    MANIFEST: 64 * 1024,
    "kin.json": 256 * 1024,
    "memories.json": 48 * 1024 * 1024,
    "contacts.json": 8 * 1024 * 1024,
    "crons.json": 4 * 1024 * 1024,
    "custom_tools.json": 4 * 1024 * 1024,
}
AVATAR = "avatar.webp"
AVATAR_MAX_BYTES = 4 * 1024 * 1024
#: A custom tool's script: ``scripts/<number>``.
SCRIPT_ENTRY = re.compile(r"^scripts/([0-9]{1,3})$")
SCRIPT_MAX_BYTES = 1024 * 1024
MAX_ENTRIES = len(DOCUMENTS) + 1 + 100
MAX_TOTAL_BYTES = 96 * 1024 * 1024
#: The most values (counted by ``structure_size``) one JSON document may hold.
MAX_JSON_VALUES = 1_000_000
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STRUCTURE = re.compile(rb"[\[{,]")


@dataclass
class KinArchive:
    """The parts of a Kin file: parsed JSON documents, the avatar image, the scripts."""

    documents: dict[str, Any] = field(default_factory=dict)
    avatar: bytes | None = None
    scripts: dict[int, bytes] = field(default_factory=dict)


def write_archive(archive: KinArchive) -> bytes:
    """The zip file of ``archive`` (the manifest first)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        for name in sorted(archive.documents, key=lambda name: name != MANIFEST):
            text = json.dumps(archive.documents[name], ensure_ascii=False, indent=1)
            zipped.writestr(name, text.encode("utf-8"))
        if archive.avatar is not None:
            zipped.writestr(AVATAR, archive.avatar)
        for number, script in sorted(archive.scripts.items()):
            zipped.writestr(f"scripts/{number}", script)
    return out.getvalue()


def _bound(name: str) -> int | None:
    """The most bytes entry ``name`` may hold, or ``None`` when it has no place in a Kin file."""
    if name in DOCUMENTS:
        return DOCUMENTS[name]
    if name == AVATAR:
        return AVATAR_MAX_BYTES
    if SCRIPT_ENTRY.match(name):
        return SCRIPT_MAX_BYTES
    return None


def _invalid(message: str, **params: Any) -> KinArchiveError:
    return KinArchiveError(message, code="kin_archive_invalid", params=params)


def _entries(zipped: zipfile.ZipFile) -> list[tuple[zipfile.ZipInfo, int]]:
    """Every entry with its bound, after checking names, count, flags and declared sizes."""
    infos = zipped.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _invalid(f"The file has more than {MAX_ENTRIES} entries.", limit=MAX_ENTRIES)
    seen: set[str] = set()
    entries = []
    declared = 0
    for info in infos:
        bound = _bound(info.filename)
        if bound is None or info.is_dir():
            raise _invalid(f"Unexpected entry {info.filename[:100]!r} in the file.")
        if info.filename in seen:
            raise _invalid(f"The entry {info.filename!r} appears twice.")
        if info.flag_bits & 0x1:
            raise _invalid("The file is encrypted.")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _invalid("The file uses an unsupported compression.")
        if info.file_size > bound:
            raise _invalid(f"The entry {info.filename!r} is too large.", entry=info.filename)
        declared += info.file_size
        seen.add(info.filename)
        entries.append((info, bound))
    if declared > MAX_TOTAL_BYTES:
        raise _invalid("The file's content is too large once uncompressed.")
    return entries


def _read(zipped: zipfile.ZipFile, info: zipfile.ZipInfo, bound: int) -> bytes:
    """The entry's bytes, reading one byte past ``bound`` at most (headers can lie)."""
    with zipped.open(info) as stream:
        data = stream.read(bound + 1)
    if len(data) > bound:
        raise _invalid(f"The entry {info.filename!r} is too large.", entry=info.filename)
    return data


def structure_size(data: bytes) -> int:
    """How many containers and separators (``{``, ``[``, ``,``) the JSON ``data`` has outside
    its strings: an upper bound of the values it decodes to."""
    return len(_STRUCTURE.findall(_STRING.sub(b'""', data)))


def _json(name: str, data: bytes) -> Any:
    invalid = KinArchiveError(
        f"The entry {name!r} is not valid JSON.",
        code="kin_archive_content_invalid",
        params={"entry": name},
    )
    # Millions of tiny values ("[[],[],…]") would take many times their bytes in memory.
    if structure_size(data) > MAX_JSON_VALUES:
        raise invalid
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raise invalid from None


def read_archive(data: bytes) -> KinArchive:
    """The parts of the Kin file ``data``, or ``KinArchiveError``: not a zip, an unknown or
    oversized entry, JSON that does not parse, a manifest of another format or a newer
    version."""
    try:
        zipped = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise _invalid("The file is not a Kin file (not a zip archive).") from None
    archive = KinArchive()
    total = 0
    try:
        with zipped:
            for info, bound in _entries(zipped):
                content = _read(zipped, info, bound)
                total += len(content)
                if total > MAX_TOTAL_BYTES:
                    raise _invalid("The file's content is too large once uncompressed.")
                script = SCRIPT_ENTRY.match(info.filename)
                if script:
                    archive.scripts[int(script.group(1))] = content
                elif info.filename == AVATAR:
                    archive.avatar = content
                else:
                    archive.documents[info.filename] = _json(info.filename, content)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError):
        raise _invalid("The file is damaged.") from None
    _check_manifest(archive.documents.get(MANIFEST))
    return archive


def _check_manifest(manifest: Any) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _invalid("The file is not a Kin file (no Kin manifest).")
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _invalid("The file's manifest has no valid version.")
    if version > VERSION:
        raise KinArchiveError(
            f"The file was made by a newer KinBot (format version {version}; "
            f"this one reads up to {VERSION}).",
            code="kin_archive_too_new",
            params={"version": version, "supported": VERSION},
        )

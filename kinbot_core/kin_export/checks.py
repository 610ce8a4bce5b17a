"""Everything in a Kin file checked before anything is created: its documents, its custom
tools (schema, script path, script present), its crons' schedules, its avatar image.

``checked_bundle`` turns a read archive into a ``KinBundle`` or raises ``KinArchiveError``
naming the entry at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from kinbot_core.accounts.avatars import normalise_avatar
from kinbot_core.accounts.errors import AvatarRejected
from kinbot_core.crons.schedule import ScheduleError, check_expression, check_zone
from kinbot_core.kin_export.archive import AVATAR_MAX_BYTES, MANIFEST, KinArchive
from kinbot_core.kin_export.documents import (
    MAX_CONTACTS,
    MAX_CRONS,
    MAX_CUSTOM_TOOLS,
    MAX_MEMORIES,
    ContactDocument,
    CronDocument,
    CustomToolDocument,
    KinDocument,
    ManifestDocument,
    MemoryDocument,
    parse_list,
    parse_one,
)
from kinbot_core.kin_export.errors import KinArchiveError

MAX_SCHEMA_CHARS = 20_000
MAX_PATH_PARTS = 8


@dataclass
class KinBundle:
    """A Kin file's content, every part checked."""

    kin: KinDocument
    memories: list[MemoryDocument] = field(default_factory=list)
    contacts: list[ContactDocument] = field(default_factory=list)
    crons: list[CronDocument] = field(default_factory=list)
    #: Each custom tool with its script's bytes.
    custom_tools: list[tuple[CustomToolDocument, bytes]] = field(default_factory=list)
    #: The avatar, already re-encoded as a small WebP.
    avatar: bytes | None = None


def _invalid(entry: str, message: str) -> KinArchiveError:
    return KinArchiveError(
        f"The entry {entry!r} is not valid: {message}",
        code="kin_archive_content_invalid",
        params={"entry": entry},
    )


def safe_script_path(path: str) -> str:
    """``path`` if it is a plain relative path (no ``..``, no absolute or hidden part, no
    backslash), else ``KinArchiveError``: it is where the script is written on import."""
    parts = PurePosixPath(path).parts
    if (
        not parts
        or "\\" in path
        or "\x00" in path
        or path.startswith(("/", "~"))
        or len(parts) > MAX_PATH_PARTS
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
    ):
        raise _invalid("custom_tools.json", f"the script path {path[:100]!r} is not allowed.")
    return PurePosixPath(*parts).as_posix()


def _checked_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    if parameters.get("type") != "object":
        raise _invalid("custom_tools.json", 'a tool\'s parameters need "type": "object".')
    if len(json.dumps(parameters)) > MAX_SCHEMA_CHARS:
        raise _invalid("custom_tools.json", "a tool's parameters are too long.")
    from jsonschema import Draft202012Validator  # by the first import, not at start-up
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(parameters)
    except (SchemaError, RecursionError):
        raise _invalid("custom_tools.json", "a tool's parameters are not a JSON Schema.") from None
    parameters.setdefault("properties", {})
    return parameters


def _custom_tools(archive: KinArchive) -> list[tuple[CustomToolDocument, bytes]]:
    entry = "custom_tools.json"
    tools = parse_list(CustomToolDocument, entry, archive.documents.get(entry), MAX_CUSTOM_TOOLS)
    names: set[str] = set()
    paths: dict[str, int] = {}
    checked = []
    for tool in tools:
        if tool.name in names:
            raise _invalid(entry, f"the tool {tool.name!r} appears twice.")
        names.add(tool.name)
        tool.parameters = _checked_schema(tool.parameters)
        tool.path = safe_script_path(tool.path)
        script = archive.scripts.get(tool.script)
        if script is None:
            raise _invalid(entry, f"the script of {tool.name!r} is missing.")
        if paths.setdefault(tool.path, tool.script) != tool.script:
            raise _invalid(entry, f"two different scripts share the path {tool.path!r}.")
        checked.append((tool, script))
    return checked


def _crons(archive: KinArchive) -> list[CronDocument]:
    crons = parse_list(CronDocument, "crons.json", archive.documents.get("crons.json"), MAX_CRONS)
    for cron in crons:
        try:
            cron.schedule = check_expression(cron.schedule.strip())
            cron.timezone = check_zone(cron.timezone.strip()) if cron.timezone else None
        except ScheduleError as exc:
            raise _invalid("crons.json", str(exc)) from None
    return crons


def _avatar(data: bytes | None) -> bytes | None:
    if data is None:
        return None
    try:
        return normalise_avatar(data, AVATAR_MAX_BYTES)
    except AvatarRejected as exc:
        raise _invalid("avatar.webp", exc.message) from None


def checked_bundle(archive: KinArchive) -> KinBundle:
    """The checked content of ``archive`` (blocking: run it off the event loop)."""
    parse_one(ManifestDocument, MANIFEST, archive.documents.get(MANIFEST))
    if "kin.json" not in archive.documents:
        raise _invalid("kin.json", "the file has no Kin in it.")
    docs = archive.documents
    return KinBundle(
        kin=parse_one(KinDocument, "kin.json", docs["kin.json"]),
        memories=parse_list(
            MemoryDocument, "memories.json", docs.get("memories.json"), MAX_MEMORIES
        ),
        contacts=parse_list(
            ContactDocument, "contacts.json", docs.get("contacts.json"), MAX_CONTACTS
        ),
        crons=_crons(archive),
        custom_tools=_custom_tools(archive),
        avatar=_avatar(archive.avatar),
    )

"""Write one Kin as a Kin file (see ``archive`` for its layout, ``documents`` for its JSON).

What goes in: identity, character, expertise, model and tool choice, memories (text,
category, subject, dates), contacts (without the user or Kin they were linked to here), the
crons that run on the Kin (what and when, not their runs), its custom tools with their
scripts, and its avatar. What never does: secrets (vault values, provider keys, webhook
tokens), the session's messages, uploads, other Kins' data, ids of this platform.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kinbot_core.crons.records import CronRecord
from kinbot_core.db.models import ContactRecord, CustomToolRecord, MemoryRecord
from kinbot_core.kin_export.archive import (
    AVATAR_MAX_BYTES,
    FORMAT,
    MANIFEST,
    SCRIPT_MAX_BYTES,
    VERSION,
    KinArchive,
    write_archive,
)
from kinbot_core.kins.access import EVERYONE

if TYPE_CHECKING:
    from kinbot_core.kins.service import KinView
    from kinbot_core.platform import Platform


def _kin_document(kin: KinView) -> dict[str, Any]:
    return {
        "name": kin.name,
        "role": kin.role,
        "character": kin.character,
        "expertise": kin.expertise,
        "model": kin.model,
        "memory_extraction_model": kin.memory_extraction_model,
        "compacting_model": kin.compacting_model,
        "tools": list(kin.tools),
        #: Whether only some people may use it here (it is imported private to its importer).
        "restricted": kin.access != EVERYONE,
    }


def _rows(kin_id: str) -> dict[str, list[Any]]:
    """The Kin's memories, contacts, crons and custom tools, oldest first."""
    return {
        "memories": list(
            MemoryRecord.select().where(MemoryRecord.kin == kin_id).order_by(MemoryRecord.id)
        ),
        "contacts": list(
            ContactRecord.select()
            .where(ContactRecord.kin == kin_id)
            .order_by(ContactRecord.created_at, ContactRecord.id)
        ),
        "crons": list(
            CronRecord.select()
            .where(CronRecord.kin == kin_id)
            .order_by(CronRecord.created_at, CronRecord.id)
        ),
        "custom_tools": list(
            CustomToolRecord.select()
            .where(CustomToolRecord.kin == kin_id)
            .order_by(CustomToolRecord.name)
        ),
    }


def _memory(row: MemoryRecord) -> dict[str, Any]:
    return {
        "content": row.content,
        "category": row.category,
        "subject": row.subject,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _contact(row: ContactRecord) -> dict[str, Any]:
    return {
        "name": row.name,
        "type": row.type,
        "relation": row.relation,
        "notes": row.notes,
        "facts": json.loads(row.facts or "[]"),
        "preferences": json.loads(row.preferences or "[]"),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _cron(row: CronRecord) -> dict[str, Any]:
    return {
        "name": row.name,
        "schedule": row.schedule,
        "timezone": row.timezone,
        "task_description": row.task_description,
        "model": row.model,
        "active": bool(row.active),
    }


def read_script(workspace: Path, relative: str) -> bytes | None:
    """The script at ``relative`` in the workspace, or ``None`` when it is missing, not a
    regular file, too large or (through ``..`` or a symbolic link) outside the workspace:
    a Kin's link must never carry a file of the server into an export."""
    try:
        root = workspace.resolve(strict=True)
        real = Path(os.path.realpath(root / relative))
        if root not in real.parents or not real.is_file():
            return None
        if real.stat().st_size > SCRIPT_MAX_BYTES:
            return None
        return real.read_bytes()
    except (OSError, ValueError):
        return None


def _read_avatar(path: Path) -> bytes | None:
    try:
        if path.stat().st_size > AVATAR_MAX_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


async def export_kin(platform: Platform, kin_id: str) -> tuple[KinView, bytes]:
    """The Kin and its Kin file (a zip archive); ``KinNotFound`` for an unknown Kin."""
    kin = await platform.kins.get(kin_id)
    rows = await platform.db.read(_rows, kin_id)
    archive = KinArchive()
    tools: list[dict[str, Any]] = []
    for row in rows["custom_tools"]:
        script = await asyncio.to_thread(read_script, Path(kin.workspace), row.path)
        if script is None:
            continue  # its script is gone (or unreadable): the tool could not run anyway
        number = len(tools)
        archive.scripts[number] = script
        tools.append(
            {
                "name": row.name,
                "description": row.description,
                "parameters": json.loads(row.parameters),
                "path": row.path,
                "script": number,
            }
        )
    if kin.avatar:
        archive.avatar = await asyncio.to_thread(
            _read_avatar, platform.accounts.avatars.path(kin.avatar)
        )
    documents: dict[str, Any] = {
        "kin.json": _kin_document(kin),
        "memories.json": [_memory(row) for row in rows["memories"]],
        "contacts.json": [_contact(row) for row in rows["contacts"]],
        "crons.json": [_cron(row) for row in rows["crons"]],
        "custom_tools.json": tools,
    }
    documents[MANIFEST] = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": time.time(),
        "counts": {
            "memories": len(documents["memories.json"]),
            "contacts": len(documents["contacts.json"]),
            "crons": len(documents["crons.json"]),
            "custom_tools": len(tools),
            "custom_tools_without_script": len(rows["custom_tools"]) - len(tools),
        },
    }
    archive.documents = documents
    return kin, await asyncio.to_thread(write_archive, archive)

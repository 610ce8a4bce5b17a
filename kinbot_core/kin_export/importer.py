"""Create a new Kin from a Kin file.

The whole file is read and checked first (``archive``, ``checks``); only then is the Kin
created, and if any later step fails the new Kin is deleted again, so a file is imported
whole or not at all. The safe choices:

- the Kin gets a free name (``Name (2)`` when ``Name`` is taken);
- its model must be offered here (or the caller names another); a memory-extraction or cron
  model that is not offered falls back to the platform's choice / the Kin's model;
- memories are embedded again with this platform's embedding model (vectors of another
  model are not comparable), keeping their dates; they are found by words at once;
- contacts lose the user or Kin they were linked to (those ids mean nothing here);
- crons arrive paused: a person activates each one;
- a Kin only some people could use arrives private to the person who imports it;
- custom tools arrive with their scripts and run confined like any Kin-written script; the
  Kin's network access is off, whatever it was.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kinbot_core.crons.views import Author, CronError
from kinbot_core.db.models import ContactRecord, CustomToolRecord, KinRecord
from kinbot_core.kin_export.archive import read_archive
from kinbot_core.kin_export.checks import KinBundle, checked_bundle
from kinbot_core.kin_export.errors import KinArchiveError
from kinbot_core.kin_export.memories import restore_memories
from kinbot_core.kins.access import PRIVATE, usable_ids
from kinbot_core.kins.access_settings import set_access
from kinbot_core.providers import ProviderError
from kinbot_core.usage import attributed

if TYPE_CHECKING:
    from kinbot_core.accounts import AccountView
    from kinbot_core.kins.service import KinView
    from kinbot_core.platform import Platform

NAME_MAX = 80
#: The name a restricted Kin is created under, until it is private (see ``import_kin``).
RESTRICTED_PLACEHOLDER = "Kin"


@dataclass(frozen=True)
class ImportedKin:
    """The Kin a file became, and how many of each part arrived."""

    kin: KinView
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"kin": self.kin.to_dict(), "counts": dict(self.counts)}


def free_name(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted (2)``, ``wanted (3)``… the first not in ``taken`` (case
    ignored), within the name's length limit."""
    lowered = {name.casefold() for name in taken}
    if wanted.casefold() not in lowered:
        return wanted
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = wanted[: NAME_MAX - len(suffix)].rstrip() + suffix
        if candidate.casefold() not in lowered:
            return candidate
        number += 1


async def _usable(platform: Platform, model: str | None) -> bool:
    if not model:
        return False
    try:
        await platform.providers.resolve_model(model)
    except ProviderError:
        return False
    return True


def _names() -> dict[str, str]:
    """Every Kin's name by id (not the hidden rows of sub-Kins)."""
    rows = KinRecord.select(KinRecord.id, KinRecord.name).where(KinRecord.task_id.is_null())
    return {row.id: row.name for row in rows}


async def _taken_names(platform: Platform, user: AccountView) -> set[str]:
    """The names of the Kins ``user`` may use: a Kin hidden from them does not make a name
    taken (which would tell them it exists)."""
    names = await platform.db.read(_names)
    return {names[kin_id] for kin_id in usable_ids(platform, user, names)}


def _insert_contacts(kin_id: str, bundle: KinBundle) -> None:
    now = time.time()
    for contact in bundle.contacts:
        ContactRecord.create(
            id=uuid.uuid4().hex,
            kin=kin_id,
            name=contact.name.strip(),
            type=contact.type,
            linked_id=None,
            relation=contact.relation,
            notes=contact.notes,
            facts=json.dumps(contact.facts, ensure_ascii=False),
            preferences=json.dumps(contact.preferences, ensure_ascii=False),
            created_at=contact.created_at or now,
            updated_at=contact.updated_at or now,
        )


def _write_scripts(workspace: Path, bundle: KinBundle) -> None:
    """Write each tool's script at its path in the new (empty) workspace, never outside."""
    root = workspace.resolve(strict=True)
    refused = KinArchiveError(
        "A script cannot be written where the file says.",
        code="kin_archive_content_invalid",
        params={"entry": "custom_tools.json"},
    )
    for tool, script in bundle.custom_tools:
        target = root / tool.path
        try:
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if root not in Path(os.path.realpath(target)).parents or target.is_dir():
                raise refused
            target.write_bytes(script)
            target.chmod(0o700)
        except OSError:  # one script's path is another's directory, say
            raise refused from None


def _insert_tools(kin_id: str, bundle: KinBundle) -> None:
    now = time.time()
    for tool, _script in bundle.custom_tools:
        CustomToolRecord.create(
            kin=kin_id,
            name=tool.name,
            description=tool.description.strip(),
            parameters=json.dumps(tool.parameters),
            path=tool.path,
            created_at=now,
            updated_at=now,
        )


async def _restore(platform: Platform, kin: KinView, bundle: KinBundle, user_id: str) -> None:
    """Everything but the Kin's row, onto the new Kin."""
    background = {
        field: chosen
        for field, chosen in (
            ("memory_extraction_model", bundle.kin.memory_extraction_model),
            ("compacting_model", bundle.kin.compacting_model),
        )
        if chosen and await _usable(platform, chosen)
    }
    if background:
        await platform.kins.update(kin.id, background)
    if bundle.avatar is not None:
        await platform.kins.set_avatar(kin.id, platform.accounts.avatars, bundle.avatar)
    await platform.db.write(_insert_contacts, kin.id, bundle)
    await asyncio.to_thread(_write_scripts, Path(kin.workspace), bundle)
    await platform.db.write(_insert_tools, kin.id, bundle)
    for cron in bundle.crons:
        fields = {
            "kin_id": kin.id,
            "name": cron.name,
            "schedule": cron.schedule,
            "timezone": cron.timezone,
            "task_description": cron.task_description,
            "model": cron.model if await _usable(platform, cron.model) else None,
            "active": False,
        }
        try:
            await platform.crons.create(fields, Author(kind="user", id=user_id))
        except CronError as exc:
            raise KinArchiveError(
                f"A cron cannot be created: {exc}",
                code="kin_archive_content_invalid",
                params={"entry": "crons.json"},
            ) from None
    # Embedding the memories again is the importer's doing, and counts against the new Kin.
    with attributed(kin.id, origin="user", user_id=user_id):
        await restore_memories(platform, kin.id, bundle.memories)


async def import_kin(
    platform: Platform, data: bytes, *, user: AccountView, model: str | None = None
) -> ImportedKin:
    """Create a new Kin from the Kin file ``data`` on behalf of ``user``; ``model``
    replaces the file's model (needed when that one is not offered here).

    Raises ``KinArchiveError`` for a file that is not acceptable, before creating anything.
    """
    archive = await asyncio.to_thread(read_archive, data)
    bundle = await asyncio.to_thread(checked_bundle, archive)
    chosen = (model or "").strip() or bundle.kin.model
    if not await _usable(platform, chosen):
        raise KinArchiveError(
            f"The model {chosen!r} is not offered here: choose another one.",
            code="kin_import_model_unavailable",
            params={"model": chosen[:200]},
        )
    identity = {
        "name": free_name(bundle.kin.name, await _taken_names(platform, user)),
        "role": bundle.kin.role,
        "character": bundle.kin.character,
        "expertise": bundle.kin.expertise,
        "tools": bundle.kin.tools,
    }
    # A restricted Kin is announced to everyone as it is created (all Kins start shared), so
    # it is created without its identity, made private, and only then given it.
    restricted = bundle.kin.restricted
    shown = {"name": RESTRICTED_PLACEHOLDER} if restricted else identity
    kin = await platform.kins.create({**shown, "model": chosen}, created_by=user.id)
    try:
        if restricted:
            await set_access(platform, kin.id, PRIVATE, [user.id], by=user)
            await platform.kins.update(kin.id, identity)
        await _restore(platform, kin, bundle, user.id)
    except BaseException:
        await platform.kins.delete(kin.id)
        await asyncio.to_thread(shutil.rmtree, kin.workspace, ignore_errors=True)
        raise
    counts = {
        "memories": len(bundle.memories),
        "contacts": len(bundle.contacts),
        "crons": len(bundle.crons),
        "custom_tools": len(bundle.custom_tools),
        "avatar": int(bundle.avatar is not None),
    }
    return ImportedKin(kin=await platform.kins.get(kin.id), counts=counts)

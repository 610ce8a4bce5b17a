"""Rotation of the master key: every sealed value of the database re-encrypted under a new key
in one transaction, then the new key put in place (``kinbot vault rotate-key``).

Run it with the server stopped: a running server keeps the old key in memory.

With a key file, the new key is first written beside it (``secret.key.new``) and the old one
copied to ``secret.key.old``; the database is re-encrypted and committed; the new file then
replaces the old one (an atomic rename) and the copy is removed. If the process dies between
the commit and the rename, ``secret.key.new`` holds the key the database now needs (the next
rotation refuses to start until it has been dealt with, and says how). With
``KINBOT_SECRET_KEY``, the new passphrase is given to the command and the administrator sets
it in the environment afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import SecretStr

from kinbot_core.backup.schedule import PASSPHRASE_SEALING_CONTEXT
from kinbot_core.channels.connections import sealing_context as channel_sealing_context
from kinbot_core.config import Settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.master_key import KEY_BYTES, KEY_FILE_NAME, load_master_key
from kinbot_core.notifications.subscriptions import sealing_context as push_sealing_context
from kinbot_core.notifications.vapid import SEALING_CONTEXT as VAPID_SEALING_CONTEXT
from kinbot_core.plugins.settings import context_of as plugin_settings_context
from kinbot_core.vault.records import pending_sealing_context, sealing_context
from kinbot_core.webhooks.service import sealing_context as webhook_sealing_context


@dataclass(frozen=True)
class SealedColumn:
    """A column holding values sealed under the master key, and what each is bound to."""

    table: str
    column: str
    #: The sealing context, ``{id}`` standing for the row's key.
    context: str
    #: The column that identifies a row.
    key: str = "id"


@dataclass(frozen=True)
class SealedDocument:
    """A column holding ``kinbot_core.schema_settings`` JSON: plain values, and the secrets
    sealed together under ``"sealed"`` (base64)."""

    table: str
    column: str
    #: The sealing context, ``{id}`` standing for the row's key.
    context: str
    #: The column that identifies a row.
    key: str = "id"


#: Every sealed column of the platform and its built-in plugins. A column whose name contains
#: "sealed" and is missing here makes the rotation refuse to run rather than leave values
#: that no key opens.
SEALED_COLUMNS: tuple[SealedColumn, ...] = (
    SealedColumn("provider", "config_sealed", "provider:{id}"),
    SealedColumn("vault_secret", "value_sealed", sealing_context("{id}")),
    SealedColumn("mcp_server", "sealed_secrets", "mcp_server:{id}"),
    SealedColumn("pending_secret", "value_sealed", pending_sealing_context("{id}")),
    SealedColumn("webhook", "signing_secret_sealed", webhook_sealing_context("{id}")),
    SealedColumn("push_subscription", "keys_sealed", push_sealing_context("{id}")),
    SealedColumn("vapid_key", "private_sealed", VAPID_SEALING_CONTEXT),
    SealedColumn("backup_settings", "passphrase_sealed", PASSPHRASE_SEALING_CONTEXT),
)
#: Every column of settings documents with sealed secrets inside (their names say nothing).
SEALED_DOCUMENTS: tuple[SealedDocument, ...] = (
    SealedDocument("channel_connection", "settings", channel_sealing_context("{id}")),
    SealedDocument("plugin_settings", "stored", plugin_settings_context("{id}"), key="plugin"),
)


class RotationError(RuntimeError):
    """The rotation cannot be done; nothing was changed unless the message says otherwise."""


@dataclass
class RotationReport:
    """What was re-encrypted, per table, and where the new key is."""

    resealed: dict[str, int] = field(default_factory=dict)
    key_file: Path | None = None


def reseal_all(db: Database, old_key: bytes, new_key: bytes) -> dict[str, int]:
    """Re-encrypt every sealed value from ``old_key`` to ``new_key`` (inside ``db.write``,
    so that it happens whole or not at all). Returns how many values per table."""
    tables = {row[0] for row in db.sql("select name from sqlite_master where type = 'table'")}
    known = {(c.table, c.column) for c in SEALED_COLUMNS}
    for table in sorted(tables):
        for column in db.sql(f'pragma table_info("{table}")'):
            if "sealed" in column[1] and (table, column[1]) not in known:
                raise RotationError(
                    f"{table}.{column[1]} holds sealed values this version cannot re-encrypt; "
                    "nothing was changed."
                )
    old_box, new_box = SecretBox(old_key), SecretBox(new_key)
    resealed: dict[str, int] = {}
    everything: tuple[SealedColumn | SealedDocument, ...] = (*SEALED_COLUMNS, *SEALED_DOCUMENTS)
    for sealed in everything:
        if sealed.table not in tables:
            continue
        rows = db.sql(
            f'select "{sealed.key}", "{sealed.column}" from "{sealed.table}" '
            f'where "{sealed.column}" is not null'
        ).fetchall()
        count = 0
        for row_id, value in rows:
            context = sealed.context.format(id=row_id)
            changed: str | bytes | None
            if isinstance(sealed, SealedDocument):
                changed = _reseal_document(str(value), old_box, new_box, context, sealed.table)
            else:
                changed = new_box.seal(
                    _opened(old_box, bytes(value), context, sealed.table), context
                )
            if changed is None:
                continue
            db.sql(
                f'update "{sealed.table}" set "{sealed.column}" = ? where "{sealed.key}" = ?',
                (changed, row_id),
            )
            count += 1
        resealed[sealed.table] = count
    return resealed


def _opened(box: SecretBox, value: bytes, context: str, table: str) -> bytes:
    try:
        return box.open(value, context)
    except DecryptionError:
        raise RotationError(
            f"a value of {table} does not open with the current master key; nothing was changed."
        ) from None


def _reseal_document(
    stored: str, old_box: SecretBox, new_box: SecretBox, context: str, table: str
) -> str | None:
    """A settings document with its secrets sealed under the new key (``None``: it holds
    none)."""
    try:
        document = json.loads(stored)
    except ValueError:
        raise RotationError(f"a value of {table} cannot be read; nothing was changed.") from None
    if not isinstance(document, dict) or "sealed" not in document:
        return None
    plaintext = _opened(old_box, base64.b64decode(document["sealed"]), context, table)
    document["sealed"] = base64.b64encode(new_box.seal(plaintext, context)).decode("ascii")
    return json.dumps(document, ensure_ascii=False)


async def rotate_master_key(
    settings: Settings, *, new_passphrase: str | None = None
) -> RotationReport:
    """Re-encrypt everything under a new master key and put the key in place (see the
    module's description). ``new_passphrase`` is required, and only allowed, when the key
    comes from ``KINBOT_SECRET_KEY``."""
    old_key = load_master_key(settings)
    if settings.secret_key is not None:
        if not new_passphrase:
            raise RotationError(
                "KINBOT_SECRET_KEY sets the master key: give the new passphrase in "
                "KINBOT_NEW_SECRET_KEY."
            )
        new_key = load_master_key(
            settings.model_copy(update={"secret_key": SecretStr(new_passphrase)})
        )
        if new_key == old_key:
            raise RotationError("The new passphrase is the current one.")
        return RotationReport(resealed=await _reseal(settings, old_key, new_key))
    if new_passphrase:
        raise RotationError(
            "The master key is in a key file: the new one is generated (no passphrase)."
        )
    return await _rotate_key_file(settings, old_key)


async def _rotate_key_file(settings: Settings, old_key: bytes) -> RotationReport:
    path = settings.data_dir / KEY_FILE_NAME
    pending = path.with_name(KEY_FILE_NAME + ".new")
    backup = path.with_name(KEY_FILE_NAME + ".old")
    if pending.exists():
        raise RotationError(
            f"{pending} exists: an earlier rotation was interrupted. If KinBot cannot read its "
            f"secrets with {path}, the database was re-encrypted: move {pending.name} over "
            f"{path.name}. Otherwise delete {pending.name}. Then run the rotation again."
        )
    new_key = secrets.token_bytes(KEY_BYTES)
    _write_private(pending, base64.urlsafe_b64encode(new_key) + b"\n")
    try:
        shutil.copyfile(path, backup)
        os.chmod(backup, 0o600)
        resealed = await _reseal(settings, old_key, new_key)
    except BaseException:
        pending.unlink(missing_ok=True)
        backup.unlink(missing_ok=True)
        raise
    os.replace(pending, path)
    _sync_directory(path.parent)
    backup.unlink()
    return RotationReport(resealed=resealed, key_file=path)


async def _reseal(settings: Settings, old_key: bytes, new_key: bytes) -> dict[str, int]:
    db = Database(settings.database_path, busy_timeout=settings.database_busy_timeout_seconds)
    await db.open()
    try:
        resealed = await db.write(reseal_all, db, old_key, new_key)
        await db.checkpoint()  # the old ciphertexts out of the write-ahead log too
    finally:
        await db.close()
    return resealed


def _write_private(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as key_file:
        key_file.write(data)
        key_file.flush()
        os.fsync(key_file.fileno())


def _sync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)

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
import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import SecretStr

from kinbot_core.config import Settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.master_key import KEY_BYTES, KEY_FILE_NAME, load_master_key
from kinbot_core.vault.records import pending_sealing_context, sealing_context
from kinbot_core.webhooks.service import sealing_context as webhook_sealing_context


@dataclass(frozen=True)
class SealedColumn:
    """A column holding values sealed under the master key, and what each is bound to."""

    table: str
    column: str
    #: The sealing context, ``{id}`` standing for the row's ``id``.
    context: str


#: Every sealed column of the platform and its built-in plugins. A column whose name contains
#: "sealed" and is missing here makes the rotation refuse to run rather than leave values
#: that no key opens.
SEALED_COLUMNS: tuple[SealedColumn, ...] = (
    SealedColumn("provider", "config_sealed", "provider:{id}"),
    SealedColumn("vault_secret", "value_sealed", sealing_context("{id}")),
    SealedColumn("mcp_server", "sealed_secrets", "mcp_server:{id}"),
    SealedColumn("pending_secret", "value_sealed", pending_sealing_context("{id}")),
    SealedColumn("webhook", "signing_secret_sealed", webhook_sealing_context("{id}")),
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
    for sealed in SEALED_COLUMNS:
        if sealed.table not in tables:
            continue
        rows = db.sql(
            f'select id, "{sealed.column}" from "{sealed.table}" '
            f'where "{sealed.column}" is not null'
        ).fetchall()
        for row_id, value in rows:
            context = sealed.context.format(id=row_id)
            try:
                plaintext = old_box.open(bytes(value), context)
            except DecryptionError:
                raise RotationError(
                    f"a value of {sealed.table} does not open with the current master key; "
                    "nothing was changed."
                ) from None
            db.sql(
                f'update "{sealed.table}" set "{sealed.column}" = ? where id = ?',
                (new_box.seal(plaintext, context), row_id),
            )
        resealed[sealed.table] = len(rows)
    return resealed


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

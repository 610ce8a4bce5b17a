"""The master key that encrypts secrets at rest (provider API keys, vault values)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import secrets
import stat
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from kinbot_core.config import Settings

logger = logging.getLogger(__name__)

KEY_FILE_NAME = "secret.key"
KEY_BYTES = 32


class MasterKeyError(RuntimeError):
    """The key file is unreadable or malformed: the message says what to do."""


def _derive(passphrase: str) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=b"kinbot master key"
    ).derive(passphrase.encode())


def _read(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        logger.warning("%s was readable by others (mode %o): now 0600", path, mode)
        os.chmod(path, 0o600)
    try:
        key = base64.urlsafe_b64decode(path.read_bytes().strip())
    except ValueError as exc:
        raise MasterKeyError(f"{path} is not a KinBot key file") from exc
    if len(key) != KEY_BYTES:
        raise MasterKeyError(f"{path} does not hold a {KEY_BYTES}-byte key")
    return key


def _read_or_create(path: Path, database: Path) -> bytes:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    existing_data = database.exists()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path)
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(descriptor, "wb") as key_file:
        key_file.write(base64.urlsafe_b64encode(key) + b"\n")
    if existing_data:
        # A restored backup without its key, or a lost key file. The new key is written so
        # that secrets entered again are kept; what was sealed under the old one is left as
        # it is (listed as unreadable) and opens again once the old key is put back.
        logger.warning(
            "the data directory holds a database but no %s: a new master key was generated "
            "in %s. Secrets saved under the previous key (provider keys, Vault values, channel "
            "tokens) cannot be opened with it. To open them, stop KinBot and copy the original "
            "%s over this one (or set KINBOT_SECRET_KEY to its passphrase); secrets entered "
            "again meanwhile would then need entering once more",
            KEY_FILE_NAME,
            path,
            KEY_FILE_NAME,
        )
    else:
        logger.info("generated a new master key in %s (back it up with the database)", path)
    return key


def load_master_key(settings: Settings) -> bytes:
    """The 32-byte master key: derived from ``KINBOT_SECRET_KEY`` when set, otherwise read
    from (or, on first start, generated into) the 0600 key file in the data directory."""
    if settings.secret_key is not None:
        return _derive(settings.secret_key.get_secret_value())
    return _read_or_create(settings.data_dir / KEY_FILE_NAME, settings.database_path)


async def ensure_master_key(settings: Settings) -> bytes:
    """``load_master_key`` off the event loop."""
    return await asyncio.to_thread(load_master_key, settings)

"""Authenticated encryption of secrets at rest (AES-256-GCM under the master key)."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_NONCE_BYTES = 12
_VERSION = b"\x01"


class DecryptionError(RuntimeError):
    """A sealed value could not be opened: wrong master key, or the data was altered."""


class SecretBox:
    """Seals and opens small secrets. ``context`` binds a value to where it is stored (a
    provider's id, say), so a sealed value copied to another row does not open."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def seal(self, plaintext: bytes, context: str) -> bytes:
        """Encrypt ``plaintext``: version byte, random nonce, ciphertext and tag."""
        nonce = os.urandom(_NONCE_BYTES)
        return _VERSION + nonce + self._aead.encrypt(nonce, plaintext, context.encode())

    def open(self, sealed: bytes, context: str) -> bytes:
        """Decrypt what ``seal`` produced for the same ``context``."""
        if sealed[:1] != _VERSION:
            raise DecryptionError("unknown format of an encrypted value")
        nonce, body = sealed[1 : 1 + _NONCE_BYTES], sealed[1 + _NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, body, context.encode())
        except InvalidTag:
            raise DecryptionError(
                "an encrypted value cannot be read: the master key changed or the data was altered"
            ) from None

"""A file encrypted under a passphrase: scrypt derives a key from it, AES-256-GCM encrypts.

The layout is ``MAGIC``, a 4-byte big-endian length, a JSON header (the scrypt parameters,
salt and nonce), the ciphertext, and GCM's 16-byte tag. The magic and header are the
associated data, so nothing of them can be changed either. Encryption and decryption stream
(the archive may be larger than memory); decryption writes to a file and only says it is
good once the tag checks, so the caller must not use that file before ``open_file`` returns.
"""

from __future__ import annotations

import base64
import json
import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MAGIC = b"KINBOT-BACKUP\x00v1"
TAG_BYTES = 16
CHUNK = 1024 * 1024
#: scrypt cost: 2**17 x 8 x 128 bytes = 128 MiB of memory, well under a second.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
#: The most a header may ask of scrypt (a hostile archive must not exhaust memory or time).
MAX_SCRYPT_N, MAX_SCRYPT_R, MAX_SCRYPT_P = 2**20, 16, 4
MAX_HEADER_BYTES = 4096


class SealedFileError(ValueError):
    """The file is not a KinBot backup, was altered, or the passphrase is wrong."""


def _key(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode())


class SealingWriter:
    """A binary file-like object that encrypts what is written to it into ``target``
    (a tar stream goes straight through it, so the plain archive never touches the disk).
    ``close`` writes the tag; it does not close ``target``."""

    def __init__(self, target: BinaryIO, passphrase: str) -> None:
        if not passphrase:
            raise SealedFileError("a backup needs a passphrase")
        salt, nonce = os.urandom(16), os.urandom(12)
        header = json.dumps(
            {
                "kdf": "scrypt",
                "n": SCRYPT_N,
                "r": SCRYPT_R,
                "p": SCRYPT_P,
                "salt": base64.b64encode(salt).decode(),
                "cipher": "AES-256-GCM",
                "nonce": base64.b64encode(nonce).decode(),
            }
        ).encode()
        prefix = MAGIC + struct.pack(">I", len(header)) + header
        key = _key(passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
        self._encryptor = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
        self._encryptor.authenticate_additional_data(prefix)
        self._target = target
        self._target.write(prefix)
        self.closed = False

    def write(self, data: bytes) -> int:
        self._target.write(self._encryptor.update(data))
        return len(data)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._target.write(self._encryptor.finalize())
        self._target.write(self._encryptor.tag)


def _read_header(sealed: BinaryIO) -> tuple[bytes, dict[str, Any]]:
    magic = sealed.read(len(MAGIC))
    if magic != MAGIC:
        raise SealedFileError("this file is not a KinBot backup")
    (length,) = struct.unpack(">I", sealed.read(4).rjust(4, b"\xff"))
    if length > MAX_HEADER_BYTES:
        raise SealedFileError("the backup's header is malformed")
    raw = sealed.read(length)
    try:
        header = json.loads(raw)
        salt = base64.b64decode(header["salt"], validate=True)
        nonce = base64.b64decode(header["nonce"], validate=True)
        n, r, p = int(header["n"]), int(header["r"]), int(header["p"])
    except (ValueError, KeyError, TypeError):
        raise SealedFileError("the backup's header is malformed") from None
    if header.get("kdf") != "scrypt" or header.get("cipher") != "AES-256-GCM":
        raise SealedFileError("the backup uses an unknown encryption")
    if not (1 < n <= MAX_SCRYPT_N and n & (n - 1) == 0 and 0 < r <= MAX_SCRYPT_R):
        raise SealedFileError("the backup's key derivation asks too much")
    if not (0 < p <= MAX_SCRYPT_P and len(salt) >= 16 and len(nonce) == 12):
        raise SealedFileError("the backup's key derivation asks too much")
    header.update(salt=salt, nonce=nonce, n=n, r=r, p=p)
    return MAGIC + struct.pack(">I", length) + raw, header


def open_file(source: Path, target: BinaryIO, passphrase: str) -> None:
    """Decrypt ``source`` into ``target``; raises ``SealedFileError`` on a wrong passphrase or
    an altered file (then ``target`` holds unauthenticated bytes: discard it)."""
    size = source.stat().st_size
    with source.open("rb") as sealed:
        prefix, header = _read_header(sealed)
        body = size - len(prefix) - TAG_BYTES
        if body < 0:
            raise SealedFileError("the backup is truncated")
        sealed.seek(size - TAG_BYTES)
        tag = sealed.read(TAG_BYTES)
        sealed.seek(len(prefix))
        key = _key(passphrase, header["salt"], header["n"], header["r"], header["p"])
        decryptor = Cipher(algorithms.AES(key), modes.GCM(header["nonce"], tag)).decryptor()
        decryptor.authenticate_additional_data(prefix)
        left = body
        while left > 0:
            chunk = sealed.read(min(CHUNK, left))
            if not chunk:
                raise SealedFileError("the backup is truncated")
            left -= len(chunk)
            target.write(decryptor.update(chunk))
        try:
            target.write(decryptor.finalize())
        except InvalidTag:
            raise SealedFileError(
                "the passphrase is wrong, or the backup was altered or damaged"
            ) from None

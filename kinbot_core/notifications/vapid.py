"""The instance's VAPID key pair (RFC 8292): generated once, its private half sealed under the
master key in the database like the other secrets; browsers subscribe with the public half,
and push services check KinBot's signature against it."""

from __future__ import annotations

import base64
import binascii
import time
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid

from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import VapidKeyRecord

#: Where the private key is sealed (binds the sealed value to this use).
SEALING_CONTEXT = "vapid_key:1"


def b64url(data: bytes) -> str:
    """Unpadded base64url, as the Push API and VAPID write keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    """The bytes of unpadded (or padded) base64url; ``ValueError`` when it is not that."""
    cleaned = text.strip().rstrip("=")
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), altchars=b"-_", validate=True)
    except binascii.Error as error:
        raise ValueError(str(error)) from None


@dataclass(frozen=True)
class VapidKeys:
    """The key pair: ``public_key`` as browsers take it (``applicationServerKey``: the
    uncompressed P-256 point, base64url) and the signer for push requests."""

    public_key: str
    signer: Vapid


def _generate() -> tuple[str, bytes]:
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), private.private_numbers().private_value.to_bytes(32, "big")


def _keys(public_key: str, private_raw: bytes) -> VapidKeys:
    return VapidKeys(public_key, Vapid.from_raw(b64url(private_raw).encode()))


async def load_or_create(db: Database, box: SecretBox) -> VapidKeys:
    """The instance's VAPID keys, generated and stored on first use.

    ``kinbot_core.crypto.DecryptionError`` when the stored key cannot be opened (the master
    key changed): start-up fails with that message rather than silently making a new pair,
    which would cut off every subscribed browser.
    """

    def read_or_insert() -> tuple[str, bytes]:
        row = VapidKeyRecord.get_or_none(VapidKeyRecord.id == 1)
        if row is not None:
            return row.public_key, bytes(row.private_sealed)
        public_key, private_raw = _generate()
        sealed = box.seal(private_raw, SEALING_CONTEXT)
        VapidKeyRecord.insert(
            id=1, public_key=public_key, private_sealed=sealed, created_at=time.time()
        ).on_conflict_ignore().execute()
        row = VapidKeyRecord.get(VapidKeyRecord.id == 1)
        return row.public_key, bytes(row.private_sealed)

    public_key, sealed = await db.write(read_or_insert)
    return _keys(public_key, box.open(sealed, SEALING_CONTEXT))

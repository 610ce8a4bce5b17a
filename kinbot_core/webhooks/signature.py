"""The signature of a webhook request: an HMAC-SHA256 of its raw body under the webhook's
signing secret, sent as GitHub does (``X-Hub-Signature-256: sha256=<hex>``).

A sender that can add a second header sends the time it signed at, ``X-KinBot-Timestamp:
<Unix seconds>``; the HMAC then covers ``<timestamp>.<body>`` and a request whose timestamp is
further than the tolerance from the server's clock is refused, so a captured request cannot be
replayed later. Without the header the HMAC covers the body alone (what GitHub and most
services send).
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Hub-Signature-256"
TIMESTAMP_HEADER = "X-KinBot-Timestamp"
_PREFIX = "sha256="
#: Longest timestamp header read (a Unix time in seconds has 10 digits until 2286).
_TIMESTAMP_MAX_CHARS = 20


class SignatureRefused(Exception):
    """The request's signature is missing, wrong, or its timestamp out of tolerance."""


def signature_of(secret: bytes, body: bytes, timestamp: str | None = None) -> str:
    """The ``X-Hub-Signature-256`` value of ``body`` (signed at ``timestamp``, if given)."""
    signed = body if timestamp is None else timestamp.encode("ascii") + b"." + body
    return _PREFIX + hmac.new(secret, signed, hashlib.sha256).hexdigest()


def check_signature(
    secret: bytes,
    body: bytes,
    signature: str | None,
    timestamp: str | None,
    *,
    now: float,
    tolerance: float,
) -> None:
    """Raise ``SignatureRefused`` unless ``signature`` (the header's value) signs ``body``
    under ``secret``, and ``timestamp`` (the timestamp header's value, if sent) is within
    ``tolerance`` seconds of ``now``. The comparison takes the same time wherever it differs."""
    if not signature:
        raise SignatureRefused(f"The request has no {SIGNATURE_HEADER} header.")
    if timestamp is not None:
        timestamp = timestamp.strip()
        if not (timestamp.isascii() and timestamp.isdigit()) or len(timestamp) > (
            _TIMESTAMP_MAX_CHARS
        ):
            raise SignatureRefused(f"{TIMESTAMP_HEADER} is not a Unix time in seconds.")
        if abs(now - int(timestamp)) > tolerance:
            raise SignatureRefused(
                f"{TIMESTAMP_HEADER} is more than {tolerance:g} seconds from the server's clock."
            )
    expected = signature_of(secret, body, timestamp).encode("ascii")
    given = signature.strip().lower().encode("utf-8", "replace")
    if not hmac.compare_digest(expected, given):
        raise SignatureRefused(f"{SIGNATURE_HEADER} does not match the body.")

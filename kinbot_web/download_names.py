"""The ``Content-Disposition`` of a file sent for download: its name in ASCII for every
client, and as it is (RFC 6266 and RFC 5987's ``filename*``) for those that read UTF-8."""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

#: Typographic quotes folded to ASCII before the rest is decomposed.
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": "_", "\u201d": "_"})


def ascii_file_name(name: str) -> str:
    """``name`` with accents dropped and what a quoted header value cannot hold replaced
    (empty when nothing of it is ASCII)."""
    folded = unicodedata.normalize("NFKD", name.translate(_QUOTES))
    kept = "".join(
        "_" if char in '"\\' or ord(char) < 0x20 or ord(char) == 0x7F else char
        for char in folded.encode("ascii", "ignore").decode()
    )
    return kept.strip()


def attachment(name: str) -> str:
    """The header's value that downloads a file saved as ``name``."""
    encoded = quote(name, safe="")
    fallback = ascii_file_name(name) or "file"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}"

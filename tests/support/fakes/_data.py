"""Deterministic payloads shared by the fakes: embedding vectors, PNG images, search hits."""

from __future__ import annotations

import base64
import functools
import hashlib
import math
import re
import struct
import zlib

from tests.support.fakes._reply import SearchResult

_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=16384)
def _token_vector(token: str, dimension: int) -> tuple[int, ...]:
    raw = hashlib.shake_256(token.encode("utf-8")).digest(2 * dimension)
    return tuple(value - 32768 for value in struct.unpack(f"<{dimension}H", raw))


def fake_embedding(text: str, dimension: int) -> list[float]:
    """The vector every fake returns for ``text``: deterministic, unit length, float32-exact.

    It is a hashed bag of words (lower-cased ``\\w+`` tokens; the whole text when it has
    none), so texts sharing words have a higher cosine similarity than unrelated ones. The
    values are float32 numbers, so the vector is identical whether a client receives it as
    JSON floats or as base64 float32, and identical across fakes for a given dimension.
    """
    if dimension < 1:
        raise ValueError("dimension must be at least 1")
    tokens = _WORD.findall(text.lower()) or [text]
    totals = [0] * dimension
    for token in tokens:
        for i, value in enumerate(_token_vector(token, dimension)):
            totals[i] += value
    norm = math.sqrt(sum(value * value for value in totals)) or 1.0
    vector = [value / norm for value in totals]
    return list(struct.unpack(f"<{dimension}f", struct.pack(f"<{dimension}f", *vector)))


def embedding_base64(vector: list[float]) -> str:
    """``vector`` as base64 little-endian float32, as OpenAI and Voyage send it."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def png_image(seed: str = "", *, width: int = 8, height: int = 8) -> bytes:
    """A small, valid PNG of one colour derived from ``seed``."""
    red, green, blue = hashlib.sha256(seed.encode("utf-8")).digest()[:3]
    row = b"\x00" + bytes((red, green, blue)) * width
    pixels = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def default_search_results(query: str, count: int = 3) -> list[SearchResult]:
    """The hits a search fake returns when none are scripted: ``count`` (at most 3) results
    whose titles, URLs and snippets are derived from ``query``."""
    slug = "-".join(_WORD.findall(query.lower())) or "query"
    return [
        SearchResult(
            title=f"Result {n} for {query}",
            url=f"https://example.com/{slug}/{n}",
            snippet=f"Fake page {n} about {query}.",
            published=f"2025-01-{n:02d}T12:00:00",
        )
        for n in range(1, min(count, 3) + 1)
    ]

"""The vectors of an ``/embeddings`` answer in OpenAI's wire format, read from its JSON.

Each embedding is base64 little-endian float32 (asked with ``encoding_format: base64``, as
the openai SDK asks by default) or, from servers that ignore that, a list of numbers. Read
here rather than by the SDK's models: building a pydantic object holding each of a batch's
1,536 floats cost more CPU than anything else the history indexer does per message."""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from typing import Any

from kinbot_core.providers import MalformedResponse, Vector


def embedding_vectors(answer: Any, count: int, label: str) -> tuple[list[Vector], int]:
    """The ``count`` vectors of ``answer`` (the answer's JSON), in the order of the texts
    (``array('f')`` from base64, lists from lists of numbers),
    and the input tokens it reports (0 when it does not). ``MalformedResponse`` (naming
    ``label``) when it is not such an answer."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        given = len(data) if isinstance(data, list) else 0
        raise MalformedResponse(f"{label} returned {given} vectors for {count} texts.")
    vectors: list[Vector | None] = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or vectors[index] is not None:
            raise MalformedResponse(f"{label} returned a vector without its place.")
        vectors[index] = _vector(item.get("embedding"), label)
    usage = answer.get("usage")
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else 0
    return [v for v in vectors if v is not None], tokens if isinstance(tokens, int) else 0


def _vector(embedding: Any, label: str) -> Vector:
    if isinstance(embedding, str):
        try:
            floats = array("f", base64.b64decode(embedding, validate=True))
        except (binascii.Error, ValueError) as exc:
            raise MalformedResponse(f"{label} returned a vector that is not float32.") from exc
        if sys.byteorder == "big":
            floats.byteswap()
        return floats
    if isinstance(embedding, list) and all(
        isinstance(value, int | float) and not isinstance(value, bool) for value in embedding
    ):
        return [float(value) for value in embedding]
    raise MalformedResponse(f"{label} returned a vector that is not a list of numbers.")

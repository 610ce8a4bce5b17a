"""What a test scripts: one ``Reply`` per request, and the search results some replies carry."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SearchResult:
    """One web search hit, rendered in each search provider's own format.

    ``published`` is an ISO 8601 date or datetime (``"2025-01-31"``), or ``None``.
    """

    title: str
    url: str
    snippet: str = ""
    published: str | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted answer of a fake provider server.

    A fake answers each request with the next ``Reply`` queued for that endpoint, or with a
    default one (text ``"Hello from the fake <provider>."``) when none is queued. Fields that
    do not apply to an endpoint are ignored (``text`` on an embeddings call, for example).

    - ``text``: the assistant's text; streamed in pieces of ``chunk_size`` characters.
    - ``tool_calls``: ``(name, arguments)`` pairs, sent after the text. Streamed arguments are
      JSON split in pieces of ``chunk_size`` characters where the provider streams them.
    - ``status``: an HTTP status; 400 and above answers with the provider's error body (with
      ``error_message``, or a default message) instead of a normal reply.
    - ``error_message`` below 400, on a streamed OpenAI chat: the stream sends the text, then
      an ``error`` object in place of its end, as a server whose generation fails once the
      answer has begun does.
    - ``error_type``: overrides the provider's error kind (Anthropic ``error.type``, OpenAI
      ``error.type``, Gemini ``error.status``, Brave ``error.code``).
    - ``headers``: extra response headers, e.g. ``{"retry-after": "1"}`` with status 429.
    - ``held``: an event the answer waits for before its first byte (and its ``delay``): the
      test sets it when the request may be answered (a turn kept running meanwhile).
    - ``held_after``: with ``held``, how many events of a stream are sent before that wait
      (0: before the first byte; a stream of no more events ends without it): an answer
      begun and kept running until the test lets it go.
    - ``delay``: seconds before the first byte (headers included): use it for timeouts.
    - ``chunk_delay``: seconds between streamed events.
    - ``malformed``: send a syntactically broken JSON body, or broken JSON inside the stream.
    - ``usage``: ``(input_tokens, output_tokens)`` reported to the client.
    - ``stop_reason``: overrides the provider's finish reason (``"max_tokens"``, ``"length"``,
      ``"MAX_TOKENS"``...); by default it is the provider's normal or tool-call reason.
    - ``embedding_dimension``: forces the vector size of an embeddings reply.
    - ``search_results``: the hits of a search reply (``None``: the deterministic defaults).
    - ``image_bytes``: the image of an image reply (``None``: a small PNG derived from the
      prompt).
    """

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str | None = None
    error_type: str | None = None
    held: threading.Event | None = field(default=None, compare=False)
    held_after: int = 0
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunk_size: int = 8
    malformed: bool = False
    usage: tuple[int, int] = (12, 34)
    stop_reason: str | None = None
    embedding_dimension: int | None = None
    search_results: list[SearchResult] | None = None
    image_bytes: bytes | None = None

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        if self.held_after < 0 or (self.held_after and self.held is None):
            raise ValueError("held_after counts the events sent before held: it needs held")


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut in consecutive pieces of ``size`` characters (none for an empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]

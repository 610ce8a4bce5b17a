"""A streamed Chat Completions answer, read from the bytes of the SDK's HTTP response.

The answer is a ``text/event-stream`` of ``data:`` lines, one JSON chunk an event, ended by
``data: [DONE]``. The SDK's own reader decodes every line to text and passes each event through
three async generators; here each piece of the body is split as it comes (``EventData``) and
each event's data parsed by orjson (``answer_chunks``): an answer is read on every turn of
every Kin, and the SDK's reader cost a quarter of the call's CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from types import ModuleType
from typing import Any

import orjson

from kinbot_core.providers import MalformedResponse

#: What ends a streamed answer's events (OpenAI's Chat Completions and its imitators).
DONE = b"[DONE]"
#: Seconds given to the end of a streamed answer's body after ``[DONE]``, which normally
#: comes with it: read to its end, the connection is kept for the next call.
DRAIN_SECONDS = 1.0


class EventData:
    """Splits an event stream's bytes into its events' data, following the HTML standard's
    parsing rules: lines end with CR, LF or CR LF; an empty line ends an event; an event's
    ``data`` fields are joined by LF (one space after the colon dropped); comments, other
    fields and events without data are skipped; an event left unfinished at the end of the
    stream is dropped."""

    def __init__(self) -> None:
        self._held = b""  # the start of a line whose end has not arrived yet
        self._after_cr = False  # the last piece ended with CR: an LF opening the next ends it
        self._data: list[bytes] = []

    def feed(self, piece: bytes) -> list[bytes]:
        """The data of the events that ``piece`` (the next bytes of the body) completes."""
        if self._after_cr and piece.startswith(b"\n"):
            piece = piece[1:]
        self._after_cr = False
        if not piece:
            return []
        self._after_cr = piece.endswith(b"\r")
        text = self._held + piece if self._held else piece
        lines = text.splitlines()
        self._held = b"" if text.endswith((b"\n", b"\r")) else lines.pop()
        completed: list[bytes] = []
        for line in lines:
            if not line:
                if self._data:
                    completed.append(b"\n".join(self._data))
                    self._data = []
            elif line.startswith(b"data"):
                field, _, value = line.partition(b":")
                if field == b"data":
                    self._data.append(value[1:] if value.startswith(b" ") else value)
        return completed


async def answer_chunks(
    response: Any, sdk: ModuleType, label: str
) -> AsyncGenerator[dict[str, Any], None]:
    """The JSON chunks of a streamed answer (``response``, the SDK's HTTP response), up to
    ``[DONE]``; an error the server sent in the stream raises the SDK's ``APIError``, as the
    SDK's own reader does (a failed read raises ``httpx2``'s error: see
    ``translate_stainless``)."""
    events = EventData()
    pieces = response.aiter_bytes()
    try:
        async for piece in pieces:
            for data in events.feed(piece):
                if data.startswith(DONE):
                    import httpx2  # the SDK's HTTP library, loaded with it

                    # The rest of the body (usually nothing) is read, briefly, so that the
                    # connection is kept for the next call rather than closed.
                    with contextlib.suppress(TimeoutError, httpx2.RequestError):
                        async with asyncio.timeout(DRAIN_SECONDS):
                            async for _rest in pieces:
                                pass
                    return
                chunk = orjson.loads(data)
                if not isinstance(chunk, dict):
                    raise MalformedResponse(f"{label} sent a chunk that is not an object.")
                if error := chunk.get("error"):
                    message = error.get("message") if isinstance(error, dict) else None
                    raise sdk.APIError(
                        message if isinstance(message, str) and message else "stream error",
                        response.request,
                        body=error,
                    )
                yield chunk
    finally:
        await pieces.aclose()

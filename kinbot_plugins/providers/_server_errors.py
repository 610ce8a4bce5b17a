"""How servers say that a prompt does not fit the model's window, that a model is not there,
or that they are still starting, in their own words: turned into the typed errors the turn
acts on (``ContextOverflowError``, ``ModelNotLoaded``, ``ServerStarting``).

The wordings, as the servers send them in an error body's ``message`` (and ``type``/``code``):

- llama.cpp's server: 400 ``exceed_context_size_error``, "request (2950 tokens) exceeds the
  available context size (2048 tokens), try increasing it", with ``n_prompt_tokens`` and
  ``n_ctx`` beside it (older builds: "the request exceeds the available context size");
  503 ``unavailable_error`` "Loading model" while it loads;
- OpenAI, vLLM and llama-cpp-python: 400 ``context_length_exceeded``, "This model's maximum
  context length is 2048 tokens. However, you requested 2950 tokens (…)" or "…your messages
  resulted in 2950 tokens" or "…your request has 2950 input tokens";
- LM Studio: "…the model is loaded with context length of only 2048 tokens, which is not
  enough"; "No models loaded";
- Ollama: 404 "model \"llama3.2\" not found, try pulling it first";
- Anthropic: 400 "prompt is too long: 210000 tokens > 200000 maximum";
- Gemini: 400 ``INVALID_ARGUMENT`` "The input token count (1200000) exceeds the maximum
  number of tokens allowed (1048576).".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kinbot_core.providers import (
    ContextOverflowError,
    ModelNotLoaded,
    ProviderError,
    ServerStarting,
)

OVERFLOW_KINDS = {"exceed_context_size_error", "context_length_exceeded"}
_OVERFLOW = re.compile(
    r"context (?:length|size|window)|maximum context|prompt is too long|too many tokens"
    r"|exceeds? the (?:available )?context|input token count .{0,40}exceeds the maximum",
    re.IGNORECASE,
)
_WINDOW = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"available context size \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"context length of only (\d+)", re.IGNORECASE),
    re.compile(r"context window of (\d+)", re.IGNORECASE),
    re.compile(r"tokens > (\d+) maximum", re.IGNORECASE),
    re.compile(r"maximum number of tokens allowed \((\d+)\)", re.IGNORECASE),
)
_NEEDED = (
    re.compile(r"request \((\d+) tokens\) exceeds", re.IGNORECASE),
    re.compile(r"(?:requested|resulted in|request has) (\d+) (?:input )?tokens", re.IGNORECASE),
    re.compile(r"prompt is too long: (\d+) tokens", re.IGNORECASE),
    re.compile(r"requested tokens \((\d+)\)", re.IGNORECASE),
    re.compile(r"keep the first (\d+) tokens", re.IGNORECASE),
    re.compile(r"input token count \((\d+)\)", re.IGNORECASE),
)
#: The words that count the prompt alone (``_NEEDED``'s "requested" counts the answer too).
_PROMPT = (
    re.compile(r"request \((\d+) tokens\) exceeds", re.IGNORECASE),
    re.compile(r"\((\d+) in the messages", re.IGNORECASE),
    re.compile(r"(?:resulted in|request has) (\d+) (?:input )?tokens", re.IGNORECASE),
    re.compile(r"prompt is too long: (\d+) tokens", re.IGNORECASE),
    re.compile(r"input token count \((\d+)\)", re.IGNORECASE),
)
_NOT_LOADED = re.compile(
    r"try pulling|not loaded|no models? (?:are |is )?loaded|model \S.{0,100} not found",
    re.IGNORECASE,
)
_STARTING = re.compile(r"\bloading model\b", re.IGNORECASE)


def recognised(
    status: int, detail: str, error: Mapping[str, Any] | None, label: str
) -> ProviderError | None:
    """The typed error a server's ``status`` and words (``detail``: its message; ``error``:
    its error object) mean, or ``None`` when they are none of these."""
    error = error or {}
    kind = {str(error.get("type") or ""), str(error.get("code") or "")}
    if status in (400, 413, 422) and (kind & OVERFLOW_KINDS or _OVERFLOW.search(detail)):
        return ContextOverflowError(
            f"The model's context window is too small for this request. {detail}".strip(),
            window=_number(error.get("n_ctx")) or _first(_WINDOW, detail),
            needed=_number(error.get("n_prompt_tokens")) or _first(_NEEDED, detail),
            detail=detail,
            status=status,
            prompt_tokens=_number(error.get("n_prompt_tokens")) or _first(_PROMPT, detail),
        )
    if status in (400, 404) and _NOT_LOADED.search(detail):
        return ModelNotLoaded(
            f"{label} does not have the model ready. {detail}".strip(),
            detail=detail,
            status=status,
        )
    if status == 503 and _STARTING.search(detail):
        return ServerStarting(
            f"{label} is still loading its model. {detail}".strip(), detail=detail, status=status
        )
    return None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        if found := pattern.search(text):
            return int(found.group(1))
    return None

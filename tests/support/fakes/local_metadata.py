"""What local OpenAI-compatible servers say of their models' context, for ``FakeOpenAI``.

Each server has its own endpoint, off by default (404, as on OpenAI itself), switched on per
fake instance through ``fake.local`` (a ``LocalServerMetadata``)::

    fake.local.props = llama_cpp_props(n_ctx=2048)                  # llama.cpp: GET /props
    fake.local.ollama["qwen2.5:0.5b"] = ollama_show(32768, num_ctx=2048, tools=False)
    fake.local.lm_studio["qwen2-7b"] = lm_studio_model("qwen2-7b", 32768, loaded=4096)
    fake.local.model_fields["m"] = {"max_model_len": 8192}           # vLLM's /v1/models
    fake.local.model_fields["x/y"] = {"context_length": 200000}      # OpenRouter's
    fake.local.tokenize = 2.5            # llama.cpp: POST /tokenize, 2.5 characters a token

Queue ``Reply(status=500)`` on the endpoints ``"props"``, ``"show"``, ``"lm_studio"`` or
``"tokenize"`` to make one answer fail.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.fakes._reply import Reply
from tests.support.fakes._server import RecordedRequest, Response

#: Endpoint names of these routes (``FakeOpenAI.endpoints`` includes them).
ENDPOINTS = ("props", "show", "lm_studio", "tokenize")


@dataclass
class LocalServerMetadata:
    """The context metadata a fake server gives; ``None``/empty: that endpoint is absent."""

    #: llama.cpp's ``GET /props`` body.
    props: dict[str, Any] | None = None
    #: Ollama's ``POST /api/show`` bodies, by model.
    ollama: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: LM Studio's ``GET /api/v0/models[/{id}]`` entries, by model.
    lm_studio: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Extra fields of each ``GET /v1/models`` entry, by model.
    model_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: llama.cpp's ``POST /tokenize``: the characters its tokenizer makes one token of.
    tokenize: float | None = None


def llama_cpp_props(n_ctx: int, total_slots: int = 1) -> dict[str, Any]:
    """A ``GET /props`` body as llama-server sends it (the fields KinBot may read)."""
    return {
        "default_generation_settings": {"id": 0, "n_ctx": n_ctx, "is_processing": False},
        "total_slots": total_slots,
        "model_path": "models/fake.gguf",
        "chat_template": "",
        "build_info": "b0-fake",
    }


def ollama_show(
    context_length: int,
    *,
    num_ctx: int | None = None,
    tools: bool = True,
    architecture: str = "qwen2",
) -> dict[str, Any]:
    """An ``/api/show`` body: the model's maximum in ``model_info``, ``num_ctx`` in
    ``parameters`` when the Modelfile sets it, and its ``capabilities``."""
    parameters = 'stop "<|im_end|>"'
    if num_ctx is not None:
        parameters += f"\nnum_ctx {num_ctx}"
    return {
        "modelfile": "FROM fake",
        "parameters": parameters,
        "template": "{{ .Prompt }}",
        "details": {"format": "gguf", "family": architecture, "parameter_size": "494.03M"},
        "model_info": {
            "general.architecture": architecture,
            f"{architecture}.context_length": context_length,
            f"{architecture}.embedding_length": 896,
        },
        "capabilities": ["completion", "tools"] if tools else ["completion"],
    }


def lm_studio_model(
    model_id: str, max_context: int, *, loaded: int | None = None
) -> dict[str, Any]:
    """One LM Studio ``/api/v0/models`` entry, loaded with ``loaded`` tokens or not loaded."""
    entry: dict[str, Any] = {
        "id": model_id,
        "object": "model",
        "type": "llm",
        "arch": "qwen2",
        "state": "loaded" if loaded else "not-loaded",
        "max_context_length": max_context,
    }
    if loaded:
        entry["loaded_context_length"] = loaded
    return entry


Handler = Callable[[RecordedRequest, Reply], Response]


def local_route(
    metadata: LocalServerMetadata, method: str, path: str
) -> tuple[str, Handler] | None:
    """The endpoint and handler of a local server's metadata request, or ``None``."""
    if method == "GET" and path == "/props" and metadata.props is not None:
        props = metadata.props
        return "props", lambda request, reply: Response.json(props)
    if method == "POST" and path == "/api/show" and metadata.ollama:
        return "show", lambda request, reply: _ollama_show(metadata, request)
    if method == "GET" and path.startswith("/api/v0/models") and metadata.lm_studio:
        return "lm_studio", lambda request, reply: _lm_studio(metadata, path)
    if method == "POST" and path == "/tokenize" and metadata.tokenize is not None:
        chars_per_token = metadata.tokenize
        return "tokenize", lambda request, reply: _tokenize(chars_per_token, request)
    return None


def _tokenize(chars_per_token: float, request: RecordedRequest) -> Response:
    """llama-server's answer: ``{"tokens": [ids]}`` for ``{"content": text}``."""
    body = request.body if isinstance(request.body, dict) else {}
    content = body.get("content")
    if not isinstance(content, str):
        return Response.json({"error": {"code": 400, "message": "content is required"}}, 400)
    return Response.json({"tokens": list(range(math.ceil(len(content) / chars_per_token)))})


def _ollama_show(metadata: LocalServerMetadata, request: RecordedRequest) -> Response:
    body = request.body if isinstance(request.body, dict) else {}
    model = str(body.get("model") or body.get("name") or "")
    shown = metadata.ollama.get(model)
    if shown is None:
        return Response.json({"error": f"model '{model}' not found"}, status=404)
    return Response.json(shown)


def _lm_studio(metadata: LocalServerMetadata, path: str) -> Response:
    model = path.removeprefix("/api/v0/models").removeprefix("/")
    if not model:
        return Response.json({"object": "list", "data": list(metadata.lm_studio.values())})
    entry = metadata.lm_studio.get(model)
    if entry is None:
        return Response.json({"error": "Model not found"}, status=404)
    return Response.json(entry)

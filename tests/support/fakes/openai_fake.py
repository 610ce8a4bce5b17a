"""A fake OpenAI API (chat completions, embeddings, images, models), also the stand-in for
OpenAI-compatible servers such as Ollama and LM Studio."""

from __future__ import annotations

import base64
import json
import math
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tests.support.fakes._data import embedding_base64, fake_embedding, png_image
from tests.support.fakes._reply import Reply
from tests.support.fakes._server import (
    BadRequest,
    FakeServer,
    Handler,
    RecordedRequest,
    Response,
    bearer_token,
)
from tests.support.fakes.local_metadata import ENDPOINTS, LocalServerMetadata, local_route
from tests.support.fakes.openai_stream_forms import STREAM_FORMS, TEXT_FORMS

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}

_EMBEDDING_DIMENSIONS = {"text-embedding-3-large": 3072}
#: How a server with a context window (``FakeOpenAI.window``) refuses a prompt too long for it.
OVERFLOW_FORMS = ("llama.cpp", "openai", "vllm", "truncated", "length")
DEFAULT_EMBEDDING_DIMENSION = 1536


def _data(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


class FakeOpenAI(FakeServer):
    """The OpenAI REST API on loopback, under ``/v1``.

    Point the SDK at it with ``AsyncOpenAI(api_key=..., base_url=f"{fake.base_url}/v1")``; an
    OpenAI-compatible client uses the same ``.../v1`` base URL. ``stream_form`` names the form
    of streamed tool calls (``openai_stream_forms``: ``"openai"``, or one local servers send).
    Endpoints: ``"chat"``
    (POST /v1/chat/completions, the default), ``"embeddings"`` (POST /v1/embeddings),
    ``"images"`` (POST /v1/images/generations) and ``"models"`` (GET /v1/models and
    /v1/models/{id}). Key: ``Authorization: Bearer``. ``fake.local`` switches on what local
    servers say of their models' context (``local_metadata``).
    """

    provider = "OpenAI"
    endpoints = ("chat", "embeddings", "images", "models", *ENDPOINTS)
    default_models = (
        "gpt-4o",
        "gpt-4o-mini",
        "gpt-3.5-turbo",
        "text-embedding-3-small",
        "text-embedding-3-large",
        "dall-e-3",
        "gpt-image-1",
    )
    stream_form = "openai"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.local = LocalServerMetadata()

    #: A context window, in tokens: a chat request whose prompt (its messages' and tools'
    #: JSON, four characters a token) and ``max_tokens`` exceed it is refused in the
    #: ``overflow_form`` of ``OVERFLOW_FORMS`` (``None``: no window); llama.cpp refuses only
    #: a prompt longer than the window, and says its size; OpenAI's words count the prompt
    #: alone, vLLM's the prompt and the answer's room.
    window: int | None = None
    overflow_form: str = "llama.cpp"
    #: The characters the fake's tokenizer makes one token of, in what its window counts and,
    #: with ``usage_from_prompt``, in the prompt tokens an answer's usage reports (instead
    #: of ``Reply.usage``'s): fewer than four, a tokenizer denser than KinBot's estimate.
    chars_per_token: float = 4
    usage_from_prompt: bool = False

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if (local := local_route(self.local, method, path)) is not None:
            return local
        routes: dict[tuple[str, str], tuple[str, Handler]] = {
            ("POST", "/v1/chat/completions"): ("chat", self._chat),
            ("POST", "/v1/embeddings"): ("embeddings", self._embeddings),
            ("POST", "/v1/images/generations"): ("images", self._images),
            ("GET", "/v1/models"): ("models", self._list_models),
        }
        if (method, path) in routes:
            return routes[(method, path)]
        if method == "GET" and path.startswith("/v1/models/"):
            return "models", self._get_model
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return bearer_token(headers)

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        kind, code = _ERROR_TYPES.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None)
        )
        return {
            "error": {"message": message, "type": error_type or kind, "param": None, "code": code}
        }

    def _error_message(self, status: int) -> str:
        if status == 401:
            return (
                "Incorrect API key provided. You can find your API key at"
                " https://platform.openai.com/account/api-keys."
            )
        if status == 429:
            return "Rate limit reached for requests (fake). Please try again later."
        return super()._error_message(status)

    @staticmethod
    def _json_object(request: RecordedRequest, *required: str) -> dict[str, Any]:
        body = request.body
        if not isinstance(body, dict):
            raise BadRequest("We could not parse the JSON body of your request.")
        for name in required:
            if name not in body:
                raise BadRequest(f"Missing required parameter: '{name}'.")
        return body

    # -- chat ---------------------------------------------------------------------------

    def _finish_reason(self, reply: Reply) -> str:
        calls = reply.tool_calls and self.stream_form not in TEXT_FORMS
        return reply.stop_reason or ("tool_calls" if calls else "stop")

    def _usage(self, reply: Reply) -> dict[str, int]:
        prompt, completion = reply.usage
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _chat(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._json_object(request, "model", "messages")
        model = str(body["model"])
        if (refusal := self._over_window(body)) is not None:
            return refusal
        if self.usage_from_prompt:
            counted = self.prompt_tokens(body, self.chars_per_token)
            reply = replace(reply, usage=(counted, reply.usage[1]))
        if body.get("stream"):
            options = body.get("stream_options") or {}
            return self._chat_stream(model, reply, include_usage=bool(options.get("include_usage")))
        if reply.malformed:
            return Response.broken_json(
                '{"id": "chatcmpl-broken", "object": "chat.completion", "choices": ['
            )
        tool_calls = [
            {
                "id": self._next_id("call_fake_"),
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for name, arguments in reply.tool_calls
        ]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text if reply.text or not tool_calls else None,
            "refusal": None,
        }
        if tool_calls:
            message["tool_calls"] = tool_calls
        return Response.json(
            {
                "id": self._next_id("chatcmpl-fake"),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": self._finish_reason(reply),
                    }
                ],
                "usage": self._usage(reply),
            }
        )

    def _chat_stream(self, model: str, reply: Reply, *, include_usage: bool) -> Response:
        completion_id = self._next_id("chatcmpl-fake")
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
            payload: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
                ],
            }
            if include_usage:
                payload["usage"] = None
            return _data(payload)

        events = [chunk({"role": "assistant", "content": "", "refusal": None})]
        if reply.malformed:
            events.append(
                b'data: {"id": "' + completion_id.encode() + b'", "choices": [{"delta": \n\n'
            )
            return Response.sse(events)
        events += [chunk(delta) for delta in STREAM_FORMS[self.stream_form](reply, self._next_id)]
        if reply.error_message is not None:  # failed once the answer had begun
            error = {"message": reply.error_message, "type": reply.error_type or "server_error"}
            return Response.sse([*events, _data({"error": error})])
        events.append(chunk({}, self._finish_reason(reply)))
        if include_usage:
            events.append(
                _data(
                    {
                        "id": completion_id,
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "system_fingerprint": "fp_fake",
                        "choices": [],
                        "usage": self._usage(reply),
                    }
                )
            )
        events.append(b"data: [DONE]\n\n")
        return Response.sse(events)

    # -- a server with a context window -----------------------------------------------------

    @staticmethod
    def prompt_tokens(body: dict[str, Any], chars_per_token: float = 4) -> int:
        """The tokens of a chat request's prompt as this fake counts them."""
        text = json.dumps(body.get("messages") or []) + json.dumps(body.get("tools") or [])
        return math.ceil(len(text) / chars_per_token)

    @classmethod
    def needed_tokens(cls, body: dict[str, Any], chars_per_token: float = 4) -> int:
        """The tokens a chat request needs: its prompt and the answer it asks room for."""
        return cls.prompt_tokens(body, chars_per_token) + int(body.get("max_tokens") or 0)

    def _over_window(self, body: dict[str, Any]) -> Response | None:
        """The refusal of a request too long for ``window``, in ``overflow_form``."""
        if self.window is None:
            return None
        prompt = self.prompt_tokens(body, self.chars_per_token)
        needed = self.needed_tokens(body, self.chars_per_token)
        window, form = self.window, self.overflow_form
        # llama-server refuses a prompt longer than its window, whatever answer is asked for
        # (it ends the answer when the window is full); the others count the answer's room.
        if (prompt if form == "llama.cpp" else needed) <= window:
            return None
        if form == "llama.cpp":
            error: dict[str, Any] = {
                "code": 400,
                "message": f"request ({prompt} tokens) exceeds the available context size "
                f"({window} tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": window,
            }
            return Response.json({"error": error}, status=400)
        if form in ("openai", "vllm"):
            said = (
                f"However, your messages resulted in {prompt} tokens. Please reduce the length "
                "of the messages."
                if form == "openai"
                else f"However, you requested {needed} tokens ({prompt} in the messages, "
                f"{needed - prompt} in the completion). Please reduce the length of the "
                "messages or completion."
            )
            error = {
                "message": f"This model's maximum context length is {window} tokens. {said}",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
            return Response.json({"error": error}, status=400)
        return self._cut_short(str(body["model"]), finished=form == "length")

    def _cut_short(self, model: str, *, finished: bool) -> Response:
        """A stream that ends before its first word: without a finish reason (the server
        gave up mid-way), or with ``length`` (no room left to answer)."""
        payload: dict[str, Any] = {
            "id": self._next_id("chatcmpl-fake"),
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}],
        }
        events = [_data(payload)]
        if finished:
            payload["choices"] = [{"index": 0, "delta": {}, "finish_reason": "length"}]
            events += [_data(payload), b"data: [DONE]\n\n"]
        return Response.sse(events)

    # -- embeddings ---------------------------------------------------------------------

    def _embeddings(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._json_object(request, "model", "input")
        if reply.malformed:
            return Response.broken_json('{"object": "list", "data": [{"embedding": [0.1, ')
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts:
            raise BadRequest("'input' must be a non-empty string or array.")
        model = str(body["model"])
        dimension = int(
            reply.embedding_dimension
            or body.get("dimensions")
            or _EMBEDDING_DIMENSIONS.get(model, DEFAULT_EMBEDDING_DIMENSION)
        )
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            # Token arrays are embedded through their JSON text.
            vector = fake_embedding(text if isinstance(text, str) else json.dumps(text), dimension)
            data.append(
                {
                    "object": "embedding",
                    "index": index,
                    "embedding": embedding_base64(vector) if as_base64 else vector,
                }
            )
        prompt = reply.usage[0]
        return Response.json(
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": prompt, "total_tokens": prompt},
            }
        )

    # -- images -------------------------------------------------------------------------

    def _images(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._json_object(request, "prompt")
        if reply.malformed:
            return Response.broken_json('{"created": 1, "data": [{"b64_json": "iVBOR')
        prompt = str(body["prompt"])
        count = int(body.get("n") or 1)
        image = reply.image_bytes or png_image(prompt)
        items: list[dict[str, Any]] = []
        for _ in range(count):
            if body.get("response_format") == "url":
                name = self._next_id("image_") + ".png"
                items.append(
                    {"url": self._publish_file(name, "image/png", image), "revised_prompt": prompt}
                )
            else:
                items.append(
                    {"b64_json": base64.b64encode(image).decode("ascii"), "revised_prompt": prompt}
                )
        return Response.json({"created": int(time.time()), "data": items})

    # -- models -------------------------------------------------------------------------

    def _model(self, model_id: str) -> dict[str, Any]:
        entry = {"id": model_id, "object": "model", "created": 1715367049, "owned_by": "openai"}
        return {**entry, **self.local.model_fields.get(model_id, {})}

    def _list_models(self, request: RecordedRequest, reply: Reply) -> Response:
        if reply.malformed:
            return Response.broken_json('{"object": "list", "data": [')
        return Response.json(
            {"object": "list", "data": [self._model(model_id) for model_id in self.models]}
        )

    def _get_model(self, request: RecordedRequest, reply: Reply) -> Response:
        model_id = request.path.removeprefix("/v1/models/")
        if model_id not in self.models:
            return self._error(404, f"The model '{model_id}' does not exist")
        return Response.json(self._model(model_id))


def ollama_model_missing(model: str) -> Reply:
    """Ollama's answer for a model that was never pulled (its OpenAI-compatible API)."""
    return Reply(
        status=404,
        error_message=f'model "{model}" not found, try pulling it first',
        error_type="api_error",
    )


def llamacpp_loading() -> Reply:
    """llama.cpp's server's answer while it still loads its model."""
    return Reply(status=503, error_message="Loading model", error_type="unavailable_error")

"""A fake Gemini API: generate (streamed and not), embed, Imagen predict and the model list."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

from tests.support.fakes._data import fake_embedding, png_image
from tests.support.fakes._reply import Reply, pieces
from tests.support.fakes._server import BadRequest, FakeServer, Handler, RecordedRequest, Response

_VERSIONS = "v1|v1beta|v1alpha|v1beta1"
_METHOD_PATH = re.compile(rf"^/(?P<version>{_VERSIONS})/(?P<resource>.+?):(?P<method>[A-Za-z]+)$")
_MODELS_PATH = re.compile(rf"^/(?P<version>{_VERSIONS})/models(?:/(?P<model>[^/:]+))?$")

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

_MODEL_METHODS = {
    "gemini-embedding-001": ["embedContent", "countTextTokens", "countTokens"],
    "text-embedding-004": ["embedContent"],
    "imagen-4.0-generate-001": ["predict"],
}


def _data(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\r\n\r\n".encode()


def _model_id(resource: str) -> str:
    """``gemini-2.5-flash`` from ``models/gemini-2.5-flash`` or
    ``projects/p/locations/l/publishers/google/models/gemini-2.5-flash``."""
    return resource.rsplit("/", 1)[-1]


def _content_text(content: Any) -> str:
    """The text parts of a ``Content`` (or a bare string) joined together."""
    if isinstance(content, str):
        return content
    if not isinstance(content, dict):
        raise BadRequest("Invalid value at 'content': expected a Content object.")
    return "".join(
        str(part.get("text", "")) for part in content.get("parts", []) if isinstance(part, dict)
    )


def default_embedding_dimension(model: str) -> int:
    """3072 for ``gemini-embedding-*`` models, 768 otherwise (``text-embedding-004``)."""
    return 3072 if "gemini-embedding" in model else 768


class FakeGemini(FakeServer):
    """The Gemini API (and the Imagen ``:predict`` call) on loopback.

    Point google-genai at it with ``genai.Client(api_key=..., http_options=
    types.HttpOptions(base_url=fake.base_url))``; the SDK adds the version (``v1`` by default
    in this release, ``v1beta`` with ``api_version="v1beta"``) and every version is served.
    ``generate_images`` only exists in Vertex mode in this SDK: use ``genai.Client(
    vertexai=True, api_key=..., http_options=types.HttpOptions(base_url=fake.base_url))``.

    Endpoints: ``"generate"`` (``:generateContent`` and ``:streamGenerateContent``, the
    default), ``"embed"`` (``:embedContent``, ``:batchEmbedContents``, and ``:predict`` with
    text instances), ``"images"`` (``:predict`` with prompt instances), ``"count_tokens"``
    (``:countTokens``) and ``"models"`` (GET .../models and .../models/{id}). Key:
    ``x-goog-api-key`` or ``?key=``. A generate call to a model whose id contains ``image``
    (``gemini-2.5-flash-image``), or a reply with ``image_bytes``, also answers an
    ``inlineData`` PNG part, as Gemini's native image generation does.
    """

    provider = "Gemini"
    endpoints = ("generate", "embed", "images", "count_tokens", "models")
    default_models = (
        "gemini-2.5-flash",
        "gemini-2.5-pro",
        "gemini-2.0-flash",
        "gemini-2.5-flash-image",
        "gemini-embedding-001",
        "text-embedding-004",
        "imagen-4.0-generate-001",
    )

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if method == "GET":
            match = _MODELS_PATH.match(path)
            if match is None:
                return None
            return "models", self._get_model if match["model"] else self._list_models
        match = _METHOD_PATH.match(path)
        if method != "POST" or match is None:
            return None
        action = match["method"]
        if action in ("generateContent", "streamGenerateContent"):
            return "generate", self._generate
        if action in ("embedContent", "batchEmbedContents"):
            return "embed", self._embed
        if action == "countTokens":
            return "count_tokens", self._count_tokens
        if action == "predict":
            instances = body.get("instances") if isinstance(body, dict) else None
            first = instances[0] if isinstance(instances, list) and instances else {}
            if isinstance(first, dict) and "prompt" in first:
                return "images", self._images
            return "embed", self._predict_embeddings
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return headers.get("x-goog-api-key") or query.get("key") or None

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        error: dict[str, Any] = {
            "code": status,
            "message": message,
            "status": error_type
            or _STATUSES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION"),
        }
        if status == 401:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                }
            ]
        return {"error": error}

    def _error_message(self, status: int) -> str:
        if status == 401:
            return "API key not valid. Please pass a valid API key."
        if status == 429:
            return "Resource has been exhausted (e.g. check quota)."
        return super()._error_message(status)

    @staticmethod
    def _parts(request: RecordedRequest) -> tuple[str, str]:
        match = _METHOD_PATH.match(request.path)
        assert match is not None
        return _model_id(match["resource"]), match["method"]

    @staticmethod
    def _body(request: RecordedRequest) -> dict[str, Any]:
        if not isinstance(request.body, dict):
            raise BadRequest("Invalid JSON payload received.")
        return request.body

    # -- generate -----------------------------------------------------------------------

    def _usage(self, reply: Reply, *, final: bool) -> dict[str, int]:
        prompt, candidates = reply.usage
        if not final:
            return {"promptTokenCount": prompt, "totalTokenCount": prompt}
        return {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates,
        }

    def _response(
        self,
        model: str,
        response_id: str,
        parts: list[dict[str, Any]],
        reply: Reply,
        *,
        final: bool,
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if final:
            candidate["finishReason"] = reply.stop_reason or "STOP"
        return {
            "candidates": [candidate],
            "usageMetadata": self._usage(reply, final=final),
            "modelVersion": model,
            "responseId": response_id,
        }

    def _generate(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._body(request)
        if not isinstance(body.get("contents"), list):
            raise BadRequest("* GenerateContentRequest.contents: contents is not specified")
        model, action = self._parts(request)
        response_id = self._next_id("fake-response-")
        extra_parts: list[dict[str, Any]] = [
            {"functionCall": {"name": name, "args": args}} for name, args in reply.tool_calls
        ]
        image = reply.image_bytes
        if image is None and "image" in model:
            image = png_image(
                "".join(_content_text(item) for item in body["contents"] if isinstance(item, dict))
            )
        if image is not None:
            inline = {
                "inlineData": {
                    "mimeType": "image/png",
                    "data": base64.b64encode(image).decode("ascii"),
                }
            }
            extra_parts.insert(0, inline)
        if action == "generateContent":
            if reply.malformed:
                return Response.broken_json('{"candidates": [{"content": {"parts": [')
            parts = ([{"text": reply.text}] if reply.text or not extra_parts else []) + extra_parts
            return Response.json(self._response(model, response_id, parts, reply, final=True))
        if reply.malformed:
            return Response.sse([b'data: {"candidates": [{"content": {"parts": [{"text": \r\n\r\n'])
        chunks = [[{"text": piece}] for piece in pieces(reply.text, reply.chunk_size)]
        chunks += [[part] for part in extra_parts]
        if not chunks:
            chunks = [[{"text": ""}]]
        last = len(chunks) - 1
        return Response.sse(
            _data(self._response(model, response_id, parts, reply, final=index == last))
            for index, parts in enumerate(chunks)
        )

    def _count_tokens(self, request: RecordedRequest, reply: Reply) -> Response:
        if reply.malformed:
            return Response.broken_json('{"totalTokens": ')
        return Response.json({"totalTokens": reply.usage[0]})

    # -- embeddings ---------------------------------------------------------------------

    def _vector(self, model: str, text: str, requested: Any, reply: Reply) -> list[float]:
        dimension = reply.embedding_dimension or (
            int(requested) if requested else default_embedding_dimension(model)
        )
        return fake_embedding(text, dimension)

    def _embed(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._body(request)
        model, action = self._parts(request)
        if reply.malformed:
            return Response.broken_json('{"embeddings": [{"values": [0.1, ')
        if action == "embedContent":
            vector = self._vector(
                model, _content_text(body.get("content")), body.get("outputDimensionality"), reply
            )
            return Response.json({"embedding": {"values": vector}})
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            raise BadRequest("* BatchEmbedContentsRequest.requests: requests is not specified")
        embeddings = []
        for item in requests:
            if not isinstance(item, dict):
                raise BadRequest("Invalid value at 'requests'.")
            vector = self._vector(
                model, _content_text(item.get("content")), item.get("outputDimensionality"), reply
            )
            embeddings.append({"values": vector})
        return Response.json({"embeddings": embeddings})

    def _predict_embeddings(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._body(request)
        model, _ = self._parts(request)
        if reply.malformed:
            return Response.broken_json('{"predictions": [')
        instances = body.get("instances")
        if not isinstance(instances, list) or not instances:
            raise BadRequest("instances is not specified")
        requested = (body.get("parameters") or {}).get("outputDimensionality")
        predictions = []
        for instance in instances:
            text = _content_text(
                instance.get("content", "") if isinstance(instance, dict) else instance
            )
            vector = self._vector(model, text, requested, reply)
            predictions.append(
                {
                    "embeddings": {
                        "values": vector,
                        "statistics": {"token_count": len(text.split()), "truncated": False},
                    }
                }
            )
        return Response.json({"predictions": predictions})

    # -- images -------------------------------------------------------------------------

    def _images(self, request: RecordedRequest, reply: Reply) -> Response:
        body = self._body(request)
        if reply.malformed:
            return Response.broken_json('{"predictions": [{"bytesBase64Encoded": "iVBOR')
        prompt = str(body["instances"][0]["prompt"])
        count = int((body.get("parameters") or {}).get("sampleCount") or 1)
        image = base64.b64encode(reply.image_bytes or png_image(prompt)).decode("ascii")
        return Response.json(
            {"predictions": [{"bytesBase64Encoded": image, "mimeType": "image/png"}] * count}
        )

    # -- models -------------------------------------------------------------------------

    @staticmethod
    def _model(model_id: str) -> dict[str, Any]:
        return {
            "name": f"models/{model_id}",
            "version": "001",
            "displayName": model_id.replace("-", " ").title(),
            "description": f"Fake {model_id}.",
            "inputTokenLimit": 1048576,
            "outputTokenLimit": 65536,
            "supportedGenerationMethods": _MODEL_METHODS.get(
                model_id, ["generateContent", "countTokens"]
            ),
        }

    def _list_models(self, request: RecordedRequest, reply: Reply) -> Response:
        if reply.malformed:
            return Response.broken_json('{"models": [')
        return Response.json({"models": [self._model(model_id) for model_id in self.models]})

    def _get_model(self, request: RecordedRequest, reply: Reply) -> Response:
        match = _MODELS_PATH.match(request.path)
        assert match is not None
        model_id = match["model"]
        if model_id not in self.models:
            return self._error(
                404, f"models/{model_id} is not found for API version {match['version']}."
            )
        return Response.json(self._model(model_id))

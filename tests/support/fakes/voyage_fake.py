"""A fake Voyage AI embeddings API (``POST /v1/embeddings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.fakes._data import embedding_base64, fake_embedding
from tests.support.fakes._reply import Reply
from tests.support.fakes._server import (
    BadRequest,
    FakeServer,
    Handler,
    RecordedRequest,
    Response,
    bearer_token,
)

_DIMENSIONS = {"voyage-3-lite": 512, "voyage-3.5-lite": 1024, "voyage-code-2": 1536}
DEFAULT_DIMENSION = 1024


class FakeVoyage(FakeServer):
    """The Voyage AI embeddings API on loopback.

    Point the SDK at it with ``voyageai.AsyncClient(api_key=..., base_url=f"{fake.base_url}/v1")``
    (the SDK appends ``/embeddings`` to ``base_url``; it talks through aiohttp). One endpoint,
    ``"embeddings"``. Key: ``Authorization: Bearer``. Only float vectors are produced
    (``output_dtype`` is recorded but not honoured).
    """

    provider = "Voyage"
    endpoints = ("embeddings",)
    default_models = ("voyage-3.5", "voyage-3.5-lite", "voyage-3-large", "voyage-code-3")

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if method == "POST" and path == "/v1/embeddings":
            return "embeddings", self._embeddings
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return bearer_token(headers)

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        return {"detail": message}

    def _error_message(self, status: int) -> str:
        if status == 401:
            return "Provided API key is invalid."
        if status == 429:
            return "You have exceeded the rate limit (fake)."
        return super()._error_message(status)

    def _embeddings(self, request: RecordedRequest, reply: Reply) -> Response:
        body = request.body
        if not isinstance(body, dict) or "input" not in body or "model" not in body:
            raise BadRequest("Request body must have 'input' and 'model'.")
        if reply.malformed:
            return Response.broken_json('{"object": "list", "data": [{"embedding": [0.1, ')
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts:
            raise BadRequest("'input' must be a non-empty string or list of strings.")
        model = str(body["model"])
        dimension = int(
            reply.embedding_dimension
            or body.get("output_dimension")
            or _DIMENSIONS.get(model, DEFAULT_DIMENSION)
        )
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = fake_embedding(str(text), dimension)
            data.append(
                {
                    "object": "embedding",
                    "embedding": embedding_base64(vector) if as_base64 else vector,
                    "index": index,
                }
            )
        return Response.json(
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"total_tokens": reply.usage[0]},
            }
        )

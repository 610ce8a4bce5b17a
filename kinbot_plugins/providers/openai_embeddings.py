"""OpenAI's embeddings (``/embeddings``), through the SDK's HTTP layer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from kinbot_core.providers import MalformedResponse, ModelInfo, Vector
from kinbot_core.usage import report_usage
from kinbot_plugins.providers._common import quiet_call_headers, translate_stainless
from kinbot_plugins.providers.embedding_wire import embedding_vectors
from kinbot_plugins.providers.openai_sdk import sdk

if TYPE_CHECKING:
    import openai

DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
#: The dimension of OpenAI's own embedding models.
EMBEDDING_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbeddings:
    """Embeddings through ``/embeddings``."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        label: str,
        *,
        model: str | None,
        list_models: Callable[[], Any],
    ) -> None:
        self._client = client
        self._label = label
        self._model = model
        self._list_models = list_models

    def default_model(self) -> str:
        return self._model or ""

    def dimension(self, model: str | None = None) -> int | None:
        return EMBEDDING_DIMENSIONS.get(model or self._model or "")

    async def _chosen_model(self) -> str:
        if self._model is None:
            # An OpenAI-compatible server: its first embedding model, found once.
            found = await self.list_models()
            if not found:
                raise MalformedResponse(f"{self._label} lists no embedding model.")
            self._model = found[0].id
        return self._model

    async def list_models(self) -> list[ModelInfo]:
        models: list[ModelInfo] = await self._list_models()
        return [model for model in models if model.capability == "embedding"]

    async def embed(self, texts: list[str], *, model: str | None = None) -> Sequence[Vector]:
        if not texts:
            return []
        chosen = model or await self._chosen_model()
        body = {"model": chosen, "input": texts, "encoding_format": "base64"}
        try:
            # The SDK's HTTP layer, its answer read as JSON (``embedding_wire``).
            answer = await self._client.post(
                "/embeddings",
                content=orjson.dumps(body),
                options={"security": {"bearer_auth": True}, "headers": quiet_call_headers(sdk())},
                cast_to=object,
            )
        except Exception as exc:
            raise translate_stainless(exc, sdk(), self._label) from exc
        vectors, tokens = embedding_vectors(answer, len(texts), self._label)
        report_usage(model=chosen, input_tokens=tokens)
        return vectors

"""Voyage AI: embeddings through the official ``voyageai`` SDK.

The SDK is imported when a provider is created or one of its errors translated, not with the
plugin: importing it takes most of a second of CPU, which every ``kinbot`` command would pay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import (
    AuthenticationFailed,
    BadRequest,
    Capability,
    ConfigField,
    ConnectionReport,
    MalformedResponse,
    ModelInfo,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    Vector,
)
from kinbot_core.usage import report_usage
from kinbot_plugins.providers._common import API_KEY, base_url_field, retry_after, validate_fields

if TYPE_CHECKING:
    from voyageai.client_async import AsyncClient as VoyageAsyncClient

LABEL = "Voyage AI"
DEFAULT_MODEL = "voyage-3.5"
MODELS = {
    "voyage-3.5": 1024,
    "voyage-3.5-lite": 1024,
    "voyage-3-large": 1024,
    "voyage-code-3": 1024,
}


def translate(exc: BaseException) -> ProviderError:
    """A typed error for what the voyageai SDK raises."""
    if isinstance(exc, ProviderError):
        return exc
    from voyageai import error as voyage_errors  # see the module's docstring

    if isinstance(exc, voyage_errors.RateLimitError):
        return RateLimited(
            f"{LABEL} is rate limiting requests.", retry_after=retry_after(exc.headers)
        )
    if isinstance(exc, voyage_errors.AuthenticationError):
        return AuthenticationFailed(f"{LABEL} refused the API key.")
    if isinstance(exc, voyage_errors.Timeout | TimeoutError | asyncio.TimeoutError):
        return ProviderTimeout(f"{LABEL} did not answer in time.")
    if isinstance(
        exc,
        voyage_errors.ServiceUnavailableError
        | voyage_errors.ServerError
        | voyage_errors.APIConnectionError
        | voyage_errors.TryAgain,
    ):
        return ProviderUnavailable(f"{LABEL} is unavailable.")
    if isinstance(exc, voyage_errors.InvalidRequestError | voyage_errors.MalformedRequestError):
        return BadRequest(f"{LABEL} rejected the request: {str(exc)[:200]}")
    if type(exc).__module__.startswith("aiohttp"):
        if "Timeout" in type(exc).__name__:
            return ProviderTimeout(f"{LABEL} did not answer in time.")
        return ProviderUnavailable(f"{LABEL} cannot be reached.")
    return MalformedResponse(f"{LABEL} sent an answer KinBot could not read.")


class VoyageEmbeddings:
    """Document and query embeddings."""

    def __init__(self, client: VoyageAsyncClient, model: str) -> None:
        self._client = client
        self._model = model

    def default_model(self) -> str:
        return self._model

    def dimension(self, model: str | None = None) -> int | None:
        return MODELS.get(model or self._model)

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id=m, capability="embedding", dimension=d) for m, d in MODELS.items()]

    async def embed(self, texts: list[str], *, model: str | None = None) -> Sequence[Vector]:
        if not texts:
            return []
        try:
            result = await self._client.embed(list(texts), model=model or self._model)
        except Exception as exc:
            raise translate(exc) from exc
        report_usage(model=model or self._model, input_tokens=result.total_tokens or 0)
        vectors = [list(map(float, vector)) for vector in result.embeddings]
        if len(vectors) != len(texts):
            raise MalformedResponse(
                f"{LABEL} returned {len(vectors)} vectors for {len(texts)} texts."
            )
        return vectors


class VoyageProvider:
    """A configured Voyage AI key."""

    def __init__(self, client: VoyageAsyncClient, model: str) -> None:
        self.llm = None
        self.embedding = VoyageEmbeddings(client, model)
        self.image = None
        self.search = None

    async def test_connection(self) -> ConnectionReport:
        await self.embedding.embed(["KinBot connection test"])
        return ConnectionReport(
            ok=True,
            capabilities=("embedding",),
            message=f"Connected to {LABEL}.",
            code="connected",
            params={"provider": LABEL},
            models=tuple(await self.embedding.list_models()),
        )

    async def aclose(self) -> None:
        return None


class VoyageProviderType:
    """Voyage AI (embeddings only)."""

    name = "voyage"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 50
    default_name = "Voyage AI"
    label = LABEL
    capabilities: tuple[Capability, ...] = ("embedding",)
    config_fields: tuple[ConfigField, ...] = (
        API_KEY,
        base_url_field(None),
        ConfigField("model", "Embedding model", required=False, default=DEFAULT_MODEL),
    )

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, LABEL)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> VoyageProvider:
        from voyageai.client_async import AsyncClient as VoyageAsyncClient

        client = VoyageAsyncClient(
            api_key=config["api_key"],
            max_retries=0,
            timeout=timeout,
            base_url=config.get("base_url"),
        )
        return VoyageProvider(client, config.get("model") or DEFAULT_MODEL)


voyage_type = VoyageProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(voyage_type)

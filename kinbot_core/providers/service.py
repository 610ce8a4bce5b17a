"""Configured providers: stored encrypted, tested, instantiated once, resolved by model."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.config import Settings
from kinbot_core.db import Database
from kinbot_core.db.models import OnboardingStep, ProviderRecord
from kinbot_core.events import EventBus
from kinbot_core.plugins import Registries
from kinbot_core.providers.configs import (
    REGISTRY_OF_KIND,
    Kind,
    ProviderConfigs,
)
from kinbot_core.providers.context_windows import ContextWindow, ContextWindows
from kinbot_core.providers.errors import (
    ContextOverflowError,
    ProviderConfigError,
    ProviderError,
)
from kinbot_core.providers.interfaces import (
    EmbeddingCapability,
    ImageCapability,
    Provider,
    ProviderType,
    SearchCapability,
)
from kinbot_core.providers.resolution import (
    ModelResolution,
    ResolvedModel,
)
from kinbot_core.providers.retry import RetryPolicy, call_with_retries, stream_with_retries
from kinbot_core.providers.types import (
    Capability,
    ChatEvent,
    ChatRequest,
    GeneratedImage,
    SearchResult,
    TextDelta,
    Usage,
    Vector,
)
from kinbot_core.usage.recorder import UsageRecorder

logger = logging.getLogger(__name__)

#: Where a type that does not say how common it is goes in the lists (after the built-in ones).
DEFAULT_RANK = 1000
#: Features that are off without a capability, for onboarding and Settings.
OPTIONAL_FEATURES = {
    "image": "image generation (automatic Kin avatars, the image tool)",
    "search": "web search tools",
}
REQUIRED_CAPABILITIES: tuple[Capability, ...] = ("llm", "embedding")


@dataclass(frozen=True)
class Coverage:
    """Which configured providers give each capability (onboarding screen 2's rule)."""

    providers: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        """llm and embedding are both covered: the platform can run."""
        return all(self.providers.get(c) for c in REQUIRED_CAPABILITIES)

    def to_dict(self) -> dict[str, Any]:
        return {
            "capabilities": {
                c: self.providers.get(c, []) for c in ("llm", "embedding", "image", "search")
            },
            "ready": self.ready,
            "missing_required": [c for c in REQUIRED_CAPABILITIES if not self.providers.get(c)],
            "disabled_features": {
                c: feature for c, feature in OPTIONAL_FEATURES.items() if not self.providers.get(c)
            },
        }


class ProviderService(ProviderConfigs, ModelResolution):
    """Every configured provider, for the API and for the rest of the core.

    Configurations are encrypted whole under the master key; the API only ever sees the
    non-secret fields and a masked hint of each secret. One ``Provider`` instance (with its
    HTTP clients) is kept per configured provider.
    """

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        registries: Registries,
        settings: Settings,
        master_key: Callable[[], bytes],
        usage: UsageRecorder,
    ) -> None:
        self._db = db
        #: Records every call's usage (``kinbot_core.usage``).
        self.usage = usage
        self._bus = bus
        self._registries = registries
        self._settings = settings
        self._master_key = master_key
        self._instances: dict[str, Provider] = {}
        #: Per model string, the provider serving it; dropped whenever providers change.
        self._resolution_cache: dict[str, ResolvedModel] = {}
        #: Every provider's ``(id, name, capabilities)``, oldest first; dropped likewise.
        self._capabilities: list[tuple[str, str, list[str]]] | None = None
        #: Each provider's opened configuration (its secrets, masked in errors); likewise.
        self._configs: dict[str, dict[str, Any]] = {}
        #: Counts changes to the providers, so that a read racing one is not kept.
        self._generation = 0
        self._lock = asyncio.Lock()
        self.retry_policy = RetryPolicy(max_retries=settings.llm_max_retries)
        #: Models' context windows, learned and cached (``context_windows``).
        self.windows = ContextWindows(settings)

    def _changed(self) -> None:
        """Forget what is kept about the stored providers: one was added, changed or removed
        (or its type's plugin was)."""
        self._generation += 1
        self._resolution_cache.clear()
        self._capabilities = None
        self._configs.clear()

    async def _capability_table(self) -> list[tuple[str, str, list[str]]]:
        """Every provider's ``(id, name, capabilities)``, oldest first (read once, as turns
        and embeddings ask for it on every call)."""
        if self._capabilities is None:
            generation = self._generation
            rows = await self._db.read(
                lambda: self._db.sql(
                    "select id, name, capabilities from provider order by created_at"
                ).fetchall()
            )
            table = [(id_, name, json.loads(listed)) for id_, name, listed in rows]
            if generation != self._generation:
                return table
            self._capabilities = table
        return self._capabilities

    # -- types ---------------------------------------------------------------------------

    def types(self, kind: Kind) -> list[ProviderType]:
        """The provider types the enabled plugins offer, the most common first: by each type's
        optional ``rank`` (lower first; ``DEFAULT_RANK`` without one), then as registered."""
        registered = list(self._registries[REGISTRY_OF_KIND[kind]])
        return sorted(registered, key=lambda t: getattr(t, "rank", DEFAULT_RANK))

    def _type(self, kind: Kind, name: str) -> ProviderType:
        provider_type: ProviderType | None = self._registries[REGISTRY_OF_KIND[kind]].get(name)
        if provider_type is None:
            raise ProviderConfigError(
                f"Unknown {'search ' if kind == 'search' else ''}provider type {name!r} "
                "(is its plugin enabled?).",
                code="provider_type_unknown",
                params={"type": name},
            )
        return provider_type

    async def coverage(self) -> Coverage:
        """Which providers (by name) give each capability."""
        covered: dict[str, list[str]] = {}
        for _id, name, capabilities in await self._capability_table():
            for capability in capabilities:
                covered.setdefault(capability, []).append(name)
        return Coverage(covered)

    # -- onboarding ------------------------------------------------------------------------

    async def skip_search_providers(self) -> None:
        """Record that onboarding screen 3 was skipped."""
        await self._db.write(
            lambda: (
                OnboardingStep.insert(
                    step="search_providers", state="skipped", updated_at=time.time()
                )
                .on_conflict_replace()
                .execute()
            )
        )

    async def search_step_done(self) -> bool:
        """Onboarding screen 3 is done: a search provider exists, or the step was skipped."""

        def done() -> bool:
            skipped = OnboardingStep.select().where(OnboardingStep.step == "search_providers")
            searchers = ProviderRecord.select().where(ProviderRecord.kind == "search")
            return bool(skipped.exists() or searchers.exists())

        return await self._db.read(done)

    # -- using providers -------------------------------------------------------------------

    async def instance(self, provider_id: str) -> Provider:
        """The live provider object of a stored provider (built once)."""
        provider = self._instances.get(provider_id)
        if provider is not None:
            return provider
        async with self._lock:
            provider = self._instances.get(provider_id)
            if provider is None:
                row = await self._record(provider_id)
                kind: Kind = "search" if row.kind == "search" else "ai"
                provider = self._type(kind, row.type).create(
                    self._open(row), timeout=self._settings.llm_timeout_seconds
                )
                self._instances[provider_id] = provider
        return provider

    async def context_window(self, provider_id: str | None, model: str) -> ContextWindow:
        """The context window of ``model`` on ``provider_id`` and where it comes from
        (``kinbot_core.providers.context_windows``); never raises for a network error."""
        return await self.windows.lookup(self, provider_id, model)

    async def chat(
        self, model: str, request: ChatRequest, *, estimate: int | None = None
    ) -> AsyncIterator[ChatEvent]:
        """Stream a chat with the provider serving ``model`` (``request.model`` is replaced
        by the provider's model id), retrying transient failures before the first event.
        Failures are published as ``provider.error`` and raised as ``ProviderError``.
        ``estimate``: the prompt's tokens as the caller estimated them when it fitted it
        (the provider's count of them teaches the model's ratio), else estimated here."""
        resolved = await self.resolve_model(model)
        call = _replace_model(request, resolved.model)
        secrets = resolved.secrets

        def failed(error: ProviderError, retrying: bool) -> None:
            self._report(resolved.provider_id, error, secrets, retrying)

        counted = False
        streamed = 0  # characters of the answer received
        try:
            async for event in stream_with_retries(
                lambda: resolved.llm.chat(call), self.retry_policy, failed
            ):
                if isinstance(event, Usage):
                    counted = True
                    self.usage.chat(
                        resolved.provider_id,
                        resolved.model,
                        event.input_tokens,
                        event.output_tokens,
                    )
                    self.windows.ratios.observe(
                        resolved.provider_id, resolved.model, call, event.input_tokens, estimate
                    )
                elif isinstance(event, TextDelta):
                    streamed += len(event.text)
                yield event
        except ProviderError as error:
            if isinstance(error, ContextOverflowError):
                # A refusal's words teach the window and the ratio as an answer's usage does.
                self.windows.learn_from_refusal(resolved.provider_id, resolved.model, call, error)
            raise self._sanitised(error, secrets) from None
        finally:
            if streamed and not counted:  # stopped mid-answer: the provider bills it anyway
                provider_id, model_id = resolved.provider_id, resolved.model
                self._estimated_usage(provider_id, model_id, call, estimate, streamed)

    def _estimated_usage(
        self, provider_id: str, model: str, call: ChatRequest, estimate: int | None, streamed: int
    ) -> None:
        """Record what an answer cut short (a stopped turn) used, which the provider counts
        but never said: the prompt as estimated, the characters received as tokens, both at
        the ratio the model's reported counts taught."""
        from kinbot_core.compacting.tokens import CHARS_PER_TOKEN, request_tokens

        ratio = self.windows.ratios.ratio(provider_id, model)
        prompt = estimate if estimate is not None else request_tokens(call)
        answer = -(-streamed // CHARS_PER_TOKEN)
        self.usage.chat(provider_id, model, round(prompt * ratio), round(answer * ratio))

    async def embed(self, texts: list[str]) -> Sequence[Vector]:
        """Embed with the first configured provider that has the embedding capability."""
        provider_id, capability = await self._first("embedding")
        embedding: EmbeddingCapability = capability
        with self.usage.metered("embedding", provider_id, embedding.default_model()):
            vectors: Sequence[Vector] = await self._call(
                provider_id, lambda: embedding.embed(texts)
            )
        return vectors

    async def embedding_model(self) -> str:
        """Which provider and model ``embed`` uses now (``<provider name>/<model>``)."""
        for provider_id, name, capabilities in await self._capability_table():
            if "embedding" in capabilities:
                provider = await self.instance(provider_id)
                if provider.embedding is not None:
                    return f"{name}/{provider.embedding.default_model()}"
        raise _missing("embedding")

    async def generate_image(self, prompt: str, *, size: str = "1024x1024") -> GeneratedImage:
        """Generate an image with the first provider that has the image capability."""
        provider_id, capability = await self._first("image")
        image: ImageCapability = capability
        with self.usage.metered("image", provider_id):
            generated: GeneratedImage = await self._call(
                provider_id, lambda: image.generate(prompt, size=size)
            )
        return generated

    async def web_search(
        self, query: str, *, count: int = 5, freshness: str | None = None
    ) -> list[SearchResult]:
        """Search the web with the first configured search provider."""
        provider_id, capability = await self._first("search")
        search: SearchCapability = capability
        with self.usage.metered("search", provider_id):
            results: list[SearchResult] = await self._call(
                provider_id, lambda: search.search(query, count=count, freshness=freshness)
            )
        return results

    async def _first(self, capability: Capability) -> tuple[str, Any]:
        for provider_id, _name, capabilities in await self._capability_table():
            if capability in capabilities:
                provider = await self.instance(provider_id)
                found = getattr(provider, capability)
                if found is not None:
                    return provider_id, found
        raise _missing(capability)

    async def _call(self, provider_id: str, call: Callable[[], Any]) -> Any:
        secrets = await self._secrets_of(provider_id)

        def failed(error: ProviderError, retrying: bool) -> None:
            self._report(provider_id, error, secrets, retrying)

        try:
            return await call_with_retries(call, self.retry_policy, failed)
        except ProviderError as error:
            raise self._sanitised(error, secrets) from None

    async def forget_unavailable(self) -> None:
        """Close the live providers whose type's plugin is no longer enabled."""
        self._changed()
        rows = await self._db.read(
            lambda: {r.id: (r.kind, r.type) for r in ProviderRecord.select()}
        )
        for provider_id in list(self._instances):
            kind, type_name = rows.get(provider_id, ("ai", ""))
            if self._registries[REGISTRY_OF_KIND[kind]].get(type_name) is None:
                await self._instances.pop(provider_id).aclose()

    async def aclose(self) -> None:
        """Close every provider's clients."""
        instances, self._instances = list(self._instances.values()), {}
        for instance in instances:
            try:
                await instance.aclose()
            except Exception:
                logger.exception("closing a provider failed")

    # -- helpers ---------------------------------------------------------------------------

    async def _secrets_of(self, provider_id: str) -> dict[str, Any]:
        config = self._configs.get(provider_id)
        if config is None:
            generation = self._generation
            config = self._open(await self._record(provider_id))
            if generation == self._generation:
                self._configs[provider_id] = config
        return config


def _missing(capability: str) -> ProviderConfigError:
    return ProviderConfigError(
        f"No configured provider has the {capability} capability.",
        code="provider_capability_missing",
        params={"capability": capability},
    )


def _replace_model(request: ChatRequest, model: str) -> ChatRequest:
    from dataclasses import replace

    return replace(request, model=model)

"""Configured providers: stored encrypted, tested, instantiated once, resolved by model."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit, urlunsplit

from kinbot_core.config import Settings
from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import OnboardingStep, ProviderRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import ProviderAdded, ProviderRemoved
from kinbot_core.events.catalogue import ProviderError as ProviderErrorEvent
from kinbot_core.plugins import Registries
from kinbot_core.providers.context_windows import ContextWindow, ContextWindows
from kinbot_core.providers.detail import shown_detail
from kinbot_core.providers.errors import (
    ContextOverflowError,
    ModelResolutionError,
    ProviderConfigError,
    ProviderError,
)
from kinbot_core.providers.interfaces import (
    EmbeddingCapability,
    ImageCapability,
    LLMCapability,
    Provider,
    ProviderType,
    SearchCapability,
)
from kinbot_core.providers.retry import RetryPolicy, call_with_retries, stream_with_retries
from kinbot_core.providers.types import (
    Capability,
    ChatEvent,
    ChatRequest,
    ConnectionReport,
    GeneratedImage,
    ModelInfo,
    SearchResult,
    Usage,
    Vector,
)
from kinbot_core.usage.recorder import UsageRecorder

logger = logging.getLogger(__name__)

Kind = Literal["ai", "search"]
T = TypeVar("T")
#: Which registry holds the types of each kind of provider.
_REGISTRY_OF_KIND = {"ai": "providers", "search": "search_providers"}
#: A letter or digit (of any script: "Modèles locaux"), then letters, digits, spaces, dots,
#: dashes or underscores; never "/", which separates a provider from its model.
_NAME = re.compile(r"^[^\W_][\w .-]{0,63}$")
#: Where a type that does not say how common it is goes in the lists (after the built-in ones).
DEFAULT_RANK = 1000
#: Features that are off without a capability, for onboarding and Settings.
OPTIONAL_FEATURES = {
    "image": "image generation (automatic Kin avatars, the image tool)",
    "search": "web search tools",
}
REQUIRED_CAPABILITIES: tuple[Capability, ...] = ("llm", "embedding")


@dataclass(frozen=True)
class ProviderView:
    """A configured provider as the API shows it: secrets only as masked hints."""

    id: str
    kind: str
    type: str
    name: str
    capabilities: tuple[str, ...]
    config: dict[str, Any]
    secrets: dict[str, str]
    models_fetched_at: float | None
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "capabilities": list(self.capabilities)}


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


@dataclass(frozen=True)
class ResolvedModel:
    """Which configured provider serves a Kin's model string, and the provider's model id."""

    provider_id: str
    provider_name: str
    model: str
    llm: LLMCapability
    #: The provider's configuration, to scrub its secrets from error messages.
    secrets: dict[str, Any] = field(default_factory=dict, repr=False)


class ProviderService:
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
        registered = list(self._registries[_REGISTRY_OF_KIND[kind]])
        return sorted(registered, key=lambda t: getattr(t, "rank", DEFAULT_RANK))

    def _type(self, kind: Kind, name: str) -> ProviderType:
        provider_type: ProviderType | None = self._registries[_REGISTRY_OF_KIND[kind]].get(name)
        if provider_type is None:
            raise ProviderConfigError(
                f"Unknown {'search ' if kind == 'search' else ''}provider type {name!r} "
                "(is its plugin enabled?).",
                code="provider_type_unknown",
                params={"type": name},
            )
        return provider_type

    # -- configurations ------------------------------------------------------------------

    async def configured(self, kind: Kind) -> list[ProviderView]:
        """Configured providers of one kind, oldest first."""
        rows = await self._db.read(
            lambda: list(
                ProviderRecord.select()
                .where(ProviderRecord.kind == kind)
                .order_by(ProviderRecord.created_at)
            )
        )
        return [self._view(row) for row in rows]

    async def get(self, provider_id: str, kind: Kind | None = None) -> ProviderView:
        """One configured provider, or ``ProviderConfigError`` (404 in the API)."""
        return self._view(await self._record(provider_id, kind))

    async def _record(self, provider_id: str, kind: Kind | None = None) -> ProviderRecord:
        row: ProviderRecord | None = await self._db.read(
            lambda: ProviderRecord.get_or_none(ProviderRecord.id == provider_id)
        )
        if row is None or (kind is not None and row.kind != kind):
            raise UnknownProvider("No such provider.")
        return row

    async def test_unsaved(
        self, kind: Kind, type_name: str, config: Mapping[str, Any]
    ) -> ConnectionReport:
        """Test a configuration before saving it (the onboarding screens)."""
        provider_type = self._type(kind, type_name)
        normalised = provider_type.validate_config(config)
        provider = provider_type.create(normalised, timeout=self._settings.llm_timeout_seconds)
        try:
            return await self._test(provider, normalised)
        finally:
            await provider.aclose()

    async def add(
        self, kind: Kind, type_name: str, name: str, config: Mapping[str, Any]
    ) -> ProviderView:
        """Validate, test and store a provider; its capabilities are those detected.

        Raises ``ProviderConfigError`` for an invalid configuration or a failed test.
        """
        provider_type = self._type(kind, type_name)
        normalised = provider_type.validate_config(config)
        name = _valid_name(name)
        provider = provider_type.create(normalised, timeout=self._settings.llm_timeout_seconds)
        report = await self._test(provider, normalised)
        if not report.ok:
            await provider.aclose()
            raise _test_failed(report)
        provider_id = uuid.uuid4().hex
        now = time.time()

        def insert() -> ProviderRecord:
            if ProviderRecord.select().where(ProviderRecord.name == name).exists():
                raise _name_taken(name)
            return ProviderRecord.create(
                id=provider_id,
                kind=kind,
                type=type_name,
                name=name,
                config_sealed=self._seal(provider_id, normalised),
                secret_hints=json.dumps(_hints(provider_type, normalised)),
                capabilities=json.dumps(list(report.capabilities)),
                models=_dump_models(report.models) if report.models else None,
                models_fetched_at=now if report.models else None,
                created_at=now,
                updated_at=now,
            )

        try:
            row = await self._db.write(insert)
        except BaseException:
            await provider.aclose()
            raise
        self._changed()
        self._instances[provider_id] = provider
        self._bus.emit(ProviderAdded(provider_id=provider_id, provider_type=type_name))
        return self._view(row)

    async def update(
        self,
        provider_id: str,
        *,
        kind: Kind,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> ProviderView:
        """Rename a provider and/or change its configuration (secrets left out are kept).

        A new configuration is tested, and the capabilities detected again.
        """
        row = await self._record(provider_id, kind)
        provider_type = self._type(kind, row.type)
        current = self._open(row)
        changes_given = {k: v for k, v in (config or {}).items() if v is not None}
        secret_fields = {f.name for f in provider_type.config_fields if f.secret}
        moved = changes_given.get("base_url", current.get("base_url")) != current.get("base_url")
        if moved and any(current.get(name) for name in secret_fields - set(changes_given)):
            # A stored key is never sent to a new address without being given again.
            raise ProviderConfigError(
                "Give the API key again when changing the base URL.", code="provider_key_again"
            )
        merged = {**current, **changes_given}
        normalised = provider_type.validate_config(merged)
        new_name = _valid_name(name) if name is not None else row.name
        changes: dict[str, Any] = {"name": new_name, "updated_at": time.time()}
        replacement: Provider | None = None
        if normalised != current:
            replacement = provider_type.create(
                normalised, timeout=self._settings.llm_timeout_seconds
            )
            report = await self._test(replacement, normalised)
            if not report.ok:
                await replacement.aclose()
                raise _test_failed(report)
            changes.update(
                config_sealed=self._seal(provider_id, normalised),
                secret_hints=json.dumps(_hints(provider_type, normalised)),
                capabilities=json.dumps(list(report.capabilities)),
                models=_dump_models(report.models) if report.models else None,
                models_fetched_at=time.time() if report.models else None,
            )

        def save() -> ProviderRecord:
            taken = ProviderRecord.select().where(
                (ProviderRecord.name == new_name) & (ProviderRecord.id != provider_id)
            )
            if taken.exists():
                raise _name_taken(new_name)
            ProviderRecord.update(**changes).where(ProviderRecord.id == provider_id).execute()
            return ProviderRecord.get_by_id(provider_id)

        updated = await self._db.write(save)
        self._changed()
        self.windows.forget(provider_id)
        if replacement is not None:
            previous = self._instances.pop(provider_id, None)
            self._instances[provider_id] = replacement
            if previous is not None:
                await previous.aclose()
        return self._view(updated)

    async def remove(self, provider_id: str, *, kind: Kind) -> None:
        """Delete a provider and close its clients."""
        await self._record(provider_id, kind)
        await self._db.write(
            lambda: ProviderRecord.delete().where(ProviderRecord.id == provider_id).execute()
        )
        self._changed()
        self.windows.forget(provider_id)
        instance = self._instances.pop(provider_id, None)
        if instance is not None:
            await instance.aclose()
        self._bus.emit(ProviderRemoved(provider_id=provider_id))

    async def test(self, provider_id: str, *, kind: Kind | None = None) -> ConnectionReport:
        """Test a stored provider now."""
        row = await self._record(provider_id, kind)
        provider = await self.instance(provider_id)
        self.windows.forget(provider_id)
        return await self._test(provider, self._open(row))

    async def models(
        self, provider_id: str, *, kind: Kind | None = None, refresh: bool = False
    ) -> list[ModelInfo]:
        """The provider's models, from the cache unless ``refresh`` or never fetched."""
        row = await self._record(provider_id, kind)
        if row.models is not None and not refresh:
            return _load_models(row.models)
        provider = await self.instance(provider_id)
        listed: list[ModelInfo] = []
        try:
            if provider.llm is not None:
                listed += await provider.llm.list_models()
            if provider.embedding is not None:
                listed += await provider.embedding.list_models()
        except ProviderError as error:
            self._report(provider_id, error, self._open(row))
            raise self._sanitised(error, self._open(row)) from None
        await self._db.write(
            lambda: (
                ProviderRecord.update(models=_dump_models(listed), models_fetched_at=time.time())
                .where(ProviderRecord.id == provider_id)
                .execute()
            )
        )
        return listed

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

    async def resolve_model(self, model: str) -> ResolvedModel:
        """The provider serving ``model``: ``<provider name>/<model id>`` or a bare model id
        that exactly one provider with the llm capability lists. Unknown or ambiguous
        models raise ``ModelResolutionError``; there is no silent fallback."""
        cached = self._resolution_cache.get(model)
        if cached is not None and cached.provider_id in self._instances:
            return cached
        resolved = await self._resolve(model)
        self._resolution_cache[model] = resolved
        return resolved

    async def _resolve(self, model: str) -> ResolvedModel:
        rows = [
            row
            for row in await self._db.read(
                lambda: list(ProviderRecord.select().where(ProviderRecord.kind == "ai"))
            )
            if "llm" in json.loads(row.capabilities)
        ]
        if not rows:
            raise ModelResolutionError(
                "No provider with the llm capability is configured.",
                code="provider_capability_missing",
                params={"capability": "llm"},
            )
        prefix, _, rest = model.partition("/")
        if rest:
            for row in rows:
                if row.name.lower() == prefix.lower():
                    return await self._named(row, rest)
        matches = [row for row in rows if await self._lists(row, model)]
        if not matches:  # a model added since the lists were fetched: fetch them once more
            matches = [row for row in rows if await self._lists(row, model, refresh=True)]
        if len(matches) == 1:
            return await self._resolved(matches[0], model)
        names = ", ".join(sorted(row.name for row in (matches or rows)))
        if matches:
            example = f"{matches[0].name}/{model}"
            raise ModelResolutionError(
                f"Several providers offer {model!r} ({names}): write it as "
                f"'<provider name>/{model}', e.g. '{example}'.",
                code="model_ambiguous",
                params={"model": model, "providers": names, "example": example},
            )
        raise ModelResolutionError(
            f"No configured provider lists the model {model!r} (providers: {names}). "
            "Pick one of their models, or write '<provider name>/<model>'.",
            code="model_not_listed",
            params={"model": model},
        )

    async def _named(self, row: ProviderRecord, model: str) -> ResolvedModel:
        """``<provider name>/<model>``: the provider must list the model (its list fetched
        once more before refusing). A provider that lists no model at all (a server without
        a models endpoint) is taken at its word."""
        listed = await self._llm_models(row)
        if listed and not _offers(listed, model):
            listed = await self._llm_models(row, refresh=True)
        if listed and not _offers(listed, model):
            raise ModelResolutionError(
                f"The provider {row.name!r} does not list the model {model!r}. "
                "Pick one of its models.",
                code="provider_model_not_listed",
                params={"provider": row.name, "model": model},
            )
        return await self._resolved(row, model)

    async def _lists(self, row: ProviderRecord, model: str, *, refresh: bool = False) -> bool:
        return _offers(await self._llm_models(row, refresh=refresh), model)

    async def _llm_models(self, row: ProviderRecord, *, refresh: bool = False) -> set[str]:
        """The ids of the chat models ``row`` lists (cached; fetched when never fetched or
        ``refresh``); empty when the provider cannot list them."""
        if row.models is not None and not refresh:
            listed = _load_models(row.models)
        else:
            try:
                listed = await self.models(row.id, refresh=True)
            except ProviderError:
                listed = []
            row.models = _dump_models(listed)
        return {info.id for info in listed if info.capability == "llm"}

    async def _resolved(self, row: ProviderRecord, model: str) -> ResolvedModel:
        provider = await self.instance(row.id)
        if provider.llm is None:
            raise ModelResolutionError(
                f"The provider {row.name!r} has no llm capability.",
                code="provider_not_chat",
                params={"provider": row.name},
            )
        return ResolvedModel(row.id, row.name, model, provider.llm, self._open(row))

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

        try:
            async for event in stream_with_retries(
                lambda: resolved.llm.chat(call), self.retry_policy, failed
            ):
                if isinstance(event, Usage):
                    self.usage.chat(
                        resolved.provider_id,
                        resolved.model,
                        event.input_tokens,
                        event.output_tokens,
                    )
                    self.windows.ratios.observe(
                        resolved.provider_id, resolved.model, call, event.input_tokens, estimate
                    )
                yield event
        except ProviderError as error:
            if isinstance(error, ContextOverflowError):
                # A refusal's words teach the window and the ratio as an answer's usage does.
                self.windows.learn_from_refusal(resolved.provider_id, resolved.model, call, error)
            raise self._sanitised(error, secrets) from None

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
            if self._registries[_REGISTRY_OF_KIND[kind]].get(type_name) is None:
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

    async def _test(self, provider: Provider, config: Mapping[str, Any]) -> ConnectionReport:
        """Test ``provider``. A failure keeps the provider's own words as ``params["detail"]``,
        without secrets or addresses of this machine's network (``shown_detail``)."""
        try:
            report = await provider.test_connection()
        except ProviderError as error:
            sanitised = self._sanitised(error, config)
            detail = shown_detail(sanitised.detail)
            return ConnectionReport(
                ok=False,
                message=sanitised.message,
                code=error.code,
                params={"detail": detail} if detail else {},
            )
        params = {
            key: _redact(value, config) if isinstance(value, str) else value
            for key, value in report.params.items()
        }
        if isinstance(params.get("detail"), str):
            detail = shown_detail(_without_address(str(params.pop("detail")), config))
            params.update({"detail": detail} if detail else {})
        return ConnectionReport(
            ok=report.ok,
            capabilities=report.capabilities,
            message=_redact(report.message, config),
            models=report.models,
            code=report.code,
            params=params,
        )

    async def _secrets_of(self, provider_id: str) -> dict[str, Any]:
        config = self._configs.get(provider_id)
        if config is None:
            generation = self._generation
            config = self._open(await self._record(provider_id))
            if generation == self._generation:
                self._configs[provider_id] = config
        return config

    def _report(
        self,
        provider_id: str,
        error: ProviderError,
        config: Mapping[str, Any],
        retrying: bool = False,
    ) -> None:
        message = _redact(error.message, config)
        logger.warning("provider %s: %s%s", provider_id, message, " (retrying)" if retrying else "")
        self._bus.emit(ProviderErrorEvent(provider_id=provider_id, error=message))

    def _sanitised(self, error: ProviderError, config: Mapping[str, Any]) -> ProviderError:
        error.message = _redact(error.message, config)
        error.args = (error.message,)
        if error.detail:  # shown to members as the provider's words: no address of ours
            error.detail = _without_address(_redact(error.detail, config), config)
        return error

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())

    def _seal(self, provider_id: str, config: Mapping[str, Any]) -> bytes:
        return self._box().seal(json.dumps(dict(config)).encode(), f"provider:{provider_id}")

    def _open(self, row: ProviderRecord) -> dict[str, Any]:
        opened: dict[str, Any] = json.loads(
            self._box().open(row.config_sealed, f"provider:{row.id}")
        )
        return opened

    def _view(self, row: ProviderRecord) -> ProviderView:
        provider_type = self._registries[_REGISTRY_OF_KIND[row.kind]].get(row.type)
        secret_names = (
            {f.name for f in provider_type.config_fields if f.secret} if provider_type else set()
        )
        config = self._open(row)
        return ProviderView(
            id=row.id,
            kind=row.kind,
            type=row.type,
            name=row.name,
            capabilities=tuple(json.loads(row.capabilities)),
            config=_public_config(
                {k: v for k, v in config.items() if k not in secret_names and not _looks_secret(k)}
            ),
            secrets=json.loads(row.secret_hints),
            models_fetched_at=row.models_fetched_at,
            created_at=row.created_at,
        )


class UnknownProvider(ProviderConfigError):
    """No provider with that id (of that kind)."""

    code = "not_found"


def default_name(provider_type: ProviderType) -> str:
    """The name a provider of this type gets when the person gives none: the type's optional
    ``default_name``, else its label up to any parenthesis, kept to what a name may hold."""
    given = getattr(provider_type, "default_name", None)
    if isinstance(given, str) and _NAME.match(given.strip()):
        return given.strip()
    base = provider_type.label.split("(")[0]
    cleaned = " ".join(re.sub(r"[^\w .-]", " ", base).split())[:64].strip(" ._-")
    return cleaned if _NAME.match(cleaned) else "Provider"


def _valid_name(name: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise ProviderConfigError(
            "A provider name is 1 to 64 letters, digits, spaces, dots, dashes or underscores "
            "(no '/': it separates the provider from the model).",
            code="provider_name_invalid",
        )
    return name


def _test_failed(report: ConnectionReport) -> ProviderConfigError:
    """The error of a configuration whose connection test failed: why (the failure's code)
    and the provider's own words (``detail``), as the report has them."""
    return ProviderConfigError(
        report.message or "The connection test failed.",
        code="provider_test_failed",
        params={**report.params, "failure": report.code or ProviderError.code},
    )


def _name_taken(name: str) -> ProviderConfigError:
    return ProviderConfigError(
        f"A provider is already named {name!r}.", code="provider_name_taken", params={"name": name}
    )


def _missing(capability: str) -> ProviderConfigError:
    return ProviderConfigError(
        f"No configured provider has the {capability} capability.",
        code="provider_capability_missing",
        params={"capability": capability},
    )


def _looks_secret(key: str) -> bool:
    return any(word in key.lower() for word in ("key", "token", "secret", "password"))


def _hints(provider_type: ProviderType, config: Mapping[str, Any]) -> dict[str, str]:
    hints = {}
    for config_field in provider_type.config_fields:
        value = config.get(config_field.name)
        if config_field.secret and isinstance(value, str) and value:
            hints[config_field.name] = "…" + value[-4:] if len(value) > 8 else "…"
    return hints


def _redact(message: str, config: Mapping[str, Any]) -> str:
    for key, value in config.items():
        if not isinstance(value, str):
            continue
        if len(value) >= 6 and _looks_secret(key):
            message = message.replace(value, "[redacted]")
        elif key == "base_url":
            for secret in _url_secrets(value):
                message = message.replace(secret, "[redacted]")
    return message


def _without_address(message: str, config: Mapping[str, Any]) -> str:
    """``message`` without the configured base URL, its origin or its host and port."""
    url = config.get("base_url")
    if not isinstance(url, str) or not url:
        return message
    parsed = urlsplit(url)
    host = parsed.hostname or ""
    netloc = f"{host}:{parsed.port}" if parsed.port else host
    for address in (url.rstrip("/"), f"{parsed.scheme}://{parsed.netloc}", parsed.netloc, netloc):
        if len(address) >= 4:
            message = message.replace(address, "[provider address]")
    return message


def _url_secrets(url: str) -> list[str]:
    """The credentials and query of a URL, which may hold a key."""
    parsed = urlsplit(url)
    parts = [parsed.password or "", parsed.username or "", parsed.query]
    return [part for part in parts if len(part) >= 4]


def _public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A configuration as members may see it: base URLs without credentials or query."""
    shown = dict(config)
    if isinstance(shown.get("base_url"), str):
        parsed = urlsplit(shown["base_url"])
        host = parsed.hostname or ""
        netloc = f"{host}:{parsed.port}" if parsed.port else host
        shown["base_url"] = urlunsplit((parsed.scheme, netloc, parsed.path, "", ""))
    return shown


def _dump_models(models: tuple[ModelInfo, ...] | list[ModelInfo]) -> str:
    return json.dumps([m.__dict__ for m in models])


def _load_models(text: str) -> list[ModelInfo]:
    return [ModelInfo(**item) for item in json.loads(text)]


#: A dated model id, as providers list them (``claude-sonnet-4-5-20250929``).
_DATED = re.compile(r"^(?P<alias>.+)-\d{8}$")


def _offers(listed: set[str], model: str) -> bool:
    """``model`` is one of ``listed``, or the alias of a dated one (Anthropic lists
    ``claude-sonnet-4-5-20250929`` and serves it as ``claude-sonnet-4-5`` too)."""
    if model in listed:
        return True
    return any((dated := _DATED.match(id_)) and dated["alias"] == model for id_ in listed)


def _replace_model(request: ChatRequest, model: str) -> ChatRequest:
    from dataclasses import replace

    return replace(request, model=model)

"""Which configured provider serves a Kin's model string: ``<provider name>/<model id>``, or
a bare model id exactly one provider with the llm capability lists (never a silent
fallback); the providers' model lists, kept in their rows."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kinbot_core.db import Database
from kinbot_core.db.models import ProviderRecord
from kinbot_core.providers.errors import ModelResolutionError, ProviderError
from kinbot_core.providers.interfaces import LLMCapability, Provider
from kinbot_core.providers.types import ModelInfo


@dataclass(frozen=True)
class ResolvedModel:
    """Which configured provider serves a Kin's model string, and the provider's model id."""

    provider_id: str
    provider_name: str
    model: str
    llm: LLMCapability
    #: The provider's configuration, to scrub its secrets from error messages.
    secrets: dict[str, Any] = field(default_factory=dict, repr=False)


class ModelResolution:
    """The model-resolving half of ``ProviderService``, which mixes it in and holds what it
    uses."""

    _db: Database
    _instances: dict[str, Provider]
    #: Per model string, the provider serving it; dropped whenever providers change.
    _resolution_cache: dict[str, ResolvedModel]

    if TYPE_CHECKING:

        async def models(
            self, provider_id: str, *, kind: Any = None, refresh: bool = False
        ) -> list[ModelInfo]: ...

        async def instance(self, provider_id: str) -> Provider: ...

        def _open(self, row: ProviderRecord) -> dict[str, Any]: ...

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
        if listed and not offers(listed, model):
            listed = await self._llm_models(row, refresh=True)
        if listed and not offers(listed, model):
            raise ModelResolutionError(
                f"The provider {row.name!r} does not list the model {model!r}. "
                "Pick one of its models.",
                code="provider_model_not_listed",
                params={"provider": row.name, "model": model},
            )
        return await self._resolved(row, model)

    async def _lists(self, row: ProviderRecord, model: str, *, refresh: bool = False) -> bool:
        return offers(await self._llm_models(row, refresh=refresh), model)

    async def _llm_models(self, row: ProviderRecord, *, refresh: bool = False) -> set[str]:
        """The ids of the chat models ``row`` lists (cached; fetched when never fetched or
        ``refresh``); empty when the provider cannot list them."""
        if row.models is not None and not refresh:
            listed = load_models(row.models)
        else:
            try:
                listed = await self.models(row.id, refresh=True)
            except ProviderError:
                listed = []
            row.models = dump_models(listed)
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


def dump_models(models: tuple[ModelInfo, ...] | list[ModelInfo]) -> str:
    """A model list as the provider row keeps it (JSON)."""
    return json.dumps([m.__dict__ for m in models])


def load_models(text: str) -> list[ModelInfo]:
    """The model list a provider row keeps."""
    return [ModelInfo(**item) for item in json.loads(text)]


#: A dated model id, as providers list them (``claude-sonnet-4-5-20250929``).
_DATED = re.compile(r"^(?P<alias>.+)-\d{8}$")


def offers(listed: set[str], model: str) -> bool:
    """``model`` is one of ``listed``, or the alias of a dated one (Anthropic lists
    ``claude-sonnet-4-5-20250929`` and serves it as ``claude-sonnet-4-5`` too)."""
    if model in listed:
        return True
    return any((dated := _DATED.match(id_)) and dated["alias"] == model for id_ in listed)

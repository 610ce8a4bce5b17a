"""``/api/providers`` and ``/api/search-providers``: configure, test and list providers.

Reading is for every signed-in user (choosing a Kin's model needs the lists); changing and
testing is for administrators. Secrets are accepted but never returned (masked hints only).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_querystring, validate_request

from kinbot_core.providers import ConnectionReport, ModelInfo, ProviderType
from kinbot_core.providers.configs import Kind, default_name
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, signed_in

ConfigValue = Annotated[str | None, Field(max_length=10_000)]
#: A provider's configuration fields (API key, base URL, model…) by name.
ConfigValues = Annotated[
    dict[Annotated[str, Field(max_length=64)], ConfigValue], Field(max_length=50)
]


class ProviderIn(BaseModel):
    type: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=64)
    config: ConfigValues = Field(default_factory=dict)


class ProviderTestIn(BaseModel):
    type: str = Field(min_length=1, max_length=64)
    config: ConfigValues = Field(default_factory=dict)


class ProviderUpdate(BaseModel):
    name: str | None = Field(None, min_length=1, max_length=64)
    #: Fields to change; secrets left out (or null) keep their stored value.
    config: ConfigValues | None = None


class ModelsQuery(BaseModel):
    #: ``1`` (or ``true``, ``yes``): ask the provider again rather than the cache.
    refresh: str = Field("", max_length=10)


def report_json(report: ConnectionReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "capabilities": list(report.capabilities),
        "message": report.message,
        "code": report.code,
        "params": report.params,
        "models": [model_json(m) for m in report.models],
    }


def model_json(model: ModelInfo) -> dict[str, Any]:
    return dict(model.__dict__)


def type_json(provider_type: ProviderType) -> dict[str, Any]:
    """A provider type for the set-up forms. The client translates a type it knows by
    ``name`` and its fields by their ``name``; ``label`` and ``help`` are the plugin's words."""
    return {
        "name": provider_type.name,
        "label": provider_type.label,
        "default_name": default_name(provider_type),
        "capabilities": list(provider_type.capabilities),
        "config_fields": [dict(f.__dict__) for f in provider_type.config_fields],
    }


def make_blueprint(kind: Kind, prefix: str) -> Blueprint:
    """The routes of one kind of provider under ``prefix``."""
    blueprint = Blueprint(f"{kind}_providers", __name__)

    @blueprint.get(f"{prefix}/types")
    @signed_in
    async def list_types() -> dict[str, object]:
        """The provider types the enabled plugins offer, with their configuration fields."""
        return {"types": [type_json(t) for t in current_platform().providers.types(kind)]}

    @blueprint.get(prefix)
    @signed_in
    async def list_providers() -> dict[str, object]:
        """Configured providers (secrets masked)."""
        views = await current_platform().providers.configured(kind)
        return {"providers": [view.to_dict() for view in views]}

    @blueprint.post(prefix)
    @admin_only
    @validate_request(ProviderIn)
    async def add_provider(data: ProviderIn) -> tuple[dict[str, object], int]:
        """Configure a provider once: its connection is tested and its capabilities detected."""
        view = await current_platform().providers.add(kind, data.type, data.name, data.config)
        return {"provider": view.to_dict()}, 201

    @blueprint.post(f"{prefix}/test")
    @admin_only
    @validate_request(ProviderTestIn)
    async def test_unsaved(data: ProviderTestIn) -> dict[str, object]:
        """Test a configuration without saving it (the onboarding screens)."""
        report = await current_platform().providers.test_unsaved(kind, data.type, data.config)
        return report_json(report)

    @blueprint.get(f"{prefix}/<provider_id>")
    @signed_in
    async def get_provider(provider_id: str) -> dict[str, object]:
        """One configured provider."""
        return {"provider": (await current_platform().providers.get(provider_id, kind)).to_dict()}

    @blueprint.patch(f"{prefix}/<provider_id>")
    @admin_only
    @validate_request(ProviderUpdate)
    async def update_provider(provider_id: str, data: ProviderUpdate) -> dict[str, object]:
        """Rename or reconfigure a provider (a new configuration is tested first)."""
        view = await current_platform().providers.update(
            provider_id, kind=kind, name=data.name, config=data.config
        )
        return {"provider": view.to_dict()}

    @blueprint.delete(f"{prefix}/<provider_id>")
    @admin_only
    async def remove_provider(provider_id: str) -> Response:
        """Remove a provider."""
        await current_platform().providers.remove(provider_id, kind=kind)
        return Response(status=204)

    @blueprint.post(f"{prefix}/<provider_id>/test")
    @admin_only
    async def test_provider(provider_id: str) -> dict[str, object]:
        """Test a stored provider's connection now."""
        return report_json(await current_platform().providers.test(provider_id, kind=kind))

    @blueprint.get(f"{prefix}/<provider_id>/models")
    @signed_in
    @validate_querystring(ModelsQuery)
    async def list_models(provider_id: str, query_args: ModelsQuery) -> dict[str, object]:
        """The provider's models (cached; ``?refresh=1`` asks the provider again)."""
        refresh = query_args.refresh in ("1", "true", "yes")
        models = await current_platform().providers.models(provider_id, kind=kind, refresh=refresh)
        return {"models": [model_json(m) for m in models]}

    return blueprint


ai_blueprint = make_blueprint("ai", "/api/providers")
search_blueprint = make_blueprint("search", "/api/search-providers")
coverage_blueprint = Blueprint("provider_coverage", __name__)


@coverage_blueprint.get("/api/providers/coverage")
@signed_in
async def coverage() -> dict[str, object]:
    """Which capabilities the configured providers cover; ``ready`` once llm and embedding are
    (the condition to leave onboarding screen 2); which optional features are off."""
    return (await current_platform().providers.coverage()).to_dict()

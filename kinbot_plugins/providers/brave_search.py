"""Brave Search: web search over its HTTP API (there is no official Python SDK)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import Capability, ConfigField, MalformedResponse, SearchResult
from kinbot_plugins.providers._common import API_KEY, base_url_field, validate_fields
from kinbot_plugins.providers._http_search import SearchProvider, get_json

if TYPE_CHECKING:
    import httpx

FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


class BraveSearch:
    """The Brave Search web search API."""

    label = "Brave Search"

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def search(
        self, query: str, *, count: int = 5, freshness: str | None = None
    ) -> list[SearchResult]:
        params: dict[str, Any] = {"q": query, "count": max(1, min(count, 20))}
        if freshness:
            params["freshness"] = FRESHNESS.get(freshness, freshness)
        body = await get_json(self._client, self.label, "/res/v1/web/search", params)
        try:
            results = (body.get("web") or {}).get("results") or []
            return [
                SearchResult(
                    title=str(item["title"]),
                    url=str(item["url"]),
                    description=str(item.get("description", "")),
                    age=item.get("age"),
                )
                for item in results[:count]
            ]
        except (AttributeError, KeyError, TypeError):
            raise MalformedResponse(f"{self.label} sent results KinBot could not read.") from None


class BraveSearchType:
    """Brave Search (an API key from brave.com/search/api)."""

    name = "brave"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 10
    default_name = "Brave Search"
    label = "Brave Search"
    capabilities: tuple[Capability, ...] = ("search",)
    config_fields: tuple[ConfigField, ...] = (
        API_KEY,
        base_url_field("https://api.search.brave.com"),
    )

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, self.label)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> SearchProvider:
        import httpx

        client = httpx.AsyncClient(
            base_url=config.get("base_url") or "https://api.search.brave.com",
            headers={"X-Subscription-Token": config["api_key"], "Accept": "application/json"},
            timeout=timeout,
        )
        return SearchProvider(client, BraveSearch(client))


brave_type = BraveSearchType()


@hookimpl
def register_search_providers(register: Callable[[Any], None]) -> None:
    register(brave_type)

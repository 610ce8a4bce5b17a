"""SearXNG: web search through an instance's JSON API."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import Capability, ConfigField, MalformedResponse, SearchResult
from kinbot_plugins.providers._common import base_url_field, validate_fields
from kinbot_plugins.providers._http_search import SearchProvider, get_json

if TYPE_CHECKING:
    import httpx


class SearxngSearch:
    """A SearXNG instance's JSON API (``format=json`` must be enabled on the instance)."""

    label = "SearXNG"

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def search(
        self, query: str, *, count: int = 5, freshness: str | None = None
    ) -> list[SearchResult]:
        params: dict[str, Any] = {"q": query, "format": "json"}
        if freshness in ("day", "week", "month", "year"):
            params["time_range"] = freshness
        body = await get_json(self._client, self.label, "/search", params)
        try:
            return [
                SearchResult(
                    title=str(item.get("title", "")),
                    url=str(item["url"]),
                    description=str(item.get("content", "")),
                    age=item.get("publishedDate"),
                )
                for item in (body.get("results") or [])[:count]
            ]
        except (AttributeError, KeyError, TypeError):
            raise MalformedResponse(f"{self.label} sent results KinBot could not read.") from None


class SearxngType:
    """A SearXNG instance (its base URL; no key)."""

    name = "searxng"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 20
    default_name = "SearXNG"
    label = "SearXNG"
    capabilities: tuple[Capability, ...] = ("search",)
    config_fields: tuple[ConfigField, ...] = (base_url_field(None, required=True),)

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, self.label)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> SearchProvider:
        import httpx

        client = httpx.AsyncClient(
            base_url=config["base_url"], headers={"Accept": "application/json"}, timeout=timeout
        )
        return SearchProvider(client, SearxngSearch(client))


searxng_type = SearxngType()


@hookimpl
def register_search_providers(register: Callable[[Any], None]) -> None:
    register(searxng_type)

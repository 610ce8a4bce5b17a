"""What the HTTP search plugins (Brave Search, SearXNG) share: JSON calls and the provider.

httpx is imported when a provider is made (``create``), not with the plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from kinbot_core.providers import (
    ConnectionReport,
    MalformedResponse,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    SearchResult,
)
from kinbot_plugins.providers._common import from_status

if TYPE_CHECKING:
    import httpx


class _Search(Protocol):
    label: str

    async def search(
        self, query: str, *, count: int = 5, freshness: str | None = None
    ) -> list[SearchResult]: ...


async def get_json(client: httpx.AsyncClient, label: str, path: str, params: dict[str, Any]) -> Any:
    import httpx

    try:
        response = await client.get(path, params=params)
    except httpx.TimeoutException:
        raise ProviderTimeout(f"{label} did not answer in time.") from None
    except httpx.TransportError:
        raise ProviderUnavailable(f"{label} cannot be reached.") from None
    if response.status_code >= 400:
        status = response.status_code
        if status == 422 and "TOKEN_INVALID" in response.text:
            status = 401  # Brave answers a bad subscription token with 422
        raise from_status(status, "", label, response.headers)
    try:
        return response.json()
    except ValueError:
        raise MalformedResponse(f"{label} sent an answer KinBot could not read.") from None


class SearchProvider:
    """A configured search provider."""

    def __init__(self, client: httpx.AsyncClient, search: _Search) -> None:
        self._client = client
        self.llm = None
        self.embedding = None
        self.image = None
        self.search = search

    async def test_connection(self) -> ConnectionReport:
        try:
            results = await self.search.search("KinBot", count=1)
        except ProviderError as error:
            return ConnectionReport(ok=False, message=error.message, code=error.code)
        return ConnectionReport(
            ok=True,
            capabilities=("search",),
            message=f"Connected to {self.search.label}: {len(results)} result(s) for a test query.",
            code="connected_search",
            params={"provider": self.search.label, "count": len(results)},
        )

    async def aclose(self) -> None:
        await self._client.aclose()

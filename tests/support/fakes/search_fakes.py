"""Fake web search APIs: Brave Search (``/res/v1/web/search``) and SearXNG (``/search``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.fakes._data import default_search_results
from tests.support.fakes._reply import Reply, SearchResult
from tests.support.fakes._server import BadRequest, FakeServer, Handler, RecordedRequest, Response


def _results(request: RecordedRequest, reply: Reply, query: str, count: int) -> list[SearchResult]:
    results = (
        reply.search_results if reply.search_results is not None else default_search_results(query)
    )
    return results[:count]


def _int(value: str | None, default: int, *, low: int, high: int) -> int:
    if not value:
        return default
    try:
        return max(low, min(high, int(value)))
    except ValueError as error:
        raise BadRequest(f"invalid integer {value!r}") from error


class FakeBrave(FakeServer):
    """The Brave Search web API on loopback.

    Call ``GET {fake.base_url}/res/v1/web/search?q=...&count=...&freshness=...`` with the key
    in ``X-Subscription-Token``. One endpoint, ``"search"``; a reply's ``search_results`` (or
    three results derived from the query) become ``web.results`` with ``title``, ``url``,
    ``description`` and ``age``/``page_age``.
    """

    provider = "Brave"
    endpoints = ("search",)

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if method == "GET" and path == "/res/v1/web/search":
            return "search", self._search
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return headers.get("x-subscription-token") or None

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        codes = {401: "SUBSCRIPTION_TOKEN_INVALID", 422: "VALIDATION", 429: "RATE_LIMITED"}
        return {
            "type": "ErrorResponse",
            "error": {
                "id": self._next_id("fake-error-"),
                "status": status,
                "code": error_type
                or codes.get(status, "INTERNAL_ERROR" if status >= 500 else "BAD_REQUEST"),
                "detail": message,
                "meta": {"component": "authentication" if status == 401 else "api"},
            },
            "time": 0,
        }

    def _error_message(self, status: int) -> str:
        if status == 401:
            return "The provided subscription token is invalid."
        if status == 429:
            return "Request rate limit exceeded for plan."
        return super()._error_message(status)

    def _search(self, request: RecordedRequest, reply: Reply) -> Response:
        query = request.query.get("q", "")
        if not query:
            return self._error(422, "Unable to validate request parameter(s): q is required.")
        if reply.malformed:
            return Response.broken_json('{"type": "search", "web": {"results": [')
        count = _int(request.query.get("count"), 20, low=1, high=20)
        results = [
            {
                "type": "search_result",
                "title": hit.title,
                "url": hit.url,
                "description": hit.snippet,
                "age": hit.published,
                "page_age": hit.published,
                "language": "en",
                "family_friendly": True,
            }
            for hit in _results(request, reply, query, count)
        ]
        return Response.json(
            {
                "type": "search",
                "query": {"original": query, "more_results_available": False},
                "web": {"type": "search", "results": results, "family_friendly": True},
            }
        )


class FakeSearxng(FakeServer):
    """A SearXNG instance's JSON search on loopback (no API key).

    Call ``GET {fake.base_url}/search?q=...&format=json`` (a form-encoded POST works too);
    another ``format`` answers 403 as an instance without JSON output does. One endpoint,
    ``"search"``; hits become ``results`` with ``title``, ``url``, ``content`` and
    ``publishedDate``.
    """

    provider = "SearXNG"
    endpoints = ("search",)
    requires_key = False

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if method in ("GET", "POST") and path in ("/search", "/search/"):
            return "search", self._search
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return None

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        return {"error": message}

    def _search(self, request: RecordedRequest, reply: Reply) -> Response:
        params = {**request.query, **request.form}
        if params.get("format") != "json":
            return Response(
                status=403, chunks=[b"<h1>403 Forbidden</h1>"], content_type="text/html"
            )
        query = params.get("q", "")
        if reply.malformed:
            return Response.broken_json('{"query": "broken", "results": [')
        hits = _results(request, reply, query, 100) if query else []
        results = [
            {
                "url": hit.url,
                "title": hit.title,
                "content": hit.snippet,
                "publishedDate": hit.published,
                "engine": "fake",
                "engines": ["fake"],
                "positions": [position],
                "score": 1.0 / position,
                "category": "general",
            }
            for position, hit in enumerate(hits, start=1)
        ]
        return Response.json(
            {
                "query": query,
                "number_of_results": len(results),
                "results": results,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            }
        )

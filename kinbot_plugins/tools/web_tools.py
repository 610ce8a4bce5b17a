"""Web tools: ``web_search`` through the configured search provider, ``fetch_page``, and
into the Kin's workspace ``download_file`` (``download``) and ``git_clone`` (``git_clone``).

``web_search`` is offered (through ``tools_for_kin``) only while a search provider is
configured; the others always, and they never reach private addresses unless an
administrator allowed them (``fetch_allowed_networks``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import KinRef, hookimpl
from kinbot_core.providers.errors import ProviderError
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    required_text,
)
from kinbot_plugins.tools.download import DOWNLOAD_FILE
from kinbot_plugins.tools.git_clone import GIT_CLONE
from kinbot_plugins.tools.guarded_http import tool_address_policy
from kinbot_plugins.tools.page_fetch import FetchError, FetchLimits, fetch_page

MAX_RESULTS = 10
FRESHNESS = ("day", "week", "month", "year")


class WebSearchTool:
    """``web_search(query, count?, freshness?)``: results with title, URL, description, age."""

    name = "web_search"
    description = (
        "Search the web. Returns results with title, url, description and age (when known). "
        "Use fetch_page to read one of them."
    )
    parameters = object_schema(
        {
            "query": {"type": "string", "description": "What to search for."},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RESULTS,
                "description": f"How many results (1-{MAX_RESULTS}, default 5).",
            },
            "freshness": {
                "type": "string",
                "enum": list(FRESHNESS),
                "description": "Only results from the last day, week, month or year.",
            },
        },
        ["query"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        arguments = named_arguments(self, arguments)
        query = required_text(arguments, "query")
        count = arguments.get("count", 5)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_RESULTS:
            raise ToolError(f"'count' must be a whole number from 1 to {MAX_RESULTS}.")
        freshness = arguments.get("freshness")
        if freshness is not None and freshness not in FRESHNESS:
            raise ToolError(f"'freshness' must be one of {', '.join(FRESHNESS)}.")
        try:
            results = await context.platform.providers.web_search(
                query, count=count, freshness=freshness
            )
        except ProviderError as error:
            raise ToolError(f"The search failed: {error.message}") from error
        return {
            "query": query,
            "results": [
                {"title": r.title, "url": r.url, "description": r.description, "age": r.age}
                for r in results
            ],
        }


class FetchPageTool:
    """``fetch_page(url)``: a web page as plain text (public addresses only)."""

    name = "fetch_page"
    description = (
        "Fetch a web page (http or https) and return its title and readable text. "
        "Private and local network addresses are refused."
    )
    parameters = object_schema(
        {"url": {"type": "string", "description": "The absolute http(s) URL of the page."}},
        ["url"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        arguments = named_arguments(self, arguments)
        url = required_text(arguments, "url")
        settings = context.platform.settings
        policy = tool_address_policy(settings)
        limits = FetchLimits(
            timeout=settings.fetch_page_timeout_seconds,
            max_bytes=settings.fetch_page_max_bytes,
            max_chars=settings.fetch_page_max_chars,
        )
        try:
            page = await fetch_page(url, policy, limits)
        except FetchError as error:
            raise ToolError(str(error)) from error
        return {
            "url": page.url,
            "title": page.title,
            "content_type": page.content_type,
            "text": page.text,
            "truncated": page.truncated,
        }


WEB_SEARCH = WebSearchTool()
FETCH_PAGE = FetchPageTool()


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    register(FETCH_PAGE)
    register(DOWNLOAD_FILE)
    register(GIT_CLONE)


@hookimpl
async def tools_for_kin(kin: KinRef, platform: Any) -> list[Tool] | None:
    """``web_search`` while a search provider is configured."""
    coverage = await platform.providers.coverage()
    return [WEB_SEARCH] if coverage.providers.get("search") else None

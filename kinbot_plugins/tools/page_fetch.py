"""Fetching a web page as text for a Kin, without letting the model reach private networks.

The request goes through ``guarded_http.guarded_get`` (http and https only, every redirect
hop checked by ``kinbot_core.net_guard``); the body is read up to a size limit, the whole
fetch within a time limit; HTML becomes plain text (BeautifulSoup, imported by the first
page, not at start-up).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinbot_core.net_guard import AddressPolicy
from kinbot_plugins.tools.guarded_http import FetchError, guarded_get

if TYPE_CHECKING:
    import aiohttp

__all__ = ["FetchError", "FetchLimits", "FetchedPage", "fetch_page", "html_to_text"]

USER_AGENT = "KinBot/0.1 (+fetch_page)"
_TEXT_TYPES = ("text/", "application/xhtml+xml", "application/xml", "application/json")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "head")
_BLANK_LINES = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class FetchedPage:
    """A fetched page: where it ended up, its title, its text and whether the text was cut."""

    url: str
    status: int
    content_type: str
    title: str
    text: str
    truncated: bool


@dataclass(frozen=True)
class FetchLimits:
    """How long a fetch may take, how much it may download and how much text it returns."""

    timeout: float
    max_bytes: int
    max_chars: int


async def fetch_page(url: str, policy: AddressPolicy, limits: FetchLimits) -> FetchedPage:
    """Fetch ``url`` and return its text. Raises ``FetchError`` (blocked address, bad URL,
    too many redirects, too large, too slow, not text, HTTP error)."""
    try:
        async with (
            asyncio.timeout(limits.timeout),
            guarded_get(url, policy, USER_AGENT) as response,
        ):
            return await _page(response, limits)
    except TimeoutError:
        raise FetchError(f"The page did not load within {limits.timeout:g} seconds.") from None


async def _page(response: aiohttp.ClientResponse, limits: FetchLimits) -> FetchedPage:
    if response.status >= 400:
        raise FetchError(f"The server answered HTTP {response.status} for {response.url}.")
    content_type = response.content_type or "application/octet-stream"
    if not content_type.startswith(_TEXT_TYPES):
        raise FetchError(f"{response.url} is {content_type}, not a text or HTML page.")
    declared = response.content_length
    if declared is not None and declared > limits.max_bytes:
        raise FetchError(f"The page is larger than {limits.max_bytes} bytes.")
    body = bytearray()
    async for chunk in response.content.iter_chunked(64 * 1024):
        body += chunk
        if len(body) > limits.max_bytes:
            raise FetchError(f"The page is larger than {limits.max_bytes} bytes.")
    charset = response.charset or "utf-8"
    try:
        raw = bytes(body).decode(charset, errors="replace")
    except LookupError:
        raw = bytes(body).decode("utf-8", errors="replace")
    title, text = html_to_text(raw) if "html" in content_type else ("", raw.strip())
    truncated = len(text) > limits.max_chars
    return FetchedPage(
        url=str(response.url),
        status=response.status,
        content_type=content_type,
        title=title,
        text=text[: limits.max_chars],
        truncated=truncated,
    )


def html_to_text(html: str) -> tuple[str, str]:
    """The title and readable text of an HTML document (scripts, styles and markup gone)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    text = soup.get_text("\n", strip=True)
    return title, _BLANK_LINES.sub("\n\n", text).strip()

"""HTTP GET for tools, never reaching private networks: shared by ``fetch_page`` and
``download_file``.

Only http and https URLs without credentials; redirects are followed by hand (at most
``MAX_REDIRECTS``), and every hop is checked by ``kinbot_core.net_guard`` on the address
actually connected to (aiohttp's resolver is the guarded one, and address literals in any
spelling are checked before connecting). Failures are ``FetchError`` with a message for the
model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from yarl import URL

from kinbot_core.net_guard import AddressPolicy, BlockedAddress, parse_networks
from kinbot_core.tools import ToolError

if TYPE_CHECKING:
    import aiohttp

MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)


class FetchError(Exception):
    """The URL could not be fetched; the message says why, in words for the model."""


def tool_address_policy(settings: Any) -> AddressPolicy:
    """The addresses tools may reach under ``settings`` (``fetch_allowed_networks``);
    ``ToolError`` when that setting is misconfigured."""
    try:
        return AddressPolicy(parse_networks(settings.fetch_allowed_networks))
    except ValueError as error:
        raise ToolError(f"fetch_allowed_networks is misconfigured: {error}") from error


def checked_url(raw: str) -> URL:
    """``raw`` as an absolute http(s) URL without credentials, or ``FetchError``."""
    try:
        url = URL(raw.strip())
    except (ValueError, TypeError):
        raise FetchError(f"{raw!r} is not a valid URL.") from None
    if url.scheme not in ("http", "https"):
        raise FetchError("Only http:// and https:// URLs can be fetched.")
    if not url.host:
        raise FetchError(f"{raw!r} has no host.")
    if url.user or url.password:
        raise FetchError("URLs with credentials are not fetched.")
    return url


@asynccontextmanager
async def guarded_get(
    url: str, policy: AddressPolicy, user_agent: str
) -> AsyncIterator[aiohttp.ClientResponse]:
    """GET ``url``, following redirects; yields the final response, whose body the caller
    reads inside the ``async with`` (a failure while reading is a ``FetchError`` too).
    ``FetchError`` for a bad URL, a blocked address (any hop), too many redirects, or a
    connection failure. The caller bounds the time (``asyncio.timeout``)."""
    import aiohttp  # with the first fetch, not at start-up

    from kinbot_core.guarded_resolver import GuardedResolver

    target = checked_url(url)
    resolver = GuardedResolver(policy)
    connector = aiohttp.TCPConnector(resolver=resolver, force_close=True, use_dns_cache=False)
    async with aiohttp.ClientSession(
        connector=connector, headers={"User-Agent": user_agent}, trust_env=False
    ) as session:
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                await policy.check_literal(target.host or "", target.port or 0)
                async with session.get(target, allow_redirects=False) as response:
                    if response.status in _REDIRECTS:
                        location = response.headers.get("Location")
                        if not location:
                            raise FetchError(f"{target} redirects without a Location.")
                        target = checked_url(str(target.join(URL(location))))
                        continue
                    yield response
                    return
            except BlockedAddress as blocked:
                raise FetchError(f"{blocked} ({target.host})") from None
            except aiohttp.ClientError as error:
                if resolver.refused is not None:
                    raise FetchError(str(resolver.refused)) from None
                raise FetchError(f"Could not fetch {target}: {type(error).__name__}.") from None
    raise FetchError(f"Too many redirects (more than {MAX_REDIRECTS}).")

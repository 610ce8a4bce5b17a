"""SSRF protection of ``fetch_page``: every spelling of a blocked address, host names that
resolve to one, redirects to one, and the administrator's allow-list."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator

import pytest

from kinbot_core.net_guard import AddressPolicy, BlockedAddress, parse_networks, why_blocked
from kinbot_plugins.tools.page_fetch import FetchError, FetchLimits, fetch_page
from tests.support.page_server import page_server

LIMITS = FetchLimits(timeout=60, max_bytes=1024 * 1024, max_chars=5000)
OPEN = AddressPolicy()

BLOCKED_URLS = [
    "http://127.0.0.1/",
    "http://127.1/",  # short form
    "http://2130706433/",  # decimal
    "http://0177.0.0.1/",  # octal
    "http://0x7f.0.0.1/",  # hexadecimal
    "http://0x7f000001/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    "http://[2002:c0a8:101::1]/",  # 6to4 of 192.168.1.1
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",  # link-local (cloud metadata)
    "http://[fe80::1]/",
    "http://[fc00::1]/",  # unique local
    "http://0.0.0.0/",  # unspecified
    "http://0/",
    "http://[::]/",
    "http://224.0.0.1/",  # multicast
    "http://[ff02::1]/",
    "http://240.0.0.1/",  # reserved
    "http://100.64.0.1/",  # shared address space
    "http://localhost/",  # a name resolving to loopback
]


@pytest.mark.parametrize("url", BLOCKED_URLS)
async def test_every_form_of_a_blocked_address_is_refused(url: str) -> None:
    with pytest.raises(FetchError, match="Refused"):
        await fetch_page(url, OPEN, LIMITS)


@pytest.mark.parametrize(
    "url", ["ftp://example.com/", "file:///etc/passwd", "gopher://x/", "http://u:p@example.com/"]
)
async def test_only_plain_http_and_https(url: str) -> None:
    with pytest.raises(FetchError, match=r"Only http|credentials"):
        await fetch_page(url, OPEN, LIMITS)


def test_public_addresses_pass_and_the_reasons_are_named() -> None:
    for public in ("93.184.216.34", "2606:4700::1111", "8.8.8.8"):
        assert why_blocked(ipaddress.ip_address(public)) is None
        OPEN.check(public)
    reason = why_blocked(ipaddress.ip_address("::ffff:192.168.0.1"))
    assert reason is not None and "private" in reason and "inside the IPv6" in reason
    with pytest.raises(BlockedAddress, match="link-local"):
        OPEN.check("169.254.1.1")
    with pytest.raises(ValueError, match="nonsense"):
        parse_networks(["nonsense"])


@pytest.fixture
async def site() -> AsyncIterator[str]:
    async with page_server() as url:
        yield url


LOOPBACK_ONLY = AddressPolicy(parse_networks(["127.0.0.1/32"]))


async def test_the_allow_list_opens_a_local_address_and_nothing_else(site: str) -> None:
    with pytest.raises(FetchError, match=r"Refused: 127\.0\.0\.1 is a loopback address"):
        await fetch_page(f"{site}/page", OPEN, LIMITS)
    page = await fetch_page(f"{site}/page", LOOPBACK_ONLY, LIMITS)
    assert page.title == "Mushroom risotto"
    assert "Fry the\nonions\n, add the rice." in page.text and "Serve hot." in page.text
    assert "do-not-show" not in page.text and "color: red" not in page.text
    assert not page.truncated


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://0177.0.0.2:{port}/page",
        "http://[::1]:{port}/page",
        "http://10.0.0.5/",
        "http://0x7f000002:{port}/page",
    ],
)
async def test_a_redirect_to_a_blocked_address_is_refused(site: str, target: str) -> None:
    port = site.rsplit(":", 1)[1]
    location = target.format(port=port)
    with pytest.raises(FetchError, match="Refused"):
        await fetch_page(f"{site}/redirect?to={location}", LOOPBACK_ONLY, LIMITS)


async def test_redirects_are_followed_up_to_five_then_refused(site: str) -> None:
    page = await fetch_page(f"{site}/chain/5", LOOPBACK_ONLY, LIMITS)
    assert page.url.endswith("/chain/0") and page.title == "Mushroom risotto"
    with pytest.raises(FetchError, match="Too many redirects"):
        await fetch_page(f"{site}/chain/6", LOOPBACK_ONLY, LIMITS)


async def test_size_time_and_type_limits(site: str) -> None:
    with pytest.raises(FetchError, match="larger than"):
        await fetch_page(f"{site}/big", LOOPBACK_ONLY, LIMITS)
    quick = FetchLimits(timeout=0.5, max_bytes=LIMITS.max_bytes, max_chars=100)
    with pytest.raises(FetchError, match=r"did not load within 0\.5 seconds"):
        await fetch_page(f"{site}/slow", LOOPBACK_ONLY, quick)
    with pytest.raises(FetchError, match="image/png"):
        await fetch_page(f"{site}/image", LOOPBACK_ONLY, LIMITS)
    short = FetchLimits(timeout=60, max_bytes=LIMITS.max_bytes, max_chars=5)
    page = await fetch_page(f"{site}/text", LOOPBACK_ONLY, short)
    assert (page.text, page.truncated) == ("plain", True)

"""The egress proxy Kin code reaches the network through: credentials per Kin, the
private-address guard on every target (as for ``fetch_page``), allowed ports, and its bounds.
Real clients (aiohttp, curl) through a real proxy on loopback to loopback servers."""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from kinbot_core.config import load_settings
from kinbot_core.egress import EgressProxy, ProxyAccess
from kinbot_core.platform import Platform
from tests.support.loopback import echo_server, https_site, self_signed
from tests.support.page_server import page_server

LOOPBACK = ["127.0.0.1"]


@asynccontextmanager
async def proxy(data_dir: Path, **settings: Any) -> AsyncIterator[EgressProxy]:
    egress = EgressProxy(load_settings(data_dir=data_dir, **settings))
    try:
        yield egress
    finally:
        await egress.stop()


@pytest.fixture
async def site() -> AsyncIterator[tuple[str, int]]:
    async with page_server() as url:
        yield url, int(url.rsplit(":", 1)[1])


async def get(url: str, access: ProxyAccess | str, **options: Any) -> tuple[int, str]:
    proxy_url = access if isinstance(access, str) else access.url
    async with (
        aiohttp.ClientSession(trust_env=False) as session,
        session.get(url, proxy=proxy_url, **options) as response,
    ):
        return response.status, await response.text()


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


async def open_connect(
    access: ProxyAccess, target: str, authorization: str | None = None
) -> tuple[int, str, asyncio.StreamReader, asyncio.StreamWriter]:
    """Send ``CONNECT target`` on a new connection: the status, the head, and the streams."""
    reader, writer = await asyncio.open_connection(access.host, access.port)
    if authorization is None:
        user, password = access.url.split("//", 1)[1].split("@", 1)[0].split(":", 1)
        authorization = basic(user, password)
    head = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n"
    if authorization:
        head += f"Proxy-Authorization: {authorization}\r\n"
    writer.write((head + "\r\n").encode())
    response = (await reader.readuntil(b"\r\n\r\n")).decode()
    return int(response.split(" ", 2)[1]), response, reader, writer


async def body_of(reader: asyncio.StreamReader) -> str:
    return (await reader.read()).decode()


async def curl(*arguments: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        "curl", "-sS", "--max-time", "30", *arguments, stdout=-1, stderr=-1, env={}
    )
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


async def test_plain_http_reaches_loopback_only_through_the_allow_list(
    data_dir: Path, site: tuple[str, int]
) -> None:
    url, port = site
    async with proxy(data_dir, egress_allowed_ports=[port]) as egress:
        access = await egress.access_for("kin-a")
        status, text = await get(f"{url}/text", access)
        assert status == 403 and "127.0.0.1 is a loopback address" in text
    async with proxy(
        data_dir, egress_allowed_ports=[port], fetch_allowed_networks=LOOPBACK
    ) as egress:
        access = await egress.access_for("kin-a")
        assert await get(f"{url}/text", access) == (200, "plain words")
        code, out, err = await curl("-x", access.url, "-d", "ignored", f"{url}/page")
        assert code == 0 and "Method Not Allowed" in out, err  # a POST body was forwarded


async def test_https_through_a_connect_tunnel(data_dir: Path, tmp_path: Path) -> None:
    server_tls, client_tls = self_signed(tmp_path)
    async with https_site(server_tls) as port:
        url = f"https://127.0.0.1:{port}/secret-recipe"
        async with proxy(data_dir, egress_allowed_ports=[port]) as egress:
            access = await egress.access_for("kin-a")
            with pytest.raises(aiohttp.ClientHttpProxyError) as refused:
                await get(url, access, ssl=client_tls)
            assert refused.value.status == 403
        async with proxy(
            data_dir, egress_allowed_ports=[port], fetch_allowed_networks=LOOPBACK
        ) as egress:
            access = await egress.access_for("kin-a")
            assert await get(url, access, ssl=client_tls) == (200, "tiramisu over TLS")


async def test_a_tunnel_carries_bytes_both_ways_until_each_side_ends(data_dir: Path) -> None:
    async with (
        echo_server() as port,
        proxy(data_dir, egress_allowed_ports=[port], fetch_allowed_networks=LOOPBACK) as egress,
    ):
        access = await egress.access_for("kin-a")
        status, head, reader, writer = await open_connect(access, f"127.0.0.1:{port}")
        assert status == 200, head
        payload = bytes(range(256)) * 4096  # 1 MiB, every byte value
        writer.write(payload)
        writer.write_eof()
        assert await reader.readexactly(len(payload)) == payload
        assert await reader.read() == b""  # the echo server's end came through
        writer.close()


async def test_a_target_that_does_not_answer_http_gets_502(data_dir: Path) -> None:
    async with (
        echo_server() as port,  # answers a request with the request itself
        proxy(data_dir, egress_allowed_ports=[port], fetch_allowed_networks=LOOPBACK) as egress,
    ):
        access = await egress.access_for("kin-a")
        status, text = await get(f"http://127.0.0.1:{port}/", access)
        assert status == 502 and "gave no valid response" in text


async def test_missing_or_wrong_credentials_get_407(data_dir: Path, site: tuple[str, int]) -> None:
    url, port = site
    async with proxy(
        data_dir, egress_allowed_ports=[port], fetch_allowed_networks=LOOPBACK
    ) as egress:
        access = await egress.access_for("kin-a")
        other = await egress.access_for("kin-b")
        token_b = other.url.split(":")[2].split("@")[0]
        anonymous = f"http://{access.host}:{access.port}"
        wrong = [
            "",
            basic("kin-a", "not-the-token"),
            basic("kin-a", token_b),  # another Kin's token under this Kin's name
            basic("nobody", token_b),
            "Bearer " + token_b,
            "Basic !!!",
        ]
        for authorization in wrong:
            status, head, _reader, writer = await open_connect(
                access, f"127.0.0.1:{port}", authorization
            )
            assert status == 407 and 'Proxy-Authenticate: Basic realm="kinbot-egress"' in (
                head.replace("proxy-authenticate", "Proxy-Authenticate")
            ), head
            writer.close()
        assert (await get(f"{url}/text", anonymous))[0] == 407
        # A client that asks without credentials first retries on the same connection.
        for extra in (["-p"], ["-d", "a small body"], []):
            code, out, err = await curl(
                "-v", "--proxy-anyauth", "-x", access.url, *extra, f"{url}/text"
            )
            assert code == 0 and out in ("plain words", "405: Method Not Allowed"), err
            assert "407 Proxy Authentication Required" in err
            assert err.count("* Connected to ") == 1, err  # one connection for both
        egress.revoke("kin-a")
        assert (await get(f"{url}/text", access))[0] == 407
        assert await get(f"{url}/text", other) == (200, "plain words")


@pytest.mark.parametrize(
    "target",
    [
        "localhost:{port}",  # a name that resolves to loopback
        "127.1:{port}",
        "2130706433:{port}",
        "0x7f.0.0.1:{port}",
        "[::1]:{port}",
        "[::ffff:127.0.0.1]:{port}",
        "169.254.169.254:{port}",
        "10.0.0.1:{port}",
        "0.0.0.0:{port}",
    ],
)
async def test_every_form_of_a_private_target_is_refused(data_dir: Path, target: str) -> None:
    async with echo_server() as port, proxy(data_dir, egress_allowed_ports=[port]) as egress:
        access = await egress.access_for("kin-a")
        status, head, reader, writer = await open_connect(access, target.format(port=port))
        assert status == 403, head
        assert "Refused" in await body_of(reader)
        writer.close()


async def test_only_the_allowed_ports(data_dir: Path) -> None:
    async with (
        echo_server() as port,
        proxy(data_dir, fetch_allowed_networks=LOOPBACK) as egress,
    ):
        access = await egress.access_for("kin-a")
        status, _head, reader, writer = await open_connect(access, f"127.0.0.1:{port}")
        assert status == 403
        assert f"port {port} is not allowed (only 80, 443)" in await body_of(reader)
        writer.close()


async def test_connections_per_kin_are_bounded(data_dir: Path) -> None:
    async with (
        echo_server() as port,
        proxy(
            data_dir,
            egress_allowed_ports=[port],
            fetch_allowed_networks=LOOPBACK,
            egress_max_connections_per_kin=1,
        ) as egress,
    ):
        first = await egress.access_for("kin-a")
        status, _head, reader, writer = await open_connect(first, f"127.0.0.1:{port}")
        assert status == 200
        status, _head, refused, refused_writer = await open_connect(first, f"127.0.0.1:{port}")
        assert status == 429 and "Too many connections" in await body_of(refused)
        refused_writer.close()
        other = await egress.access_for("kin-b")
        status, _head, _reader, other_writer = await open_connect(other, f"127.0.0.1:{port}")
        assert status == 200
        other_writer.close()
        writer.write_eof()
        assert await reader.read() == b""  # the tunnel is over, its slot free again
        writer.close()
        status, _head, _reader, again = await open_connect(first, f"127.0.0.1:{port}")
        assert status == 200
        again.close()


async def test_an_idle_tunnel_is_closed(data_dir: Path) -> None:
    async with (
        echo_server() as port,
        proxy(
            data_dir,
            egress_allowed_ports=[port],
            fetch_allowed_networks=LOOPBACK,
            egress_idle_timeout_seconds=0.3,
        ) as egress,
    ):
        access = await egress.access_for("kin-a")
        status, _head, reader, writer = await open_connect(access, f"127.0.0.1:{port}")
        assert status == 200
        # Neither side sends; the echo server would wait for ever: the proxy closes it.
        assert await asyncio.wait_for(reader.read(), 30) == b""
        writer.close()


async def test_a_connection_past_its_byte_allowance_is_cut(
    data_dir: Path, site: tuple[str, int]
) -> None:
    url, port = site
    async with proxy(
        data_dir,
        egress_allowed_ports=[port],
        fetch_allowed_networks=LOOPBACK,
        egress_max_bytes_per_connection=1024 * 1024,
    ) as egress:
        access = await egress.access_for("kin-a")
        assert (await get(f"{url}/page", access))[0] == 200
        with pytest.raises(aiohttp.ClientPayloadError):
            await get(f"{url}/big", access)  # 4 MiB


async def test_oversized_and_malformed_heads_are_refused(data_dir: Path) -> None:
    async with proxy(data_dir) as egress:
        access = await egress.access_for("kin-a")
        for request, status in [
            (
                b"CONNECT a.example:443 HTTP/1.1\r\nHost: a\r\nX: " + b"a" * 20000 + b"\r\n\r\n",
                b"431",
            ),
            (b"CONNECT a.example:443 HTTP/1.1\r\nHost: a\r\nX: " + b"a" * 80000, b"431"),
            (b"this is not HTTP\r\n\r\n", b"400"),
            (b"GET /relative HTTP/1.1\r\nHost: x\r\n" + auth_header(access) + b"\r\n", b"400"),
            (b"CONNECT nohost HTTP/1.1\r\nHost: x\r\n" + auth_header(access) + b"\r\n", b"400"),
        ]:
            reader, writer = await asyncio.open_connection(access.host, access.port)
            writer.write(request)
            answer = await reader.read()
            assert answer.split(b" ")[1] == status, answer
            writer.close()


def auth_header(access: ProxyAccess) -> bytes:
    user, password = access.url.split("//", 1)[1].split("@", 1)[0].split(":", 1)
    return f"Proxy-Authorization: {basic(user, password)}\r\n".encode()


async def test_refusals_are_logged_without_credentials_or_paths(
    data_dir: Path, site: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    url, port = site
    caplog.set_level(logging.DEBUG, logger="kinbot_core.egress")
    async with proxy(data_dir, egress_allowed_ports=[port]) as egress:
        access = await egress.access_for("kin-a")
        assert (await get(f"{url}/text?key=sk-private-value", access))[0] == 403
        token = access.url.split(":")[2].split("@")[0]
        status, *_ = await open_connect(access, f"127.0.0.1:{port}", basic("kin-a", token + "x"))
        assert status == 407
    assert f"refused 127.0.0.1:{port} for Kin kin-a (403)" in caplog.text
    assert "missing or wrong credentials" in caplog.text
    assert token not in caplog.text and "sk-private-value" not in caplog.text
    assert token not in repr(access)


async def test_the_platform_starts_the_proxy_on_first_use_and_stops_it(data_dir: Path) -> None:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    listening_before_use = platform.egress.port
    access = await platform.egress.access_for("kin-a")
    assert listening_before_use is None
    assert access.host == "127.0.0.1" and access.port == platform.egress.port
    assert await platform.egress.access_for("kin-a") == access
    reader, writer = await asyncio.open_connection(access.host, access.port)
    await platform.stop()
    assert await reader.read() == b""  # an open connection is closed with it
    writer.close()
    with pytest.raises(OSError):
        await asyncio.open_connection(access.host, access.port)
    with pytest.raises(RuntimeError):
        await platform.egress.access_for("kin-a")


async def test_a_kin_id_must_be_a_plain_user_name(data_dir: Path) -> None:
    async with proxy(data_dir) as egress:
        for wrong in ("", "a:b", "a@127.0.0.2", "a/b", "x" * 200):
            with pytest.raises(ValueError, match="is not a Kin id"):
                await egress.access_for(wrong)

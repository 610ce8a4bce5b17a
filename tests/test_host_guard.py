"""The instance answers only to its own names (a defence against DNS rebinding)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_web.host_guard import HostPolicy, host_name, machine_names
from tests.support.accounts import NICOLAS, set_up_admin
from tests.support.raw_http import raw_connection
from tests.support.server import RunningServer, running_server

PUBLIC = "https://kinbot.example.org"
FOREIGN = "rebound.attacker.example"


def frontend_build(tmp_path: Path) -> Path:
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text("<!doctype html><title>KinBot</title>")
    (build / "assets" / "app-1234.js").write_text("console.log('kinbot')")
    return build


@pytest.fixture
async def server(data_dir: Path, tmp_path: Path) -> AsyncIterator[RunningServer]:
    settings = load_settings(
        data_dir=data_dir,
        public_url=PUBLIC,
        allowed_hosts="kinbot.lan, *.home.example.net",
        frontend_dir=frontend_build(tmp_path),
    )
    async with running_server(Platform(settings)) as server:
        yield server


def assert_refused(response: Any, *, api: bool) -> None:
    assert response.status_code == 421, response.text
    if api:
        assert response.json()["error"]["code"] == "host_not_allowed"
    else:
        assert response.headers["content-type"].startswith("text/plain")
        assert "allowed_hosts" in response.text


async def test_a_foreign_host_is_refused_on_the_api_the_stream_and_the_static_files(
    server: RunningServer,
) -> None:
    await set_up_admin(server.client)  # signed in: the refusal is not about the session
    foreign = {"Host": f"{FOREIGN}:8787"}
    assert_refused(await server.client.get("/api/health", headers=foreign), api=True)
    assert_refused(await server.client.get("/api/me", headers=foreign), api=True)
    assert_refused(await server.client.get("/api/events", headers=foreign), api=True)
    assert_refused(await server.client.get("/api/nowhere", headers=foreign), api=True)
    assert_refused(await server.client.get("/", headers=foreign), api=False)
    assert_refused(await server.client.get("/onboarding", headers=foreign), api=False)
    assert_refused(await server.client.get("/assets/app-1234.js", headers=foreign), api=False)
    # A state-changing request with a matching Origin, as the rebound page would send it.
    logout = await server.client.post(
        "/api/auth/logout", headers={**foreign, "Origin": f"http://{FOREIGN}:8787"}
    )
    assert_refused(logout, api=True)
    assert (await server.client.get("/api/me")).status_code == 200  # still signed in

    # The same requests under the instance's own names are answered.
    assert (await server.client.get("/api/me")).status_code == 200
    assert (await server.client.get("/assets/app-1234.js")).text == "console.log('kinbot')"
    assert "<title>KinBot</title>" in (await server.client.get("/")).text


async def test_a_first_admin_cannot_be_claimed_through_a_rebound_name(
    server: RunningServer,
) -> None:
    claim = await server.client.post(
        "/api/onboarding/identity",
        json=NICOLAS,
        headers={"Host": FOREIGN, "Origin": f"http://{FOREIGN}"},
    )
    assert_refused(claim, api=True)
    assert (await server.client.get("/api/onboarding")).json()["step"] == "identity"


@pytest.mark.parametrize(
    "host",
    [
        "kinbot.example.org",  # public_url
        "kinbot.example.org:443",
        "KinBot.Example.org.",
        "kinbot.lan:8787",  # allowed_hosts
        "nas.home.example.net",  # *.home.example.net
        "localhost:8787",
        "127.0.0.1:8787",
        "127.8.9.10",
        "[::1]:8787",
        "192.168.1.20:8787",  # an address a router or Docker forwards here
        "[fd00::2]",
    ],
)
async def test_the_instance_names_and_addresses_are_answered(
    server: RunningServer, host: str
) -> None:
    response = await server.client.get("/api/health", headers={"Host": host})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "host",
    [
        "home.example.net",  # the pattern is for sub-domains only
        "evilhome.example.net",
        "kinbot.example.org.attacker.example",
        "kinbot.localhost",
        "localhost.attacker.example",
        "",
        "kinbot.lan:http",
        "[::1",
        "a b",
    ],
)
async def test_other_names_are_refused(server: RunningServer, host: str) -> None:
    assert_refused(await server.client.get("/api/health", headers={"Host": host}), api=True)


async def test_a_request_without_a_host_is_refused(server: RunningServer) -> None:
    async with raw_connection(server.url) as connection:
        connection.writer.write(b"GET /api/health HTTP/1.0\r\n\r\n")
        await connection.writer.drain()
        raw = await connection.reader.read()
    assert raw.startswith(b"HTTP/1.1 421 ")


async def test_the_public_origin_may_change_state(server: RunningServer) -> None:
    await set_up_admin(server.client)
    renamed = await server.client.patch(
        "/api/me",
        json={"pseudonym": "Nicky"},
        headers={"Host": "kinbot.example.org", "Origin": PUBLIC},
    )
    assert renamed.status_code == 200, renamed.text
    other = await server.client.patch(
        "/api/me",
        json={"pseudonym": "Nicky"},
        headers={"Host": "kinbot.lan", "Origin": "https://evil.example"},
    )
    assert other.status_code == 403
    assert other.json()["error"]["code"] == "cross_origin_refused"


async def test_behind_a_trusted_proxy_the_forwarded_host_decides(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir, trusted_proxy_hops=1, public_url=PUBLIC)
    async with running_server(Platform(settings)) as server:
        proxied = await server.client.get(
            "/api/health", headers={"X-Forwarded-Host": "kinbot.example.org"}
        )
        assert proxied.status_code == 200
        rebound = await server.client.get("/api/health", headers={"X-Forwarded-Host": FOREIGN})
        assert_refused(rebound, api=True)


async def test_a_star_answers_to_any_name(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir, allowed_hosts="*")
    async with running_server(Platform(settings)) as server:
        response = await server.client.get("/api/health", headers={"Host": FOREIGN})
        assert response.status_code == 200


def test_the_policy_reads_host_headers_strictly() -> None:
    assert host_name("Example.ORG.:8080") == "example.org"
    assert host_name("[::1]:80") == "::1"
    assert host_name("[0:0::1]") == "::1"
    assert host_name("[::1]x") is None
    assert host_name("example.org:80:80") is None
    assert host_name("exa/mple.org") is None
    assert host_name("::1") is None  # an IPv6 address needs its brackets
    policy = HostPolicy.with_entries({"localhost"}, [])
    assert policy.allows("localhost") and policy.allows("127.0.0.1:1")
    assert not policy.allows(None) and not policy.allows("example.org")
    assert machine_names() <= HostPolicy.with_entries(machine_names(), []).names


def test_host_settings_are_validated(data_dir: Path) -> None:
    settings = load_settings(
        data_dir=data_dir, allowed_hosts="Kinbot.LAN., *.Example.org", public_url=f"{PUBLIC}/"
    )
    assert settings.allowed_hosts == ["kinbot.lan", "*.example.org"]
    assert settings.public_url == PUBLIC
    for wrong in ("http://kinbot.lan", "kinbot.lan:8787", "*example.org", "a b"):
        with pytest.raises(ValidationError, match="allowed_hosts"):
            load_settings(data_dir=data_dir, allowed_hosts=wrong)
    for wrong in ("kinbot.example.org", "ftp://kinbot.example.org", "https://"):
        with pytest.raises(ValidationError, match="public_url"):
            load_settings(data_dir=data_dir, public_url=wrong)

"""Nothing on the network can claim a fresh instance: the first administrator is created
from this machine, or with the one-time set-up code printed in the server's log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_web.setup_code import setup_code
from tests.support.accounts import NICOLAS, person
from tests.support.serve_process import kinbot_serve, non_loopback_address
from tests.support.server import running_server


def identity_error(response: httpx.Response) -> str:
    assert response.status_code == 403, response.text
    code: str = response.json()["error"]["code"]
    return code


def test_from_another_machine_the_code_in_the_log_is_needed_once(tmp_path: Path) -> None:
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address other than loopback")
    data_dir = tmp_path / "data"
    # Listening on (and so reached through) a non-loopback address of this machine: the
    # server sees the client at that address, as it would see another machine.
    with kinbot_serve(data_dir, tmp_path / "first.log", host=address) as server:
        link = server.setup_link()
        assert link is not None, server.log_text()
        url, code = link
        assert url == f"{server.url}/onboarding?setup={code}"
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as remote:
            status = remote.get("/api/onboarding").json()
            assert status["step"] == "identity" and status["setup_code_required"] is True
            missing = remote.post("/api/onboarding/identity", json=NICOLAS)
            assert identity_error(missing) == "setup_code_required"
            wrong = remote.post(
                "/api/onboarding/identity", json={**NICOLAS, "setup_code": code[::-1]}
            )
            assert identity_error(wrong) == "setup_code_invalid"
            assert remote.get("/api/onboarding").json()["step"] == "identity"

            created = remote.post("/api/onboarding/identity", json={**NICOLAS, "setup_code": code})
            assert created.status_code == 201, created.text
            assert created.json()["user"]["role"] == "admin"
            assert remote.get("/api/me").json()["user"]["email"] == NICOLAS["email"]
            assert remote.get("/api/onboarding").json()["setup_code_required"] is False

        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as late:
            again = late.post(
                "/api/onboarding/identity", json={**person("Eve"), "setup_code": code}
            )
            assert identity_error(again) == "setup_code_invalid"  # gone, not just used up
    # With an administrator, the next start prints no code.
    with kinbot_serve(data_dir, tmp_path / "second.log", host=address) as server:
        assert server.setup_link() is None
        assert "set-up code" not in server.log_text()


def test_the_log_link_opens_this_machine_when_listening_everywhere(tmp_path: Path) -> None:
    with kinbot_serve(tmp_path / "data", tmp_path / "serve.log", host="0.0.0.0") as server:
        link = server.setup_link()
        assert link is not None, server.log_text()
        port = server.url.rsplit(":", 1)[1]
        assert link[0] == f"http://127.0.0.1:{port}/onboarding?setup={link[1]}"
        # From this machine no code is needed.
        local = httpx.post(
            f"http://127.0.0.1:{port}/api/onboarding/identity", json=NICOLAS, timeout=10
        )
        assert local.status_code == 201, local.text


def test_the_link_uses_the_public_url(tmp_path: Path) -> None:
    with kinbot_serve(
        tmp_path / "data", tmp_path / "serve.log", KINBOT_PUBLIC_URL="https://kinbot.example.org"
    ) as server:
        link = server.setup_link()
        assert link is not None
        assert link[0] == f"https://kinbot.example.org/onboarding?setup={link[1]}"


async def test_from_this_machine_no_code_is_needed(data_dir: Path) -> None:
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        status = (await server.client.get("/api/onboarding")).json()
        assert status["setup_code_required"] is False
        created = await server.client.post("/api/onboarding/identity", json=NICOLAS)
        assert created.status_code == 201, created.text


async def test_a_proxy_on_this_machine_forwarding_a_remote_browser_is_not_local(
    data_dir: Path,
) -> None:
    settings = load_settings(data_dir=data_dir, trusted_proxy_hops=1)
    async with running_server(Platform(settings)) as server:
        code = setup_code(server.app).issue()
        remote = {"X-Forwarded-For": "203.0.113.7"}

        async def claim(headers: dict[str, str], **extra: Any) -> httpx.Response:
            return await server.client.post(
                "/api/onboarding/identity", json={**NICOLAS, **extra}, headers=headers
            )

        status = await server.client.get("/api/onboarding", headers=remote)
        assert status.json()["setup_code_required"] is True
        assert identity_error(await claim(remote)) == "setup_code_required"
        # Not through the proxy as configured (no forwarded address): not local either.
        assert identity_error(await claim({})) == "setup_code_required"
        assert identity_error(await claim(remote, setup_code="not-the-code")) == (
            "setup_code_invalid"
        )
        # The address the trusted proxy appended decides, not one the client made up.
        spoofed = {"X-Forwarded-For": "127.0.0.1, 203.0.113.7"}
        assert identity_error(await claim(spoofed)) == "setup_code_required"

        created = await claim(remote, setup_code=code)
        assert created.status_code == 201, created.text
        reused = await server.client.post(
            "/api/onboarding/identity",
            json={**person("Eve"), "setup_code": code},
            headers=remote,
        )
        assert identity_error(reused) == "setup_code_invalid"


async def test_a_proxy_forwarding_a_browser_of_this_machine_is_local(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir, trusted_proxy_hops=1)
    async with running_server(Platform(settings)) as server:
        local = {"X-Forwarded-For": "127.0.0.1"}
        status = await server.client.get("/api/onboarding", headers=local)
        assert status.json()["setup_code_required"] is False
        created = await server.client.post("/api/onboarding/identity", json=NICOLAS, headers=local)
        assert created.status_code == 201, created.text

"""An OpenAI-compatible server's address without its ``/v1``: the connection test says so and
what to try, rather than "the provider refused the request". Over HTTP against a real server
and a fake OpenAI server on loopback, whose API lives under ``/v1`` (anything else is a 404)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.server import RunningServer, running_server


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Any) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, llm_max_retries=0, llm_timeout_seconds=5)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        yield server


async def connection_test(server: RunningServer, base_url: str) -> Any:
    response = await server.client.post(
        "/api/providers/test", json={"type": "openai-compatible", "config": {"base_url": base_url}}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_address_without_v1_is_told_to_end_in_v1(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    report = await connection_test(server, fake.base_url)
    assert (report["ok"], report["code"]) == (False, "provider_base_url_missing_v1")
    assert report["params"]["suggested_base_url"] == f"{fake.base_url}/v1"
    assert "usually end in /v1" in report["message"]
    assert f"try {fake.base_url}/v1" in report["message"]
    # With a path that is not the API's either (a trailing slash is the same address).
    deeper = await connection_test(server, f"{fake.base_url}/api/")
    assert deeper["code"] == "provider_base_url_missing_v1"
    assert deeper["params"]["suggested_base_url"] == f"{fake.base_url}/api/v1"
    # Saving it is refused for the same reason, with the address to try.
    refused = await server.client.post("/api/providers", json={
        "type": "openai-compatible", "name": "Home", "config": {"base_url": fake.base_url},
    })  # fmt: skip
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "provider_test_failed"
    assert error["details"]["failure"] == "provider_base_url_missing_v1"
    assert error["details"]["suggested_base_url"] == f"{fake.base_url}/v1"

    # The address it suggests works.
    fixed = await connection_test(server, f"{fake.base_url}/v1")
    assert fixed["ok"] is True


async def test_a_404_at_an_address_ending_in_v1_is_not_blamed_on_v1(
    server: RunningServer, fake: FakeOpenAI
) -> None:
    # Something else answers 404 at .../v1/models: the address has its /v1, no hint.
    report = await connection_test(server, f"{fake.base_url}/other/v1")
    assert (report["ok"], report["code"]) == (False, "provider_bad_request")
    assert "suggested_base_url" not in report["params"]

"""Generated Kin avatars through the image capability (the fake OpenAI images endpoint)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._data import png_image
from tests.support.provider_setups import API_KEY
from tests.support.server import running_server
from tests.test_mcp import offered_tools, run_turn, tool_results


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


KIN = {
    "name": "Sage",
    "role": "Herbalist of the house",
    "character": "Calm, patient, a little mysterious.",
    "expertise": "Medicinal plants and herbal teas.",
}


async def test_generated_avatars_only_with_an_image_provider(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    async with running_server(platform) as server:
        client = server.client
        await set_up_admin(client)
        # An LLM-only provider (OpenAI-compatible has no image capability) to create the Kin.
        response = await client.post(
            "/api/providers",
            json={"type": "openai-compatible", "name": "Chat",
                  "config": {"base_url": f"{fake.base_url}/v1"}},
        )  # fmt: skip
        assert response.status_code == 201, response.text
        response = await client.post("/api/kins", json={**KIN, "model": "gpt-4o"})
        assert response.status_code == 201, response.text
        kin_id = response.json()["kin"]["id"]
        modes = (await client.get(f"/api/kins/{kin_id}/avatar/modes")).json()
        assert modes == {"modes": ["upload"], "image": False}
        response = await client.post(f"/api/kins/{kin_id}/avatar/generate", json={"mode": "auto"})
        assert response.status_code == 409
        assert "image generation" in response.json()["error"]["message"]
        assert not [r for r in fake.requests if r.endpoint == "images"]

        response = await client.post(
            "/api/providers",
            json={"type": "openai", "name": "OpenAI",
                  "config": {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}},
        )  # fmt: skip
        assert response.status_code == 201, response.text
        modes = (await client.get(f"/api/kins/{kin_id}/avatar/modes")).json()
        assert modes == {"modes": ["upload", "auto", "prompt"], "image": True}

        # Automatic: a hidden prompt from the Kin's identity.
        response = await client.post(f"/api/kins/{kin_id}/avatar/generate", json={"mode": "auto"})
        assert response.status_code == 200, response.text
        assert response.json()["kin"]["avatar_url"] == f"/api/kins/{kin_id}/avatar"
        prompt = [r for r in fake.requests if r.endpoint == "images"][-1].body["prompt"]
        for value in KIN.values():
            assert value in prompt
        image = await client.get(f"/api/kins/{kin_id}/avatar")
        assert image.status_code == 200 and image.headers["content-type"] == "image/webp"
        assert image.content[:4] == b"RIFF" and image.content[8:12] == b"WEBP"
        first = image.content

        # Custom prompt: sent as written.
        response = await client.post(
            f"/api/kins/{kin_id}/avatar/generate",
            json={"mode": "prompt", "prompt": "A teapot with a wizard hat"},
        )
        assert response.status_code == 200, response.text
        request = [r for r in fake.requests if r.endpoint == "images"][-1]
        assert request.body["prompt"] == "A teapot with a wizard hat"
        assert API_KEY not in request.raw_body.decode()
        second = (await client.get(f"/api/kins/{kin_id}/avatar")).content
        assert second != first

        # A failing provider changes nothing.
        fake.enqueue(Reply(status=500), Reply(status=500), endpoint="images")
        response = await client.post(
            f"/api/kins/{kin_id}/avatar/generate", json={"mode": "prompt", "prompt": "x"}
        )
        assert response.status_code == 502
        assert (await client.get(f"/api/kins/{kin_id}/avatar")).content == second

        # Bad requests.
        for body in ({"mode": "prompt"}, {"mode": "prompt", "prompt": "  "}, {"mode": "magic"}):
            response = await client.post(f"/api/kins/{kin_id}/avatar/generate", json=body)
            assert response.status_code == 400, body
        response = await client.post("/api/kins/nope/avatar/generate", json={"mode": "auto"})
        assert response.status_code == 404


async def test_generate_image_saves_into_the_workspace_only_with_an_image_provider(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    async with running_server(platform) as server:
        client = server.client
        await set_up_admin(client)
        response = await client.post(
            "/api/providers",
            json={"type": "openai-compatible", "name": "Chat",
                  "config": {"base_url": f"{fake.base_url}/v1"}},
        )  # fmt: skip
        assert response.status_code == 201, response.text
        kin = (await client.post("/api/kins", json={**KIN, "model": "Chat/gpt-4o"})).json()["kin"]
        fake.enqueue(Reply(text="No images here."))
        await run_turn(client, kin["id"], "Draw a teapot")
        assert "generate_image" not in offered_tools(fake)

        response = await client.post(
            "/api/providers",
            json={"type": "openai", "name": "OpenAI",
                  "config": {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}},
        )  # fmt: skip
        assert response.status_code == 201, response.text
        fake.enqueue(
            Reply(tool_calls=[("generate_image", {"prompt": "a teapot", "name": "tea pot"})]),
            Reply(text="Drawn."),
        )
        turn = await run_turn(client, kin["id"], "Draw a teapot")
        assert "generate_image" in offered_tools(fake)
        [result] = tool_results(turn)
        assert not result["is_error"], result["content"]
        saved = json.loads(result["content"])
        assert saved["path"].startswith("images/tea-pot-") and saved["path"].endswith(".png")
        stored = Path(kin["workspace"]) / saved["path"]
        assert stored.read_bytes() == png_image("a teapot")

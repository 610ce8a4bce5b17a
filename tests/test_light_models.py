"""A fair price: memory extraction and compacting run on the cheapest capable chat model of
the Kin's provider (chosen among the models the provider lists, as each fake lists them),
unless the Kin or the platform says otherwise; the calls really go to that model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.providers.light_models import (
    OWN_MODEL,
    background_model,
    light_model,
    parameter_count,
    pick_light_model,
)
from kinbot_plugins.memory_extraction import extraction_of
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeAnthropic, FakeGemini, FakeOpenAI, Reply
from tests.support.provider_setups import LLM_SETUPS, add_openai_provider
from tests.support.server import RunningServer, running_server

#: What each provider type's light model is, among the models its fake lists.
EXPECTED = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-4o-mini",
    "gemini": "gemini-2.5-flash",
    # A local server: its smallest model by the parameter count its ids state.
    "openai-compatible": "qwen2.5:0.5b",
}
LOCAL_MODELS = ["llama3.1:8b", "qwen2.5:0.5b", "SmolLM2-1.7B-Instruct", "mistral-small"]


async def test_the_light_model_of_each_provider_type_is_chosen_from_its_listed_models(
    data_dir: Any,
) -> None:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    fakes = []
    try:
        async with running_server(platform) as server:
            await set_up_admin(server.client)
            for setup in LLM_SETUPS:
                models = LOCAL_MODELS if setup.type_name == "openai-compatible" else None
                fake = setup.fake_class(models=models).__enter__()
                fakes.append(fake)
                added = await server.client.post(
                    "/api/providers",
                    json={
                        "type": setup.type_name,
                        "name": f"P {setup.type_name}",
                        "config": setup.make_config(fake),
                    },
                )
                assert added.status_code == 201, added.text
                kin_model = f"P {setup.type_name}/{LOCAL_MODELS[0] if models else setup.model}"
                chosen = await light_model(platform, kin_model)
                assert chosen == f"P {setup.type_name}/{EXPECTED[setup.type_name]}", setup
                assert fake.requests_to("models"), "chosen from the provider's own list"
    finally:
        for fake in fakes:
            fake.__exit__(None, None, None)


def test_known_types_keep_to_their_table_and_others_go_by_stated_size() -> None:
    assert pick_light_model("anthropic", FakeAnthropic.default_models) == "claude-haiku-4-5"
    assert pick_light_model("anthropic", ["claude-opus-4-1-20250805"]) is None
    assert pick_light_model("openai", [*FakeOpenAI.default_models, "gpt-4.1-mini"]) == (
        "gpt-4.1-mini"
    )
    # The image model sharing the flash prefix is not a chat model to pick.
    assert pick_light_model("gemini", ["gemini-2.5-pro", "gemini-2.5-flash-image"]) is None
    assert pick_light_model("gemini", FakeGemini.default_models) == "gemini-2.5-flash"
    # An OpenAI-compatible server listing ids that state no size: nothing is guessed.
    assert pick_light_model("openai-compatible", FakeOpenAI.default_models) is None
    assert pick_light_model("openai-compatible", LOCAL_MODELS) == "qwen2.5:0.5b"
    assert parameter_count("SmolLM2-135M-Instruct") == 135e6
    assert parameter_count("gpt-4o-mini") is None
    assert parameter_count("mixtral-8x7b") is None


@pytest.fixture
async def openai_server(data_dir: Any) -> AsyncIterator[tuple[RunningServer, FakeOpenAI]]:
    settings = load_settings(
        data_dir=data_dir,
        llm_max_retries=0,
        memory_extraction_delay_seconds=3600,
        compacting_keep_recent_messages=1,
    )
    with FakeOpenAI() as fake:
        async with running_server(Platform(settings)) as server:
            await set_up_admin(server.client)
            added = await server.client.post(
                "/api/providers", json={"type": "local-embeddings", "name": "Local", "config": {}}
            )
            assert added.status_code == 201, added.text
            await add_openai_provider(server.client, fake)
            yield server, fake


def is_summary(body: dict[str, Any]) -> bool:
    return "You maintain the working memory" in body["messages"][0]["content"]


async def test_extraction_and_compacting_calls_go_to_the_light_model_unless_overridden(
    openai_server: tuple[RunningServer, FakeOpenAI],
) -> None:
    server, fake = openai_server
    platform = server.platform
    created = await server.client.post("/api/kins", json={"name": "Chef", "model": "OpenAI/gpt-4o"})
    assert created.status_code == 201, created.text
    kin_id = created.json()["kin"]["id"]
    for role, text in (
        ("user", "Marie is allergic to peanuts."),
        ("assistant", "I will remember that."),
        ("user", "We go to Brittany in August."),
        ("assistant", "Lovely."),
    ):
        await platform.kins.add_message(
            kin_id, role=role, source="user" if role == "user" else "kin",
            sender_name="Nico" if role == "user" else "Chef", content=text,
        )  # fmt: skip
    no_memories = Reply(text=json.dumps({"memories": []}))
    fake.enqueue(no_memories, Reply(text="Marie is allergic to peanuts."))
    assert await platform.compacting.compact(kin_id, force=True) is not None
    # The extraction (before compacting) and the summary both went to the light model.
    assert [r.body["model"] for r in fake.requests_to("chat")] == ["gpt-4o-mini", "gpt-4o-mini"]
    assert is_summary(fake.requests_to("chat")[-1].body)

    # The platform says "the Kin's own model"; the Kin's own override still wins.
    platform.settings = platform.settings.model_copy(
        update={"compacting_model": OWN_MODEL, "memory_extraction_model": OWN_MODEL}
    )
    kin = await platform.kins.get(kin_id)
    assert await background_model(platform, kin, "compacting") == "OpenAI/gpt-4o"
    changed = await server.client.patch(
        f"/api/kins/{kin_id}", json={"memory_extraction_model": "OpenAI/gpt-3.5-turbo"}
    )
    assert changed.status_code == 200, changed.text
    refused = await server.client.patch(
        f"/api/kins/{kin_id}", json={"compacting_model": "OpenAI/nothing-like-it"}
    )
    assert refused.status_code == 400, refused.text
    await platform.kins.add_message(
        kin_id, role="user", source="user", sender_name="Nico", content="Léa starts judo."
    )
    fake.enqueue(no_memories)
    report = await extraction_of(platform).extractor.extract(kin_id)
    assert report.error is None
    assert fake.requests_to("chat")[-1].body["model"] == "gpt-3.5-turbo"

    # A Kin may ask for its own model whatever the platform says.
    platform.settings = platform.settings.model_copy(update={"compacting_model": ""})
    own = await server.client.patch(f"/api/kins/{kin_id}", json={"compacting_model": OWN_MODEL})
    assert own.json()["kin"]["compacting_model"] == OWN_MODEL
    assert await background_model(platform, await platform.kins.get(kin_id), "compacting") == (
        "OpenAI/gpt-4o"
    )
    cleared = await server.client.patch(f"/api/kins/{kin_id}", json={"compacting_model": ""})
    assert cleared.json()["kin"]["compacting_model"] is None
    assert await background_model(platform, await platform.kins.get(kin_id), "compacting") == (
        "OpenAI/gpt-4o-mini"
    )

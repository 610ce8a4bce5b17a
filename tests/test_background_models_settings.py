"""A fair price, platform-wide: an administrator chooses in Settings the models of memory
extraction and compacting (``/api/settings/background-models``); the choice is stored, wins
over the configuration, survives a restart and is the model the next calls really go to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kinbot_core.config import Settings, load_settings
from kinbot_core.platform import Platform
from kinbot_core.providers.light_models import OWN_MODEL
from kinbot_plugins.memory_extraction import extraction_of
from tests.support.accounts import register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server

ROUTE = "/api/settings/background-models"
NO_MEMORIES = Reply(text=json.dumps({"memories": []}))


def make_settings(data_dir: Path, **changes: Any) -> Settings:
    return load_settings(
        data_dir=data_dir,
        llm_max_retries=0,
        memory_extraction_delay_seconds=3600,
        compacting_keep_recent_messages=1,
        **changes,
    )


async def set_up(server: RunningServer, fake: FakeOpenAI) -> str:
    """The administrator, a local embedding model, OpenAI and a Kin on gpt-4o; the Kin's id."""
    await set_up_admin(server.client)
    local = await server.client.post(
        "/api/providers", json={"type": "local-embeddings", "name": "Local", "config": {}}
    )
    assert local.status_code == 201, local.text
    await add_openai_provider(server.client, fake)
    created = await server.client.post("/api/kins", json={"name": "Chef", "model": "OpenAI/gpt-4o"})
    assert created.status_code == 201, created.text
    kin_id: str = created.json()["kin"]["id"]
    return kin_id


async def talk(server: RunningServer, kin_id: str, *texts: str) -> None:
    for number, text in enumerate(texts):
        user = number % 2 == 0
        await server.platform.kins.add_message(
            kin_id, role="user" if user else "assistant", source="user" if user else "kin",
            sender_name="Nico" if user else "Chef", content=text,
        )  # fmt: skip


async def test_an_administrator_sees_and_changes_the_models_and_the_next_calls_use_them(
    data_dir: Path,
) -> None:
    with FakeOpenAI() as fake:
        async with running_server(Platform(make_settings(data_dir))) as server:
            kin_id = await set_up(server, fake)
            shown = await server.client.get(ROUTE)
            assert shown.status_code == 200, shown.text
            body = shown.json()
            assert (body["memory_extraction_model"], body["compacting_model"]) == ("", "")
            assert body["own_model"] == OWN_MODEL
            assert body["stored"] == {"memory_extraction_model": False, "compacting_model": False}
            listed = {model["value"]: model for model in body["models"]}
            # Chat models only, the provider's light model marked.
            assert {"OpenAI/gpt-4o", "OpenAI/gpt-4o-mini", "OpenAI/gpt-3.5-turbo"} <= set(listed)
            assert not any("embedding" in value or "dall-e" in value for value in listed)
            assert [v for v, m in listed.items() if m["light"]] == ["OpenAI/gpt-4o-mini"]
            assert listed["OpenAI/gpt-4o"]["provider"] == "OpenAI"

            changed = await server.client.put(
                ROUTE,
                json={
                    "memory_extraction_model": OWN_MODEL,
                    "compacting_model": "OpenAI/gpt-3.5-turbo",
                },
            )
            assert changed.status_code == 200, changed.text
            assert changed.json()["memory_extraction_model"] == OWN_MODEL
            assert changed.json()["compacting_model"] == "OpenAI/gpt-3.5-turbo"
            assert changed.json()["stored"]["compacting_model"] is True

            # Without a restart: the extraction goes to the Kin's own model, the summary to
            # the chosen one.
            await talk(
                server,
                kin_id,
                "Marie is allergic to peanuts.",
                "Noted.",
                "Judo on Friday.",
                "Fine.",
            )
            fake.enqueue(NO_MEMORIES, Reply(text="Marie is allergic to peanuts."))
            assert await server.platform.compacting.compact(kin_id, force=True) is not None
            assert [r.body["model"] for r in fake.requests_to("chat")] == [
                "gpt-4o",
                "gpt-3.5-turbo",
            ]

            # Only the given field changes; back to the light model.
            back = await server.client.put(ROUTE, json={"memory_extraction_model": ""})
            assert back.json()["memory_extraction_model"] == ""
            assert back.json()["compacting_model"] == "OpenAI/gpt-3.5-turbo"
            await talk(server, kin_id, "Léa starts judo.")
            fake.enqueue(NO_MEMORIES)
            report = await extraction_of(server.platform).extractor.extract(kin_id)
            assert report.error is None
            assert fake.requests_to("chat")[-1].body["model"] == "gpt-4o-mini"

            # A Kin's own override still wins over the platform's choice.
            own = await server.client.patch(
                f"/api/kins/{kin_id}", json={"memory_extraction_model": "OpenAI/gpt-4o"}
            )
            assert own.status_code == 200, own.text
            await talk(server, kin_id, "Léa likes cherries.")
            fake.enqueue(NO_MEMORIES)
            assert (await extraction_of(server.platform).extractor.extract(kin_id)).error is None
            assert fake.requests_to("chat")[-1].body["model"] == "gpt-4o"

        # Stored: a new start keeps the choice.
        async with running_server(Platform(make_settings(data_dir))) as server:
            models = server.platform.background_models
            assert models.in_force("compacting") == "OpenAI/gpt-3.5-turbo"
            assert models.in_force("extraction") == ""


async def test_a_member_is_refused_and_an_unknown_model_changes_nothing(data_dir: Path) -> None:
    with FakeOpenAI() as fake:
        async with running_server(Platform(make_settings(data_dir))) as server:
            await set_up(server, fake)
            async with server.new_client() as member:
                await register(server.client, member)
                for method in ("GET", "PUT"):
                    refused = await member.request(method, ROUTE, json={"compacting_model": ""})
                    assert refused.status_code == 403, (method, refused.text)
                    assert refused.json()["error"]["code"] == "forbidden"

            for value, code in (
                ("gpt-17", "model_not_listed"),
                ("OpenAI/nothing-like-it", "provider_model_not_listed"),
            ):
                refused = await server.client.put(
                    ROUTE, json={"memory_extraction_model": OWN_MODEL, "compacting_model": value}
                )
                assert refused.status_code == 400, refused.text
                assert refused.json()["error"]["code"] == code
                assert refused.json()["error"]["details"]["model"] in value
            # Nothing was stored, not even the valid half.
            shown = (await server.client.get(ROUTE)).json()
            assert (shown["memory_extraction_model"], shown["compacting_model"]) == ("", "")
            too_long = await server.client.put(ROUTE, json={"compacting_model": "x" * 201})
            assert too_long.status_code == 400


async def test_the_stored_choice_wins_over_the_configuration(data_dir: Path) -> None:
    configured = make_settings(
        data_dir, memory_extraction_model=OWN_MODEL, compacting_model=OWN_MODEL
    )
    with FakeOpenAI() as fake:
        async with running_server(Platform(configured)) as server:
            kin_id = await set_up(server, fake)
            shown = (await server.client.get(ROUTE)).json()
            assert shown["memory_extraction_model"] == OWN_MODEL  # from the configuration
            assert shown["stored"]["memory_extraction_model"] is False
            changed = await server.client.put(ROUTE, json={"memory_extraction_model": ""})
            assert changed.json()["memory_extraction_model"] == ""
            assert changed.json()["compacting_model"] == OWN_MODEL
            await talk(server, kin_id, "Marie is allergic to peanuts.")
            fake.enqueue(NO_MEMORIES)
            assert (await extraction_of(server.platform).extractor.extract(kin_id)).error is None
            assert fake.requests_to("chat")[-1].body["model"] == "gpt-4o-mini"

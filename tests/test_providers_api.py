"""Providers over real HTTP and through the provider service: configuration, secrets,
capability coverage, model resolution, retries and errors."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db.models import ProviderRecord
from kinbot_core.events import Event
from kinbot_core.platform import Platform
from kinbot_core.providers import (
    ChatMessage,
    ChatRequest,
    ModelResolutionError,
    ProviderUnavailable,
    TextDelta,
)
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.fakes import FakeAnthropic, FakeBrave, FakeOpenAI, FakeVoyage, Reply
from tests.support.provider_setups import API_KEY
from tests.support.server import RunningServer, running_server


@pytest.fixture
def fakes() -> Iterator[dict[str, Any]]:
    with (
        FakeAnthropic() as anthropic,
        FakeOpenAI() as openai,
        FakeVoyage() as voyage,
        FakeBrave() as brave,
    ):
        yield {"anthropic": anthropic, "openai": openai, "voyage": voyage, "brave": brave}


@pytest.fixture
async def server(data_dir: Any) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, llm_max_retries=2, llm_timeout_seconds=2)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        yield server


def anthropic_body(fakes: dict[str, Any], name: str = "Claude") -> dict[str, Any]:
    return {
        "type": "anthropic",
        "name": name,
        "config": {"api_key": API_KEY, "base_url": fakes["anthropic"].base_url},
    }


def voyage_body(fakes: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "voyage",
        "name": "Voyage",
        "config": {"api_key": API_KEY, "base_url": f"{fakes['voyage'].base_url}/v1"},
    }


def openai_body(fakes: dict[str, Any], name: str = "OpenAI") -> dict[str, Any]:
    return {
        "type": "openai",
        "name": name,
        "config": {"api_key": API_KEY, "base_url": f"{fakes['openai'].base_url}/v1"},
    }


async def test_onboarding_needs_llm_and_embedding(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    client = server.client
    coverage = (await client.get("/api/providers/coverage")).json()
    assert coverage["ready"] is False
    assert coverage["missing_required"] == ["llm", "embedding"]

    added = await client.post("/api/providers", json=anthropic_body(fakes))
    assert added.status_code == 201, added.text
    assert added.json()["provider"]["capabilities"] == ["llm"]
    coverage = (await client.get("/api/providers/coverage")).json()
    assert coverage["ready"] is False and coverage["missing_required"] == ["embedding"]
    assert (await client.get("/api/onboarding")).json()["step"] == "providers"

    assert (await client.post("/api/providers", json=voyage_body(fakes))).status_code == 201
    coverage = (await client.get("/api/providers/coverage")).json()
    assert coverage["ready"] is True
    assert coverage["capabilities"]["llm"] == ["Claude"]
    assert coverage["capabilities"]["embedding"] == ["Voyage"]
    assert set(coverage["disabled_features"]) == {"image", "search"}
    assert (await client.get("/api/onboarding")).json()["step"] == "search_providers"

    skipped = await client.post("/api/onboarding/search-providers/skip")
    assert skipped.status_code == 204
    assert (await client.get("/api/onboarding")).json() == {
        "step": "first_kin",
        "completed": ["identity", "providers", "search_providers"],
        "setup_code_required": False,
        "signed_in": True,
    }
    created = await client.post(
        "/api/kins", json={"name": "Chef", "model": "Claude/claude-sonnet-4-5"}
    )
    assert created.status_code == 201, created.text
    assert (await client.get("/api/onboarding")).json() == {
        "step": "done",
        "completed": ["identity", "providers", "search_providers", "first_kin"],
        "setup_code_required": False,
        "signed_in": True,
    }


async def test_one_openai_key_covers_llm_embedding_and_image(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    added = await server.client.post("/api/providers", json=openai_body(fakes))
    assert added.json()["provider"]["capabilities"] == ["llm", "embedding", "image"]
    coverage = (await server.client.get("/api/providers/coverage")).json()
    assert coverage["ready"] and set(coverage["disabled_features"]) == {"search"}


async def test_api_keys_are_masked_encrypted_and_never_logged(
    server: RunningServer, fakes: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    added = (await server.client.post("/api/providers", json=anthropic_body(fakes))).json()
    provider = added["provider"]
    assert provider["secrets"] == {"api_key": "…" + API_KEY[-4:]}
    assert provider["config"] == {"base_url": fakes["anthropic"].base_url}
    listed = await server.client.get("/api/providers")
    single = await server.client.get(f"/api/providers/{provider['id']}")
    for response in (listed, single):
        assert API_KEY not in response.text
    database = server.platform.settings.database_path
    raw = b"".join(path.read_bytes() for path in database.parent.glob("kinbot.db*"))
    assert API_KEY.encode() not in raw
    fakes["anthropic"].enqueue(
        Reply(status=401, error_message=f"bad key {API_KEY}"), endpoint="models"
    )
    tested = (await server.client.post(f"/api/providers/{provider['id']}/test")).json()
    assert tested["ok"] is False
    assert API_KEY not in str(tested)
    assert API_KEY not in caplog.text
    # the key did reach the provider, where it belongs
    assert fakes["anthropic"].requests[0].api_key == API_KEY


async def test_a_short_keys_hint_shows_none_of_it_even_as_saved_before(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    body = anthropic_body(fakes)
    body["config"]["api_key"] = "sk-loc-42"  # a local server's key: 9 characters
    provider = (await server.client.post("/api/providers", json=body)).json()["provider"]
    assert provider["secrets"] == {"api_key": "…"}
    # A hint stored by an older version (then: the last four characters of any key over 8).
    await server.platform.db.write(
        lambda: (
            ProviderRecord.update(secret_hints='{"api_key": "…c-42"}')
            .where(ProviderRecord.id == provider["id"])
            .execute()
        )
    )
    shown = (await server.client.get(f"/api/providers/{provider['id']}")).json()["provider"]
    assert shown["secrets"] == {"api_key": "…"}


async def test_a_failed_connection_test_saves_nothing(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    fakes["anthropic"].valid_keys = {"the-real-key"}
    unsaved = await server.client.post("/api/providers/test", json={
        "type": "anthropic", "config": anthropic_body(fakes)["config"],
    })  # fmt: skip
    assert unsaved.status_code == 200
    assert unsaved.json()["ok"] is False
    assert "refused the credentials" in unsaved.json()["message"]
    refused = await server.client.post("/api/providers", json=anthropic_body(fakes))
    assert refused.status_code == 400
    # Why it was refused: the test failed, on the provider's code, with the provider's words.
    assert refused.json()["error"]["code"] == "provider_test_failed"
    assert refused.json()["error"]["details"] == {
        "failure": "provider_authentication_failed",
        "detail": "invalid x-api-key",
    }
    assert (await server.client.get("/api/providers")).json()["providers"] == []
    unknown = await server.client.post("/api/providers", json={"type": "skynet", "name": "x"})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "provider_type_unknown"
    missing_key = await server.client.post(
        "/api/providers", json={"type": "anthropic", "name": "x", "config": {}}
    )
    assert "API key is required" in missing_key.json()["error"]["message"]
    assert missing_key.json()["error"]["code"] == "provider_field_required"
    assert missing_key.json()["error"]["details"] == {"field": "api_key", "label": "API key"}
    not_http = await server.client.post("/api/providers", json={
        "type": "anthropic", "name": "x", "config": {"api_key": API_KEY, "base_url": "ftp://x.example"},
    })  # fmt: skip
    assert (not_http.status_code, not_http.json()["error"]["code"]) == (
        400,
        "provider_base_url_invalid",
    )
    extra = await server.client.post("/api/providers", json={
        "type": "anthropic", "name": "x", "config": {"api_key": API_KEY, "region": "eu"},
    })  # fmt: skip
    assert extra.json()["error"]["code"] == "provider_settings_unknown"
    assert extra.json()["error"]["details"] == {"settings": "region"}


async def test_a_failed_connection_test_keeps_the_providers_own_words(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    """The provider's message reaches the report as ``params["detail"]``, and the refused
    provider's error; without its address, nor any other address of this machine's network,
    nor the key; a public address in it stays."""
    fake = fakes["openai"]
    words = (
        f"Model is loading on {fake.base_url}/v1 (queue at http://127.0.0.1:11434/api), key "
        f"{API_KEY} is fine, see https://status.example.com"
    )
    fake.enqueue(*[Reply(status=503, error_message=words)] * 2, endpoint="models")
    tested = await server.client.post("/api/providers/test", json={
        "type": "openai", "config": openai_body(fakes)["config"],
    })  # fmt: skip
    report = tested.json()
    assert (report["ok"], report["code"]) == (False, "provider_unavailable")
    detail = report["params"]["detail"]
    assert detail.startswith("Model is loading on [provider address]")
    assert "(queue at [address])" in detail and "https://status.example.com" in detail
    assert "127.0.0.1" not in detail and API_KEY not in detail and "[redacted]" in detail
    refused = await server.client.post("/api/providers", json=openai_body(fakes))
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "provider_test_failed"
    assert error["details"] == {"failure": "provider_unavailable", "detail": detail}


async def test_models_are_listed_once_then_cached(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    provider = (await server.client.post("/api/providers", json=anthropic_body(fakes))).json()[
        "provider"
    ]
    calls = len(fakes["anthropic"].requests)
    models = (await server.client.get(f"/api/providers/{provider['id']}/models")).json()["models"]
    assert "claude-haiku-4-5" in {m["id"] for m in models}
    assert len(fakes["anthropic"].requests) == calls  # cached when the connection was tested
    await server.client.get(f"/api/providers/{provider['id']}/models?refresh=1")
    assert len(fakes["anthropic"].requests) == calls + 1


async def test_members_read_providers_but_only_admins_change_them(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    provider = (await server.client.post("/api/providers", json=anthropic_body(fakes))).json()[
        "provider"
    ]
    async with server.new_client() as member:
        await register(server.client, member, MARIE)
        assert (await member.get("/api/providers")).status_code == 200
        assert (await member.get(f"/api/providers/{provider['id']}/models")).status_code == 200
        assert (await member.post("/api/providers", json=voyage_body(fakes))).status_code == 403
        assert (await member.delete(f"/api/providers/{provider['id']}")).status_code == 403


async def test_rename_reconfigure_remove_and_events(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def record(event: Event) -> None:
        seen.append((event.type, event.payload()))

    async def serving_llm() -> list[str]:  # kept between turns: every change must show
        coverage = (await server.client.get("/api/providers/coverage")).json()
        return coverage["capabilities"].get("llm", [])  # type: ignore[no-any-return]

    server.platform.bus.on("provider.*", record)
    provider = (await server.client.post("/api/providers", json=anthropic_body(fakes))).json()[
        "provider"
    ]
    assert await serving_llm() == ["Claude"]
    renamed = await server.client.patch(
        f"/api/providers/{provider['id']}", json={"name": "Claude home"}
    )
    assert renamed.json()["provider"]["name"] == "Claude home"
    assert await serving_llm() == ["Claude home"]
    assert renamed.json()["provider"]["secrets"] == provider["secrets"]  # key kept
    rekeyed = await server.client.patch(
        f"/api/providers/{provider['id']}", json={"config": {"api_key": "sk-another-key-9876"}}
    )
    assert rekeyed.json()["provider"]["secrets"] == {"api_key": "…876"}  # a sixth at most
    assert fakes["anthropic"].requests[-1].api_key == "sk-another-key-9876"
    clash = await server.client.post("/api/providers", json=anthropic_body(fakes, "claude HOME"))
    assert clash.status_code == 400
    assert clash.json()["error"]["code"] == "provider_name_taken"
    assert clash.json()["error"]["details"] == {"name": "claude HOME"}
    slash = await server.client.patch(f"/api/providers/{provider['id']}", json={"name": "a/b"})
    assert slash.status_code == 400
    assert slash.json()["error"]["code"] == "provider_name_invalid"
    assert (await server.client.delete(f"/api/providers/{provider['id']}")).status_code == 204
    assert (await server.client.get(f"/api/providers/{provider['id']}")).status_code == 404
    assert await serving_llm() == []
    await server.platform.bus.flush()
    assert [kind for kind, _ in seen] == ["provider.added", "provider.removed"]
    assert seen[0][1] == {"provider_id": provider["id"], "provider_type": "anthropic"}


async def test_search_providers_are_configured_the_same_way(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    types = (await server.client.get("/api/search-providers/types")).json()["types"]
    assert {t["name"] for t in types} == {"brave", "searxng"}
    brave = {
        "type": "brave",
        "name": "Brave",
        "config": {"api_key": API_KEY, "base_url": fakes["brave"].base_url},
    }
    added = await server.client.post("/api/search-providers", json=brave)
    assert added.status_code == 201, added.text
    assert added.json()["provider"]["capabilities"] == ["search"]
    assert (await server.client.get("/api/onboarding")).json()["completed"][
        -1
    ] == "search_providers"
    results = await server.platform.providers.web_search("lasagna recipe", count=2)
    assert len(results) == 2
    as_ai = await server.client.get(f"/api/providers/{added.json()['provider']['id']}")
    assert as_ai.status_code == 404  # a search provider is not an AI provider


async def test_model_resolution_is_exact_or_refused(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    providers = server.platform.providers
    with pytest.raises(ModelResolutionError, match="No provider with the llm capability") as none:
        await providers.resolve_model("gpt-4o")
    assert (none.value.code, none.value.params) == (
        "provider_capability_missing",
        {"capability": "llm"},
    )
    await server.client.post("/api/providers", json=anthropic_body(fakes))
    await server.client.post("/api/providers", json=openai_body(fakes, "OpenAI"))
    await server.client.post("/api/providers", json=openai_body(fakes, "Work OpenAI"))
    resolved = await providers.resolve_model("claude-haiku-4-5")
    assert (resolved.provider_name, resolved.model) == ("Claude", "claude-haiku-4-5")
    qualified = await providers.resolve_model("Work OpenAI/gpt-4o")
    assert (qualified.provider_name, qualified.model) == ("Work OpenAI", "gpt-4o")
    with pytest.raises(ModelResolutionError, match="Several providers offer 'gpt-4o'") as both:
        await providers.resolve_model("gpt-4o")
    assert (both.value.code, both.value.params) == (
        "model_ambiguous",
        {"model": "gpt-4o", "providers": "OpenAI, Work OpenAI", "example": "OpenAI/gpt-4o"},
    )
    with pytest.raises(ModelResolutionError, match="No configured provider lists the model") as no:
        await providers.resolve_model("gpt-17-ultra")
    assert (no.value.code, no.value.params) == ("model_not_listed", {"model": "gpt-17-ultra"})


async def test_a_named_provider_must_list_the_model_after_one_refresh(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    await server.client.post("/api/providers", json=openai_body(fakes, "Home"))
    unknown = await server.client.post(
        "/api/kins", json={"name": "Chef", "model": "Home/gpt-17-ultra"}
    )
    assert unknown.status_code == 400
    assert "does not list the model 'gpt-17-ultra'" in unknown.json()["error"]["message"]
    assert unknown.json()["error"]["code"] == "provider_model_not_listed"
    assert unknown.json()["error"]["details"] == {"provider": "Home", "model": "gpt-17-ultra"}
    bare = await server.client.post("/api/kins", json={"name": "Chef", "model": "gpt-17-ultra"})
    assert bare.status_code == 400
    assert bare.json()["error"]["code"] == "model_not_listed"
    # A model the provider started serving after its list was fetched: the list is fetched
    # once more before refusing, for both forms.
    fakes["openai"].models.append("gpt-17-ultra")
    models_before = len([r for r in fakes["openai"].requests if r.path == "/v1/models"])
    created = await server.client.post(
        "/api/kins", json={"name": "Chef", "model": "Home/gpt-17-ultra"}
    )
    assert created.status_code == 201, created.text
    assert len([r for r in fakes["openai"].requests if r.path == "/v1/models"]) > models_before


async def test_a_rate_limit_is_retried_then_succeeds(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    errors: list[str] = []
    server.platform.bus.on("provider.error", lambda event: errors.append(event.payload()["error"]))
    await server.client.post("/api/providers", json=anthropic_body(fakes))
    fakes["anthropic"].enqueue(
        Reply(status=429, headers={"retry-after": "0"}), Reply(text="Here I am, at last.")
    )
    request = ChatRequest("ignored", (ChatMessage("user", "hello"),))
    events = [e async for e in server.platform.providers.chat("claude-haiku-4-5", request)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Here I am, at last."
    chats = [r for r in fakes["anthropic"].requests if r.endpoint == "messages"]
    assert len(chats) == 2
    assert chats[-1].body["model"] == "claude-haiku-4-5"
    await server.platform.bus.flush()
    assert len(errors) == 1 and "rate limiting" in errors[0]


async def test_a_provider_down_is_retried_a_bounded_number_of_times(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    await server.client.post("/api/providers", json=anthropic_body(fakes))
    server.platform.providers.retry_policy = type(server.platform.providers.retry_policy)(
        max_retries=2, base_delay=0.01
    )
    fakes["anthropic"].enqueue(*[Reply(status=503)] * 5)
    request = ChatRequest("ignored", (ChatMessage("user", "hello"),))
    with pytest.raises(ProviderUnavailable, match="unavailable"):
        async for _ in server.platform.providers.chat("claude-haiku-4-5", request):
            pass
    chats = [r for r in fakes["anthropic"].requests if r.endpoint == "messages"]
    assert len(chats) == 3  # the first try and two retries


async def test_a_disabled_provider_plugin_takes_its_type_away(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    await server.client.post("/api/providers", json=voyage_body(fakes))
    assert (await server.platform.providers.embed(["hello"]))[0]
    await server.client.patch("/api/plugins/voyage", json={"enabled": False})
    types = (await server.client.get("/api/providers/types")).json()["types"]
    assert "voyage" not in {t["name"] for t in types}
    again = await server.client.post("/api/providers", json=voyage_body(fakes))
    assert again.status_code == 400 and "is its plugin enabled" in again.text
    assert again.json()["error"]["code"] == "provider_type_unknown"


def test_credentials_in_a_base_url_are_never_shown_or_echoed() -> None:
    from kinbot_core.providers.redaction import public_config, redact
    from kinbot_plugins.providers._common import public_url

    url = "https://family:s3cr3t-pass@llm.home.example:8443/v1?key=abcd1234"
    assert public_config({"base_url": url}) == {"base_url": "https://llm.home.example:8443/v1"}
    assert public_url(url) == "https://llm.home.example:8443/v1"
    message = f"cannot reach {url}"
    redacted = redact(message, {"base_url": url})
    assert "s3cr3t-pass" not in redacted and "abcd1234" not in redacted


async def test_a_stored_key_is_not_sent_to_a_new_base_url(
    server: RunningServer, fakes: dict[str, Any]
) -> None:
    claude = (await server.client.post("/api/providers", json=anthropic_body(fakes))).json()[
        "provider"
    ]
    moved = await server.client.patch(
        f"/api/providers/{claude['id']}", json={"config": {"base_url": "https://elsewhere.example"}}
    )
    assert moved.status_code == 400
    assert "API key again" in moved.json()["error"]["message"]
    assert moved.json()["error"]["code"] == "provider_key_again"

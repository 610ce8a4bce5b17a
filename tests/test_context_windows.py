"""A model's context window, learned from each kind of server, in the order the platform
trusts them, cached, and never an error when the server cannot be reached.

Each local server's way of saying it is served by the fake OpenAI-compatible server
(``tests/support/fakes/local_metadata.py``); Gemini and Anthropic by their own fakes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.providers import (
    ChatMessage,
    ChatRequest,
    ContextOverflowError,
    ContextWindow,
    ProviderConfigError,
)
from kinbot_core.providers.context_windows import (
    LEARNED_SECONDS,
    MAX_TOKENS,
    MIN_TOKENS,
    RETRY_SECONDS,
    ContextWindows,
)
from kinbot_core.providers.window_settings import ModelKey
from tests.support.accounts import register
from tests.support.fakes import FakeAnthropic, FakeGemini, FakeOpenAI
from tests.support.fakes.local_metadata import llama_cpp_props, lm_studio_model, ollama_show
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.provider_setups import API_KEY

MODEL = "smollm2-135m-instruct"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=[MODEL, "qwen2.5:0.5b", "nomic-embed-text"]) as server:
        yield server


async def platform_with(data_dir: Path, **settings: Any) -> Platform:
    platform = Platform(load_settings(data_dir=data_dir, **settings))
    await platform.start()
    return platform


@pytest.fixture
async def platform(data_dir: Path) -> AsyncIterator[Platform]:
    platform = await platform_with(data_dir)
    yield platform
    await platform.stop()


async def add_local(platform: Platform, fake: FakeOpenAI, **config: str) -> str:
    view = await platform.providers.add(
        "ai", "openai-compatible", "Local", {"base_url": f"{fake.base_url}/v1", **config}
    )
    return view.id


def asked(fake: FakeOpenAI, path: str) -> int:
    return sum(1 for request in fake.requests if request.path == path)


# -- each source ---------------------------------------------------------------------------


async def test_llama_cpp_says_its_slot_context_in_props(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.props = llama_cpp_props(n_ctx=2048)
    provider_id = await add_local(platform, fake)
    window = await platform.providers.context_window(provider_id, MODEL)
    assert window == ContextWindow(2048, "server")


async def test_ollama_num_ctx_of_the_model_is_the_window(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.ollama["qwen2.5:0.5b"] = ollama_show(32768, num_ctx=8192)
    provider_id = await add_local(platform, fake)
    window = await platform.providers.context_window(provider_id, "qwen2.5:0.5b")
    assert window == ContextWindow(8192, "server")
    show = [r for r in fake.requests if r.path == "/api/show"]
    assert show[-1].body == {"model": "qwen2.5:0.5b"}


async def test_ollama_without_num_ctx_runs_its_default_window(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.ollama["qwen2.5:0.5b"] = ollama_show(32768)
    fake.local.ollama[MODEL] = ollama_show(2048, architecture="llama")
    provider_id = await add_local(platform, fake)
    assert await platform.providers.context_window(provider_id, "qwen2.5:0.5b") == (
        ContextWindow(4096, "server")
    )
    # Never more than the model can take.
    assert await platform.providers.context_window(provider_id, MODEL) == (
        ContextWindow(2048, "server")
    )


async def test_ollama_model_without_tools_is_reported_so(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.ollama["qwen2.5:0.5b"] = ollama_show(32768, tools=True)
    fake.local.ollama[MODEL] = ollama_show(8192, tools=False)
    provider_id = await add_local(platform, fake)
    llm = (await platform.providers.instance(provider_id)).llm
    assert llm is not None
    await platform.providers.context_window(provider_id, MODEL)
    await platform.providers.context_window(provider_id, "qwen2.5:0.5b")
    assert llm.supports_tools(MODEL) is False
    assert llm.supports_tools("qwen2.5:0.5b") is True


async def test_vllm_max_model_len_in_the_models_list(platform: Platform, fake: FakeOpenAI) -> None:
    fake.local.model_fields[MODEL] = {"max_model_len": 16384}
    provider_id = await add_local(platform, fake)
    window = await platform.providers.context_window(provider_id, MODEL)
    assert window == ContextWindow(16384, "server")
    assert asked(fake, "/props") == 0  # the first answer is enough
    listed = await platform.providers.models(provider_id, refresh=True)
    assert {m.id: m.context_window for m in listed if m.capability == "llm"} == {
        MODEL: 16384,
        "qwen2.5:0.5b": None,
    }


async def test_openrouter_context_length_is_the_providers_metadata(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.model_fields[MODEL] = {"context_length": 131072}
    provider_id = await add_local(platform, fake)
    window = await platform.providers.context_window(provider_id, MODEL)
    assert window == ContextWindow(131072, "provider")
    listed = await platform.providers.models(provider_id)
    assert next(m.context_window for m in listed if m.id == MODEL) == 131072


async def test_lm_studio_loaded_context_else_a_small_one(
    platform: Platform, fake: FakeOpenAI
) -> None:
    fake.local.lm_studio[MODEL] = lm_studio_model(MODEL, 32768, loaded=4096)
    fake.local.lm_studio["qwen2.5:0.5b"] = lm_studio_model("qwen2.5:0.5b", 32768)
    provider_id = await add_local(platform, fake)
    assert await platform.providers.context_window(provider_id, MODEL) == (
        ContextWindow(4096, "server")
    )
    # Not loaded yet: loaded on demand with LM Studio's default, which it does not report.
    assert await platform.providers.context_window(provider_id, "qwen2.5:0.5b") == (
        ContextWindow(4096, "server")
    )


async def test_gemini_input_token_limit(platform: Platform) -> None:
    with FakeGemini() as gemini:
        view = await platform.providers.add(
            "ai", "gemini", "Gemini", {"api_key": API_KEY, "base_url": gemini.base_url}
        )
        window = await platform.providers.context_window(view.id, "gemini-2.5-flash")
    assert window == ContextWindow(1_048_576, "provider")
    listed = await platform.providers.models(view.id)
    assert {m.context_window for m in listed if m.capability == "llm"} == {1_048_576}


async def test_anthropic_max_input_tokens_else_the_known_models(platform: Platform) -> None:
    with FakeAnthropic() as anthropic:
        model = anthropic.models[0]
        view = await platform.providers.add(
            "ai", "anthropic", "Claude", {"api_key": API_KEY, "base_url": anthropic.base_url}
        )
        assert await platform.providers.context_window(view.id, model) == (
            ContextWindow(200_000, "known_model")
        )
        anthropic.max_input_tokens[model] = 1_000_000
        await platform.providers.test(view.id)  # a re-test forgets what was learned
        assert await platform.providers.context_window(view.id, model) == (
            ContextWindow(1_000_000, "provider")
        )
        listed = await platform.providers.models(view.id, refresh=True)
        assert next(m.context_window for m in listed if m.id == model) == 1_000_000


# -- precedence ----------------------------------------------------------------------------


async def test_admin_then_server_then_known_models_then_fallback(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    fake.models.append("gpt-4o")
    fake.local.props = llama_cpp_props(n_ctx=8192)
    platform = await platform_with(
        data_dir,
        compacting_context_windows={"qwen2.5:0.5b": 3000, "local/" + MODEL: 2500},
        compacting_threshold_tokens=60_000,
        compacting_threshold_share=0.75,
    )
    try:
        configured = await add_local(platform, fake, context_window="6000")
        windows = platform.providers
        # The setting, by "<provider>/<model>" or by model, beats everything.
        assert await windows.context_window(configured, MODEL) == ContextWindow(2500, "admin")
        assert await windows.context_window(configured, "qwen2.5:0.5b") == (
            ContextWindow(3000, "admin")
        )
        # Then the provider's own field, before the server.
        assert await windows.context_window(configured, "gpt-4o") == ContextWindow(6000, "admin")
        await windows.update(configured, kind="ai", config={"context_window": ""})
        # Then the server.
        assert await windows.context_window(configured, "gpt-4o") == ContextWindow(8192, "server")
        fake.local.props = None
        await windows.test(configured)
        # Then the known models; then the fallback (its threshold is the old one).
        assert await windows.context_window(configured, "gpt-4o") == (
            ContextWindow(128_000, "known_model")
        )
        assert await windows.context_window(configured, "nomic-embed-text") == (
            ContextWindow(80_000, "fallback")
        )
        # A Kin's model no provider serves: the setting, the table, the fallback.
        assert await windows.context_window("removed-provider", "gpt-4o") == (
            ContextWindow(128_000, "known_model")
        )
        assert await windows.context_window(None, "qwen2.5:0.5b") == ContextWindow(3000, "admin")
        assert await windows.context_window(None, "Gone/gpt-4o") == (
            ContextWindow(128_000, "known_model")
        )
    finally:
        await platform.stop()


async def test_a_window_given_in_the_interface_beats_the_configuration_at_once(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    """Given for "<provider>/<model>" (names without case): it wins over the setting's entry
    for the same key and over a learned, cached figure; cleared, the next source is back."""
    fake.local.props = llama_cpp_props(n_ctx=8192)
    platform = await platform_with(data_dir, compacting_context_windows={"local/" + MODEL: 2500})
    try:
        provider_id = await add_local(platform, fake)
        windows = platform.providers
        served = "qwen2.5:0.5b"
        assert await windows.context_window(provider_id, served) == ContextWindow(8192, "server")
        key = await platform.model_windows.key_of(f"local/{served}")
        assert (key.key, key.provider_id, key.model) == (f"Local/{served}", provider_id, served)
        await platform.model_windows.give(key, 5000)
        assert await windows.context_window(provider_id, served) == ContextWindow(5000, "admin")
        shouted = ModelKey(f"LOCAL/{served}", provider_id, served)
        assert platform.model_windows.given(shouted) == 5000
        mine = await platform.model_windows.key_of(f"Local/{MODEL}")
        await platform.model_windows.give(mine, 3000)
        assert await windows.context_window(provider_id, MODEL) == ContextWindow(3000, "admin")
        await platform.model_windows.give(mine, None)
        assert await windows.context_window(provider_id, MODEL) == ContextWindow(2500, "admin")
        await platform.model_windows.give(key, None)
        assert await windows.context_window(provider_id, served) == ContextWindow(8192, "server")
        assert platform.model_windows.given(key) is None
    finally:
        await platform.stop()


async def test_a_window_given_by_hand_must_be_a_number_of_tokens(
    platform: Platform, fake: FakeOpenAI
) -> None:
    with pytest.raises(ProviderConfigError) as refused:
        await add_local(platform, fake, context_window="a lot")
    assert refused.value.code == "provider_field_not_number"
    with pytest.raises(ProviderConfigError):
        await add_local(platform, fake, context_window="100")
    provider_id = await add_local(platform, fake, context_window="8,192")
    assert (await platform.providers.get(provider_id)).config["context_window"] == "8192"


# -- cache and failures --------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_learned_windows_are_cached_then_asked_again(
    platform: Platform, fake: FakeOpenAI
) -> None:
    clock = Clock()
    platform.providers.windows = ContextWindows(platform.settings, clock=clock)
    fake.local.props = llama_cpp_props(n_ctx=2048)
    provider_id = await add_local(platform, fake)
    assert (await platform.providers.context_window(provider_id, MODEL)).tokens == 2048
    fake.local.props = llama_cpp_props(n_ctx=4096)  # the server restarted with -c 4096
    assert (await platform.providers.context_window(provider_id, MODEL)).tokens == 2048
    assert asked(fake, "/props") == 1
    clock.now += LEARNED_SECONDS + 1
    assert (await platform.providers.context_window(provider_id, MODEL)).tokens == 4096
    fake.local.props = llama_cpp_props(n_ctx=8192)
    await platform.providers.test(provider_id)
    assert (await platform.providers.context_window(provider_id, MODEL)).tokens == 8192


async def test_an_unreachable_server_falls_back_and_is_asked_again_soon(
    platform: Platform, fake: FakeOpenAI
) -> None:
    clock = Clock()
    platform.providers.windows = ContextWindows(platform.settings, clock=clock)
    provider_id = await add_local(platform, fake)
    port = int(fake.base_url.rsplit(":", 1)[1])
    fake.stop()
    window = await platform.providers.context_window(provider_id, MODEL)
    assert window.source == "fallback"
    with FakeOpenAI(models=[MODEL], port=port) as back:
        back.local.props = llama_cpp_props(n_ctx=2048)
        assert (await platform.providers.context_window(provider_id, MODEL)).source == "fallback"
        clock.now += RETRY_SECONDS + 1
        assert await platform.providers.context_window(provider_id, MODEL) == (
            ContextWindow(2048, "server")
        )


async def test_a_server_that_says_nothing_is_not_an_error(
    platform: Platform, fake: FakeOpenAI
) -> None:
    provider_id = await add_local(platform, fake)
    window = await platform.providers.context_window(provider_id, MODEL)
    assert window.source == "fallback"
    # Every way was tried: the models list, llama.cpp's, Ollama's and LM Studio's.
    paths = {request.path for request in fake.requests}
    assert {"/v1/models", "/props", "/api/show", f"/api/v0/models/{MODEL}"} <= paths


async def test_a_server_that_refuses_a_prompt_names_the_window_in_force(
    platform: Platform, fake: FakeOpenAI
) -> None:
    """A server that does not say its window (no /props) refuses a prompt in llama.cpp's
    words: the window it names replaces the known models' figure, not an administrator's."""
    fake.window = 2048
    provider_id = await add_local(platform, fake)
    given_id = (
        await platform.providers.add(
            "ai", "openai-compatible", "Given", {"base_url": f"{fake.base_url}/v1",
                                                "context_window": "4096"}
        )
    ).id  # fmt: skip
    model = "qwen2.5:0.5b"
    request = ChatRequest(model=model, messages=(ChatMessage("user", "x" * 12_000),))
    for name, provider in (("Local", provider_id), ("Given", given_id)):
        before = await platform.providers.context_window(provider, model)
        with pytest.raises(ContextOverflowError):
            async for _event in platform.providers.chat(f"{name}/{model}", request):
                pass
        after = await platform.providers.context_window(provider, model)
        if name == "Local":
            assert before == ContextWindow(32_768, "known_model")
            assert after == ContextWindow(2048, "server")
        else:
            assert before == after == ContextWindow(4096, "admin")


# -- over HTTP -------------------------------------------------------------------------------


async def test_a_kins_window_and_its_source_over_http(data_dir: Path, fake: FakeOpenAI) -> None:
    fake.models.append("gpt-4o")
    fake.local.ollama[MODEL] = ollama_show(32768, num_ctx=2048)
    async with serve_with_openai(data_dir, fake) as server:
        client = server.client
        added = await client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "Local models",
                "config": {"base_url": f"{fake.base_url}/v1"},
            },
        )
        assert added.status_code == 201, added.text
        kin_id = await make_kin(client, model=f"Local models/{MODEL}")
        answer = await client.get(f"/api/kins/{kin_id}/context-window")
        assert answer.status_code == 200, answer.text
        assert answer.json() == {
            "model": f"Local models/{MODEL}",
            "tokens": 2048,
            "source": "server",
            "given": None,
            "may_set": True,
        }
        moved = await client.patch(f"/api/kins/{kin_id}", json={"model": "OpenAI/gpt-4o"})
        assert moved.status_code == 200, moved.text
        answer = await client.get(f"/api/kins/{kin_id}/context-window")
        assert answer.json()["tokens"] == 128_000
        assert answer.json()["source"] == "known_model"
        # The model's provider is gone: what KinBot knows without it.
        gone = await client.delete(f"/api/providers/{added.json()['provider']['id']}")
        assert gone.status_code == 204, gone.text
        removed = await client.get("/api/providers")
        openai_id = next(p["id"] for p in removed.json()["providers"] if p["name"] == "OpenAI")
        assert (await client.delete(f"/api/providers/{openai_id}")).status_code == 204
        answer = await client.get(f"/api/kins/{kin_id}/context-window")
        assert answer.json() == {
            "model": "OpenAI/gpt-4o",
            "tokens": 128_000,
            "source": "known_model",
            "given": None,
            "may_set": True,
        }
        missing = await client.get("/api/kins/no-such-kin/context-window")
        assert missing.status_code == 404


async def test_an_administrator_gives_a_models_window_from_the_kins_settings(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    """The window given by hand wins at once (the card and the next turn's budget follow),
    is refused unless a number of tokens, is the administrators' only, survives a restart,
    wins over the configuration's entry, and clearing it gives back the next source."""
    fake.local.ollama[MODEL] = ollama_show(32768, num_ctx=2048)
    async with serve_with_openai(data_dir, fake) as server:
        client = server.client
        added = await client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "Local models",
                "config": {"base_url": f"{fake.base_url}/v1"},
            },
        )
        assert added.status_code == 201, added.text
        kin_id = await make_kin(client, model=f"Local models/{MODEL}")
        route = f"/api/kins/{kin_id}/context-window"
        shown = (await client.get(route)).json()
        assert shown == {
            "model": f"Local models/{MODEL}",
            "tokens": 2048,
            "source": "server",
            "given": None,
            "may_set": True,
        }
        before = (await client.get(f"/api/kins/{kin_id}/compacting")).json()
        assert before["context_window"] == 2048

        given = await client.put(route, json={"tokens": 8192})
        assert given.status_code == 200, given.text
        assert given.json() == {**shown, "tokens": 8192, "source": "admin", "given": 8192}
        # The next turn's budget follows at once.
        after = (await client.get(f"/api/kins/{kin_id}/compacting")).json()
        assert after["context_window"] == 8192
        assert after["threshold_tokens"] > before["threshold_tokens"]

        for wrong in ("12", "many", 10**9, None, True):
            refused = await client.put(route, json={"tokens": wrong})
            assert refused.status_code == 400, refused.text
            error = refused.json()["error"]
            assert error["code"] == "context_window_invalid"
            assert error["details"] == {"min": MIN_TOKENS, "max": MAX_TOKENS}
        assert (await client.get(route)).json()["tokens"] == 8192

        async with server.new_client() as member:
            await register(client, member)
            seen = await member.get(route)
            assert seen.status_code == 200, seen.text
            assert seen.json()["may_set"] is False
            assert seen.json()["tokens"] == 8192
            assert (await member.put(route, json={"tokens": 4096})).status_code == 403
            assert (await member.delete(route)).status_code == 403
        assert (await client.get(route)).json()["tokens"] == 8192

        cleared = await client.delete(route)
        assert cleared.status_code == 200, cleared.text
        assert cleared.json() == shown
        assert (await client.put(route, json={"tokens": "16,384"})).status_code == 200

    async with serve_with_openai(
        data_dir, fake, first_start=False, compacting_context_windows={MODEL: 4096}
    ) as server:
        route = f"/api/kins/{kin_id}/context-window"
        kept = (await server.client.get(route)).json()
        assert (kept["tokens"], kept["source"], kept["given"]) == (16384, "admin", 16384)
        cleared = (await server.client.delete(route)).json()
        # The configuration's entry is in force again, then.
        assert (cleared["tokens"], cleared["source"], cleared["given"]) == (4096, "admin", None)

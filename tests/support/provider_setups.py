"""How to configure each built-in provider plugin against its fake server (test support)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.fakes import (
    FakeAnthropic,
    FakeBrave,
    FakeGemini,
    FakeOpenAI,
    FakeSearxng,
    FakeServer,
    FakeVoyage,
)

API_KEY = "sk-test-0123456789abcdef"


@dataclass(frozen=True)
class Setup:
    """A provider type, the fake that stands in for its service, and a working config."""

    type_name: str
    fake_class: type[FakeServer]
    config: Callable[[str], dict[str, Any]]
    model: str = ""
    #: The fake's endpoint name for the capability under test.
    endpoint: str | None = None

    def make_config(self, fake: FakeServer) -> dict[str, Any]:
        return self.config(fake.base_url)

    def __str__(self) -> str:
        return self.type_name


LLM_SETUPS = [
    Setup(
        "anthropic",
        FakeAnthropic,
        lambda url: {"api_key": API_KEY, "base_url": url},
        "claude-haiku-4-5",
    ),
    Setup(
        "openai", FakeOpenAI, lambda url: {"api_key": API_KEY, "base_url": f"{url}/v1"}, "gpt-4o"
    ),
    Setup(
        "openai-compatible",
        FakeOpenAI,
        lambda url: {"base_url": f"{url}/v1"},
        "gpt-4o-mini",
    ),
    Setup(
        "gemini", FakeGemini, lambda url: {"api_key": API_KEY, "base_url": url}, "gemini-2.5-flash"
    ),
]
EMBEDDING_SETUPS = [
    Setup(
        "openai",
        FakeOpenAI,
        lambda url: {"api_key": API_KEY, "base_url": f"{url}/v1"},
        endpoint="embeddings",
    ),
    Setup(
        "openai-compatible",
        FakeOpenAI,
        lambda url: {"base_url": f"{url}/v1", "embedding_model": "text-embedding-3-small"},
        endpoint="embeddings",
    ),
    Setup(
        "gemini", FakeGemini, lambda url: {"api_key": API_KEY, "base_url": url}, endpoint="embed"
    ),
    Setup(
        "voyage",
        FakeVoyage,
        lambda url: {"api_key": API_KEY, "base_url": f"{url}/v1"},
        endpoint=None,
    ),
]
IMAGE_SETUPS = [
    Setup(
        "openai",
        FakeOpenAI,
        lambda url: {"api_key": API_KEY, "base_url": f"{url}/v1"},
        endpoint="images",
    ),
    Setup(
        "gemini", FakeGemini, lambda url: {"api_key": API_KEY, "base_url": url}, endpoint="generate"
    ),
]
SEARCH_SETUPS = [
    Setup("brave", FakeBrave, lambda url: {"api_key": API_KEY, "base_url": url}),
    Setup("searxng", FakeSearxng, lambda url: {"base_url": url}),
]


async def add_local_memory_providers(client: httpx.AsyncClient, fake: FakeOpenAI) -> dict[str, str]:
    """Through HTTP, as an administrator: the offline embedding model ("Local") and an
    OpenAI-compatible chat provider ("Chat") served by ``fake``. Returns their ids by name."""
    ids = {}
    for body in (
        {"type": "local-embeddings", "name": "Local", "config": {}},
        {"type": "openai-compatible", "name": "Chat",
         "config": {"base_url": f"{fake.base_url}/v1", "api_key": API_KEY}},
    ):  # fmt: skip
        added = await client.post("/api/providers", json=body)
        assert added.status_code == 201, added.text
        ids[str(body["name"])] = added.json()["provider"]["id"]
    return ids


async def add_openai_provider(client: httpx.AsyncClient, fake: FakeOpenAI) -> str:
    """Through HTTP, as an administrator: the OpenAI provider ("OpenAI") served by ``fake``.
    Returns its id."""
    added = await client.post(
        "/api/providers",
        json={
            "type": "openai",
            "name": "OpenAI",
            "config": {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"},
        },
    )
    assert added.status_code == 201, added.text
    provider_id: str = added.json()["provider"]["id"]
    return provider_id

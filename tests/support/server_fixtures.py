"""Shared fixtures for HTTP tests against a real server and a fake OpenAI server: import them
into a test module (``fake_llm, server = server_fixtures.fake_llm, server_fixtures.server``) to use
them under the names pytest looks for."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A fake OpenAI server on 127.0.0.1, for the test's run."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """The real server on the test's data directory, default settings, with Nicolas as its
    administrator and ``fake_llm`` as its OpenAI provider."""
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server

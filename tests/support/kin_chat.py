"""Talking to Kins in tests: a served platform with an administrator and the fake OpenAI
provider, Kins, messages, their session, and what to wait for on the live stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from tests.support.accounts import NICOLAS, PASSWORD, set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import SseEvent


@asynccontextmanager
async def serve_with_openai(
    data_dir: Path,
    fake: FakeOpenAI,
    *,
    first_start: bool = True,
    plugins: tuple[object, ...] = (),
    clock: Any = None,
    **settings: Any,
) -> AsyncIterator[RunningServer]:
    """A platform on ``data_dir`` served over HTTP, without provider retries, with extra
    ``plugins`` registered as ``test_plugin_<n>``. On the first start the administrator is
    set up and ``fake`` added as the OpenAI provider; later starts sign the administrator in."""
    platform = Platform(
        load_settings(data_dir=data_dir, llm_max_retries=0, **settings), clock=clock
    )
    for number, plugin in enumerate(plugins):
        platform.plugins.register(plugin, name=f"test_plugin_{number}")
    async with running_server(platform) as server:
        if first_start:
            await set_up_admin(server.client)
            await add_openai_provider(server.client, fake)
        else:
            login = await server.client.post(
                "/api/auth/login", json={"email": NICOLAS["email"], "password": PASSWORD}
            )
            assert login.status_code == 200, login.text
        yield server


async def make_kin(
    client: httpx.AsyncClient, name: str = "Chef", *, model: str = "gpt-4o", **fields: Any
) -> str:
    """Create a Kin (role "Helper", a brief character) and return its id."""
    body = {"name": name, "role": "Helper", "character": "Brief.", "model": model, **fields}
    response = await client.post("/api/kins", json=body)
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def tell(client: httpx.AsyncClient, kin_id: str, text: str) -> int:
    """Send the Kin a message as the signed-in user; return the queued message's id."""
    response = await client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert response.status_code == 202, response.text
    message_id: int = response.json()["message"]["id"]
    return message_id


async def session(client: httpx.AsyncClient, kin_id: str) -> list[dict[str, Any]]:
    """The last 200 messages of the Kin's session, oldest first."""
    response = await client.get(f"/api/kins/{kin_id}/messages", params={"limit": 200})
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


def tool_results(messages: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The stored results of the calls of tool ``name``."""
    return [m for m in messages if m["role"] == "tool" and m["sender_name"] == name]


def reply_to(message_id: int, *, final: bool = True) -> Callable[[SseEvent], bool]:
    """An assistant message of the turn started by ``message_id`` (with ``final``, one
    without tool calls: the answer that ends the turn)."""

    def matches(event: SseEvent) -> bool:
        message = event.data.get("message", {})
        return (
            event.type == "message"
            and message.get("role") == "assistant"
            and message.get("turn_of") == message_id
            and not (final and message.get("tool_calls"))
        )

    return matches


def turn_ended(message_id: int) -> Callable[[SseEvent], bool]:
    """The turn started by message ``message_id`` is over (done, failed or cancelled)."""
    return lambda e: (
        e.type == "message.status"
        and e.data.get("id") == message_id
        and e.data.get("status") in ("done", "failed", "cancelled")
    )


async def counted_writes(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str]]:
    """(``write`` or ``write_inline``, the function's name) of each write from now on, in
    order: one write transaction each (with usage written later, as tests set it, nothing
    else writes). The history indexer takes up the embedding model first (a write of its
    own, which its background loop would otherwise make whenever it next looks)."""
    await backend.indexer(platform).index_batch()
    db = platform.db
    written: list[tuple[str, str]] = []
    for way in ("write", "write_inline"):

        def counting(write: Any, way: str = way) -> Any:
            async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
                written.append((way, getattr(fn, "__name__", repr(fn))))
                return await write(fn, *args, **kwargs)

            return counted

        monkeypatch.setattr(db, way, counting(getattr(db, way)))
    return written

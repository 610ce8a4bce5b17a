"""A tool that runs until the test opens its gate: a tool call caught in progress."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server


class Gate:
    """``wait_for_oven``: sets ``entered`` when called, answers "hot" once ``opened`` is set."""

    name = "wait_for_oven"
    description = "Waits until the oven is hot."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}
    prompt_hint = ""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        self.entered.set()
        await self.opened.wait()
        return "hot"


class GatePlugin:
    """Registers one ``Gate`` (register it on the Platform before it starts)."""

    def __init__(self) -> None:
        self.gate = Gate()

    @hookimpl
    def register_tools(self, register: Callable[[Any], None]) -> None:
        register(self.gate)


@contextlib.asynccontextmanager
async def gated_server(
    data_dir: Path, fake: FakeOpenAI
) -> AsyncIterator[tuple[RunningServer, Gate]]:
    """A server whose Kins have the ``wait_for_oven`` gate tool, with the administrator
    signed in (``server.client``) and ``fake`` as its OpenAI provider."""
    plugin = GatePlugin()
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    platform.plugins.register(plugin, "gate")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake)
        yield server, plugin.gate

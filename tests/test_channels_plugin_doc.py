"""The channel plugin docs/channels.md shows, run as written: registered as a third party's
plugin, configured through the API, an unknown sender pairs and then talks to a Kin, whose
reply comes back through the plugin's ``send``."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.telegram_setup import CODE
from tests.support.waiting import eventually

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# kinbot_folder_channel/__init__.py"


def documented_plugin(directory: Path) -> ModuleType:
    """The module of docs/channels.md's example, imported from a file of its own."""
    text = (ROOT / "docs" / "channels.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    [source] = [block for block in blocks if block.startswith(MARKER)]
    path = directory / "kinbot_folder_channel.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("kinbot_folder_channel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(
    tmp_path: Path, data_dir: Path, fake_llm: FakeOpenAI
) -> AsyncIterator[RunningServer]:
    plugins = PluginManager()
    plugins.register(documented_plugin(tmp_path), "folder_channel")
    platform = Platform(load_settings(data_dir=data_dir), plugins=plugins)
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server
    sys.modules.pop("kinbot_folder_channel", None)


async def test_the_documented_channel_plugin_works(
    server: RunningServer, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    folder = tmp_path / "exchange"
    (folder / "in").mkdir(parents=True)
    kin = (await server.client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})).json()
    types = (await server.client.get("/api/channels/types")).json()["types"]
    assert "folder" in [t["name"] for t in types]
    created = await server.client.post(
        "/api/channels",
        json={"type": "folder", "label": "Drop box", "kin_ids": [kin["kin"]["id"]],
              "settings": {"folder": str(folder), "poll_seconds": 0.2}},
    )  # fmt: skip
    assert created.status_code == 201, created.text

    def drop(name: str, text: str) -> None:
        message = {"from": "ann", "name": "Ann", "text": text}
        (folder / "in" / name).write_text(json.dumps(message))

    async def replies() -> list[str] | None:
        out = folder / "out"
        found = [path.read_text() for path in sorted(out.glob("*.txt"))] if out.exists() else []
        return found or None

    drop("0001.json", "Hello")
    [pairing] = await eventually(replies)
    code = re.findall(CODE, pairing)[0]
    linked = await server.client.post("/api/me/channel-identities", json={"code": code})
    assert linked.status_code == 201, linked.text
    fake_llm.enqueue(Reply(text="Soup tonight."))
    drop("0002.json", "What's for dinner?")

    async def answered() -> list[str] | None:
        found = await replies() or []
        return found if "Soup tonight." in found else None

    await eventually(answered)
    messages = (await server.client.get(f"/api/kins/{kin['kin']['id']}/messages")).json()
    [question] = [m for m in messages["messages"] if m["role"] == "user"]
    assert (question["content"], question["sender_name"]) == ("What's for dinner?", "Nico")
    assert question["meta"]["origin"] == {"kind": "folder", "label": "Drop box"}

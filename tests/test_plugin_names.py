"""Every built-in plugin has a name and a sentence for people, in English and in French
(kinbot_web/frontend/src/i18n/plugin-names.ts): Settings → Plugins shows those, the entry
point's name only under "Advanced". A new built-in plugin without its words fails here. A
third-party plugin's own description (``KINBOT_DESCRIPTION``, else its distribution's summary)
is what the API gives for it."""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.plugins.manager import BUILTIN_DISTRIBUTION
from tests.support.accounts import set_up_admin
from tests.support.server import running_server

WORDS = Path(__file__).resolve().parents[1] / "kinbot_web/frontend/src/i18n/plugin-names.ts"


def translated(language: str) -> set[str]:
    """The plugin names given a label and a description in ``language``'s block."""
    text = WORDS.read_text(encoding="utf-8") if WORDS.is_file() else ""
    start = text.find(f"export const {language}")
    if start < 0:
        return set()
    end = text.find("export const", start + 1)
    block = text[start : end if end > 0 else None]
    entry = re.compile(r"^\s+(\w+): \{ label: \"[^\"]+\", description: \"[^\"]+\" \},$", re.M)
    return set(entry.findall(block))


def builtin_plugins() -> set[str]:
    """The entry points of the distribution the built-in plugins ship in."""
    return {
        entry_point.name
        for entry_point in importlib.metadata.entry_points(group="kinbot")
        if entry_point.dist is not None and entry_point.dist.name == BUILTIN_DISTRIBUTION
    }


def test_every_builtin_plugin_has_words_in_both_languages() -> None:
    builtin = builtin_plugins()
    assert {"sqlite_memory", "kin_directory", "brave_search", "telegram"} <= builtin
    for language in ("en", "fr"):
        missing = sorted(builtin - translated(language))
        assert not missing, (language, missing)
    assert translated("en") == translated("fr")
    assert translated("en") <= builtin  # no words for a plugin that is gone


@pytest.fixture
async def client(data_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    platform = Platform(load_settings(data_dir=data_dir))
    async with running_server(platform) as server:
        # A plugin registered directly (no distribution), describing itself in two languages.
        helper = SimpleNamespace(
            KINBOT_DESCRIPTION={"en": "Waters the plants.", "fr": "Arrose les plantes."}
        )
        platform.plugins.register(helper, "plant_care")
        await set_up_admin(server.client)
        yield server.client


async def test_the_api_gives_a_plugins_own_description(client: httpx.AsyncClient) -> None:
    plugins = {p["name"]: p for p in (await client.get("/api/plugins")).json()["plugins"]}
    # Built-in plugins are worded by the interface, by their name.
    assert plugins["sqlite_memory"]["builtin"] and plugins["sqlite_memory"]["description"] is None
    assert plugins["plant_care"]["description"] == {
        "en": "Waters the plants.",
        "fr": "Arrose les plantes.",
    }
    if "house_rules" in plugins:  # the example, when installed: its own words
        from kinbot_house_rules import KINBOT_DESCRIPTION

        assert plugins["house_rules"]["description"] == KINBOT_DESCRIPTION

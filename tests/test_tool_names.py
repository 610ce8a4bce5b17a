"""Every built-in tool has a name and a description for people, in English and in French
(kinbot_web/frontend/src/i18n/tool-names.ts): the settings show those, not the descriptions
written for the model. A new native tool without its words fails here."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform

WORDS = Path(__file__).resolve().parents[1] / "kinbot_web/frontend/src/i18n/tool-names.ts"


def translated(language: str) -> set[str]:
    """The tool names given a label and a description in ``language``'s block."""
    text = WORDS.read_text(encoding="utf-8")
    start = text.index(f"export const {language}")
    end = text.find("export const", start + 1)
    block = text[start : end if end > 0 else None]
    entry = re.compile(r"^\s+(\w+): \{ label: \"[^\"]+\", description: \"[^\"]+\" \},$", re.M)
    return set(entry.findall(block))


@pytest.fixture
async def platform(data_dir: Path) -> AsyncIterator[Platform]:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    yield platform
    await platform.stop()


async def test_every_native_tool_has_words_in_both_languages(platform: Platform) -> None:
    # web_search and generate_image are offered per Kin, while such a provider is configured.
    native = {tool.name for tool in platform.registries.tools} | {"web_search", "generate_image"}
    assert {"delete_file", "notify", "report_to_parent"} <= native
    for language in ("en", "fr"):
        assert native <= translated(language), (language, sorted(native - translated(language)))
    assert translated("en") == translated("fr")

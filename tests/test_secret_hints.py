"""The masked hint of a provider's API key (``kinbot_core.providers.redaction.secret_hints``):
enough of a long key's end to recognise it, a smaller share of a short key's, nothing of a
very short one; never more than a sixth of a secret."""

from __future__ import annotations

from typing import Any

from kinbot_core.providers import ConfigField
from kinbot_core.providers.redaction import HINT_MAX_SHARE, secret_hints


class _Type:
    """A provider type with one secret field and one that is not."""

    config_fields = (
        ConfigField("api_key", "API key", secret=True),
        ConfigField("base_url", "Base URL", required=False),
    )


def hint(key: str) -> str:
    hints = secret_hints(_Type(), {"api_key": key, "base_url": "http://127.0.0.1:9/v1"})  # type: ignore[arg-type]
    assert set(hints) == {"api_key"}
    return hints["api_key"]


def test_a_long_key_shows_its_last_four_characters() -> None:
    assert hint("sk-proj-" + "x" * 40 + "9f3a") == "…9f3a"
    assert hint("a" * 20 + "wxyz") == "…wxyz"  # 24 characters: 4 are a sixth


def test_a_short_key_shows_fewer_characters_and_a_very_short_one_none() -> None:
    assert hint("sk-another-key-9876") == "…876"  # 19 characters: 3
    assert hint("sk-local-12") == "…"  # 11 characters: none, the interface words it
    assert hint("abcdefghijkl") == "…kl"  # 12 characters: 2
    assert hint("abc") == "…"
    for length in range(1, 80):
        key = "k" * length
        shown = len(hint(key)) - 1
        assert shown <= length * HINT_MAX_SHARE, length
        assert shown <= 4


def test_no_hint_for_a_secret_left_empty() -> None:
    config: dict[str, Any] = {"api_key": ""}
    assert secret_hints(_Type(), config) == {}  # type: ignore[arg-type]

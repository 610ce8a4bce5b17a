"""What a provider's configuration must not show: its secrets in messages, logs and views,
and this machine's addresses in what members read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kinbot_core.providers.interfaces import ProviderType


def looks_secret(key: str) -> bool:
    """Whether a configuration field named ``key`` probably holds a secret."""
    return any(word in key.lower() for word in ("key", "token", "secret", "password"))


#: The largest share of a secret its hint shows, and the most characters it shows.
HINT_MAX_SHARE = 1 / 6
HINT_MAX_CHARS = 4


def secret_hint(value: str) -> str:
    """``value`` masked: "…" and its last characters, four of a long secret, fewer of a
    shorter one (never more than ``HINT_MAX_SHARE`` of it), none of one under 12 characters
    (the interface then says only that a key is saved)."""
    shown = min(HINT_MAX_CHARS, int(len(value) * HINT_MAX_SHARE))
    return "…" + value[-shown:] if shown >= 2 else "…"


def secret_hints(provider_type: ProviderType, config: Mapping[str, Any]) -> dict[str, str]:
    """A masked hint of each secret of ``config`` (``secret_hint``)."""
    hints = {}
    for config_field in provider_type.config_fields:
        value = config.get(config_field.name)
        if config_field.secret and isinstance(value, str) and value:
            hints[config_field.name] = secret_hint(value)
    return hints


def redact(message: str, config: Mapping[str, Any]) -> str:
    """``message`` without the secrets of ``config`` (and those its base URL holds)."""
    for key, value in config.items():
        if not isinstance(value, str):
            continue
        if len(value) >= 6 and looks_secret(key):
            message = message.replace(value, "[redacted]")
        elif key == "base_url":
            for secret in url_secrets(value):
                message = message.replace(secret, "[redacted]")
    return message


def without_address(message: str, config: Mapping[str, Any]) -> str:
    """``message`` without the configured base URL, its origin or its host and port."""
    url = config.get("base_url")
    if not isinstance(url, str) or not url:
        return message
    parsed = urlsplit(url)
    host = parsed.hostname or ""
    netloc = f"{host}:{parsed.port}" if parsed.port else host
    for address in (url.rstrip("/"), f"{parsed.scheme}://{parsed.netloc}", parsed.netloc, netloc):
        if len(address) >= 4:
            message = message.replace(address, "[provider address]")
    return message


def url_secrets(url: str) -> list[str]:
    """The credentials and query of a URL, which may hold a key."""
    parsed = urlsplit(url)
    parts = [parsed.password or "", parsed.username or "", parsed.query]
    return [part for part in parts if len(part) >= 4]


def public_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A configuration as members may see it: base URLs without credentials or query."""
    shown = dict(config)
    if isinstance(shown.get("base_url"), str):
        parsed = urlsplit(shown["base_url"])
        host = parsed.hostname or ""
        netloc = f"{host}:{parsed.port}" if parsed.port else host
        shown["base_url"] = urlunsplit((parsed.scheme, netloc, parsed.path, "", ""))
    return shown

"""What a secret's key, value and description may be: their limits, and the checks that
raise ``VaultError`` saying so."""

from __future__ import annotations

import re

from kinbot_core.vault.masking import MIN_VALUE_LENGTH
from kinbot_core.vault.views import VaultError

#: Upper snake case: ``GITHUB_TOKEN``, ``NOTION_API_KEY``.
KEY_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
MAX_KEY_LENGTH = 64
MAX_VALUE_LENGTH = 16_384
MAX_DESCRIPTION_LENGTH = 500


def valid_key(key: str) -> str:
    """``key`` if it is a well-formed secret name, else ``VaultError`` saying what one is."""
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not KEY_PATTERN.match(key):
        raise VaultError(
            f"A secret's key is 1 to {MAX_KEY_LENGTH} upper-case letters, digits and single "
            "underscores, starting with a letter (e.g. GITHUB_TOKEN)."
        )
    return key


def valid_value(value: str) -> str:
    """``value`` if a secret can hold it, else ``VaultError`` (which never quotes it)."""
    if not isinstance(value, str) or not (MIN_VALUE_LENGTH <= len(value) <= MAX_VALUE_LENGTH):
        raise VaultError(
            f"A secret's value is {MIN_VALUE_LENGTH} to {MAX_VALUE_LENGTH} characters (shorter "
            "values could not be recognised, and masked, in what Kins write)."
        )
    if value != value.strip():
        raise VaultError("A secret's value cannot start or end with spaces or line breaks.")
    return value


def valid_description(description: str) -> str:
    """``description`` without surrounding spaces, else ``VaultError`` if it is too long."""
    description = description.strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise VaultError(f"A description is at most {MAX_DESCRIPTION_LENGTH} characters.")
    return description

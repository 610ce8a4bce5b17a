"""Gemini: llm, embedding and image (Imagen) through the official ``google-genai`` SDK.

The plugin registers the provider type; the SDK and the provider itself (``gemini_client``)
are imported when a provider is created: importing google-genai takes a second of CPU, which
every ``kinbot`` command would pay even where no Gemini key is set up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import Capability, ConfigField
from kinbot_plugins.providers._common import API_KEY, base_url_field, validate_fields

if TYPE_CHECKING:
    from kinbot_plugins.providers.gemini_client import GeminiProvider

LABEL = "Gemini"
DEFAULT_EMBEDDING_MODEL = "gemini-embedding-001"
DEFAULT_IMAGE_MODEL = "gemini-2.5-flash-image"


class GeminiProviderType:
    """Gemini (an API key from Google AI Studio)."""

    name = "gemini"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 30
    default_name = "Gemini"
    label = LABEL
    capabilities: tuple[Capability, ...] = ("llm", "embedding", "image")
    config_fields: tuple[ConfigField, ...] = (
        API_KEY,
        base_url_field(None),
        ConfigField(
            "embedding_model", "Embedding model", required=False, default=DEFAULT_EMBEDDING_MODEL
        ),
        ConfigField("image_model", "Image model", required=False, default=DEFAULT_IMAGE_MODEL),
    )

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, LABEL)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> GeminiProvider:
        from kinbot_plugins.providers import gemini_client  # see the module's docstring

        return gemini_client.create(
            config,
            timeout=timeout,
            embedding_model=config.get("embedding_model") or DEFAULT_EMBEDDING_MODEL,
            image_model=config.get("image_model") or DEFAULT_IMAGE_MODEL,
        )


gemini_type = GeminiProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(gemini_type)

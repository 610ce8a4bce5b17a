"""OpenAI-compatible servers (Ollama, LM Studio, vLLM, OpenRouter…) through the ``openai`` SDK.

A base URL, an optional API key; llm and embedding are detected from the models the server
lists (an embedding model is one whose name says "embed", or the one configured).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.providers import Capability, ConfigField, ModelInfo
from kinbot_plugins.providers._common import (
    OPTIONAL_API_KEY,
    base_url_field,
    public_url,
    validate_fields,
)
from kinbot_plugins.providers.openai_provider import OpenAIProvider, make_client


class CompatibleProvider(OpenAIProvider):
    """An OpenAI-compatible endpoint: capabilities follow what it serves."""

    def __init__(self, *args: Any, embedding_configured: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._embedding_configured = embedding_configured

    def detected_capabilities(self, models: list[ModelInfo]) -> tuple[Capability, ...]:
        offered: list[Capability] = []
        if any(model.capability == "llm" for model in models):
            offered.append("llm")
        if self._embedding_configured or any(m.capability == "embedding" for m in models):
            offered.append("embedding")
        return tuple(offered)


class OpenAICompatibleProviderType:
    """Any server speaking the OpenAI API."""

    name = "openai-compatible"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 40
    default_name = "Local models"
    label = "OpenAI-compatible (Ollama, LM Studio, vLLM, OpenRouter…)"
    capabilities: tuple[Capability, ...] = ("llm", "embedding")
    config_fields: tuple[ConfigField, ...] = (
        base_url_field("http://127.0.0.1:11434/v1", required=True),
        OPTIONAL_API_KEY,
        ConfigField(
            "embedding_model",
            "Embedding model",
            required=False,
            help="Leave empty to use the first model whose name contains 'embed'.",
        ),
    )

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, "OpenAI-compatible server")

    def create(self, config: Mapping[str, Any], *, timeout: float) -> CompatibleProvider:
        return CompatibleProvider(
            make_client(config, timeout, None),
            f"The server at {public_url(config['base_url'])}",
            capabilities=self.capabilities,
            embedding_model=config.get("embedding_model"),
            image_model=None,
            max_tokens_parameter="max_tokens",
            embedding_configured=bool(config.get("embedding_model")),
            # Models without native tool support write their calls in the text, which
            # llama.cpp, Ollama and LM Studio pass through.
            tool_calls_in_text=True,
        )


openai_compatible_type = OpenAICompatibleProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(openai_compatible_type)

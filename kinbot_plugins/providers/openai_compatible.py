"""OpenAI-compatible servers (Ollama, LM Studio, vLLM, OpenRouter…) through the ``openai`` SDK.

A base URL, an optional API key; llm and embedding are detected from the models the server
lists (an embedding model is one whose name says "embed", or the one configured). A model's
context window and whether it can call tools are asked of the server in its own API
(``local_servers``), unless the configuration gives the window (``context_window``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import (
    Capability,
    ChatEvent,
    ChatRequest,
    ConfigField,
    ContextWindow,
    ModelInfo,
    ProviderConfigError,
)
from kinbot_core.providers.context_windows import CONFIG_FIELD, MIN_TOKENS, parse_tokens
from kinbot_plugins.providers._common import (
    OPTIONAL_API_KEY,
    base_url_field,
    public_url,
    validate_fields,
)
from kinbot_plugins.providers.openai_provider import OpenAIChat, OpenAIProvider, make_client

if TYPE_CHECKING:
    from kinbot_plugins.providers.local_servers import ServerMetadata

CONTEXT_WINDOW_FIELD = ConfigField(
    CONFIG_FIELD,
    "Context window (tokens)",
    required=False,
    help="Leave empty to use what the server says (llama.cpp, Ollama, vLLM, LM Studio).",
)


def _server_metadata(base_url: str, api_key: str | None, label: str) -> ServerMetadata:
    """What the server says of its models (``local_servers`` brings httpx: imported here, when
    a provider is made, not with the plugin)."""
    from kinbot_plugins.providers.local_servers import ServerMetadata

    return ServerMetadata(base_url, api_key, label)


class CompatibleChat:
    """Chat with a compatible server: the OpenAI chat, and the server's own word on a
    model's window and tool support (``ServerMetadata``)."""

    def __init__(self, chat: OpenAIChat, metadata: ServerMetadata) -> None:
        self._chat = chat
        self._metadata = metadata

    def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        return self._chat.chat(request)

    def supports_tools(self, model: str) -> bool:
        return self._metadata.supports_tools(model)

    def supports_vision(self, model: str) -> bool:
        return self._chat.supports_vision(model)

    async def list_models(self) -> list[ModelInfo]:
        return await self._chat.list_models()

    async def context_window(self, model: str) -> ContextWindow | None:
        """What the server says of ``model``'s window (``ReportsContextWindow``)."""
        return await self._metadata.context_window(model)

    async def learn_capabilities(self, model: str) -> None:
        """Ask the server what ``model`` can do (``LearnsCapabilities``)."""
        await self._metadata.learn_capabilities(model)

    async def count_tokens(self, model: str, text: str) -> int | None:
        """What the server's tokenizer makes of ``text`` (``CountsTokens``)."""
        return await self._metadata.count_tokens(model, text)


class CompatibleProvider(OpenAIProvider):
    """An OpenAI-compatible endpoint: capabilities follow what it serves."""

    def __init__(
        self, *args: Any, embedding_configured: bool, metadata: ServerMetadata, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._embedding_configured = embedding_configured
        self._metadata = metadata
        if self.llm is not None:
            # Any ``LLMCapability`` will do; the base class types the attribute as its chat.
            self.llm = CompatibleChat(self.llm, metadata)  # type: ignore[assignment]

    async def all_models(self) -> list[ModelInfo]:
        """Every model the server lists, with the window its list gives (vLLM, OpenRouter)."""
        models = await super().all_models()
        windows = await self._metadata.listed_windows()
        return [
            replace(model, context_window=windows.get(model.id))
            if model.capability == "llm"
            else model
            for model in models
        ]

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
        CONTEXT_WINDOW_FIELD,
    )

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        normalised = validate_fields(self.config_fields, config, "OpenAI-compatible server")
        if CONFIG_FIELD in normalised:
            tokens = parse_tokens(normalised[CONFIG_FIELD])
            if tokens is None:
                raise ProviderConfigError(
                    f"OpenAI-compatible server: the context window is a number of tokens, "
                    f"at least {MIN_TOKENS}.",
                    code="provider_field_not_number",
                    params={
                        "field": CONFIG_FIELD,
                        "label": CONTEXT_WINDOW_FIELD.label,
                        "min": MIN_TOKENS,
                    },
                )
            normalised[CONFIG_FIELD] = str(tokens)
        return normalised

    def create(self, config: Mapping[str, Any], *, timeout: float) -> CompatibleProvider:
        label = f"The server at {public_url(config['base_url'])}"
        return CompatibleProvider(
            make_client(config, timeout, None),
            label,
            capabilities=self.capabilities,
            embedding_model=config.get("embedding_model"),
            image_model=None,
            max_tokens_parameter="max_tokens",
            embedding_configured=bool(config.get("embedding_model")),
            metadata=_server_metadata(config["base_url"], config.get("api_key"), label),
            # Models without native tool support write their calls in the text, which
            # llama.cpp, Ollama and LM Studio pass through.
            tool_calls_in_text=True,
        )


openai_compatible_type = OpenAICompatibleProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(openai_compatible_type)

"""Anthropic: llm through the Messages API and the official ``anthropic`` SDK.

The SDK is imported when a provider is created, not with the plugin: importing it takes
seconds of CPU, which every ``kinbot`` command would pay even where no Anthropic account is set up.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kinbot_core import hookimpl
from kinbot_core.providers import (
    Capability,
    ChatEvent,
    ChatMessage,
    ChatRequest,
    ConfigField,
    ConnectionReport,
    ContextWindow,
    Finish,
    MalformedResponse,
    ModelInfo,
    ProviderError,
    TextDelta,
    ToolCallEvent,
    Usage,
)
from kinbot_core.providers.types import FinishReason
from kinbot_plugins.providers._common import (
    API_KEY,
    base_url_field,
    parse_arguments,
    quiet_call_headers,
    quiet_client_headers,
    translate_stainless,
    validate_fields,
)

if TYPE_CHECKING:
    import anthropic

LABEL = "Anthropic"
_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def _sdk() -> ModuleType:
    """The ``anthropic`` module, imported on first use (see the module's docstring)."""
    import anthropic

    return anthropic


def anthropic_messages(messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    """Messages API turns: content blocks, tool results as user turns, roles alternating
    (consecutive messages of one role are merged, as the API requires)."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
                "is_error": message.is_error,
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for image in message.images:
        blocks.append(
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": image.mime_type,
                    "data": base64.b64encode(image.data).decode(),
                },
            }
        )
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return blocks


class AnthropicChat:
    """Streamed Messages API calls."""

    def __init__(self, client: anthropic.AsyncAnthropic) -> None:
        self._client = client

    def supports_tools(self, model: str) -> bool:
        return True

    def supports_vision(self, model: str) -> bool:
        return model.startswith("claude")

    async def context_window(self, model: str) -> ContextWindow | None:
        """The model's ``max_input_tokens`` in Anthropic's Models API, when it gives one."""
        try:
            info = await self._client.models.retrieve(model)
        except Exception as exc:
            raise translate_stainless(exc, _sdk(), LABEL) from exc
        tokens = info.max_input_tokens
        return ContextWindow(tokens, "provider") if tokens else None

    async def list_models(self) -> list[ModelInfo]:
        try:
            return [
                ModelInfo(
                    id=model.id,
                    capability="llm",
                    label=model.display_name,
                    supports_tools=True,
                    supports_vision=True,
                    context_window=model.max_input_tokens,
                )
                async for model in self._client.models.list(limit=100)
            ]
        except Exception as exc:
            raise translate_stainless(exc, _sdk(), LABEL) from exc

    async def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        arguments: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": anthropic_messages(request.messages),
            "stream": True,
            "extra_headers": quiet_call_headers(_sdk()),
        }
        if request.system:
            arguments["system"] = request.system
        if request.tools:
            arguments["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
        if request.temperature is not None:
            arguments["temperature"] = request.temperature
        try:
            stream = await self._client.messages.create(**arguments)
        except Exception as exc:
            raise translate_stainless(exc, _sdk(), LABEL) from exc
        tools: dict[int, list[str]] = {}
        input_tokens = output_tokens = 0
        stop_reason: str | None = None
        try:
            async for event in stream:
                kind = event.type
                if kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta":
                        yield TextDelta(delta.text)
                    elif delta.type == "input_json_delta" and event.index in tools:
                        tools[event.index][2] += delta.partial_json
                elif kind == "content_block_start":
                    block = event.content_block
                    if block.type == "tool_use":
                        tools[event.index] = [block.id, block.name, ""]
                elif kind == "content_block_stop" and event.index in tools:
                    call_id, name, raw = tools.pop(event.index)
                    yield ToolCallEvent(call_id, name, parse_arguments(raw, LABEL))
                elif kind == "message_start":
                    input_tokens = event.message.usage.input_tokens
                elif kind == "message_delta":
                    stop_reason = event.delta.stop_reason or stop_reason
                    output_tokens = event.usage.output_tokens
        except ProviderError:
            raise
        except Exception as exc:
            raise translate_stainless(exc, _sdk(), LABEL) from exc
        finally:
            await stream.close()
        if stop_reason is None:
            raise MalformedResponse(f"{LABEL} ended the answer without finishing it.")
        yield Usage(input_tokens, output_tokens)
        yield Finish(_FINISH.get(stop_reason, "stop"))


class AnthropicProvider:
    """A configured Anthropic account."""

    def __init__(self, client: anthropic.AsyncAnthropic) -> None:
        self._client = client
        self.llm = AnthropicChat(client)
        self.embedding = None
        self.image = None
        self.search = None

    async def test_connection(self) -> ConnectionReport:
        models = await self.llm.list_models()
        return ConnectionReport(
            ok=True,
            capabilities=("llm",),
            message=f"Connected to {LABEL}: {len(models)} models.",
            models=tuple(models),
            code="connected_models",
            params={"provider": LABEL, "count": len(models)},
        )

    async def aclose(self) -> None:
        await self._client.close()


class AnthropicProviderType:
    """Anthropic (an API key from the Console)."""

    name = "anthropic"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 20
    default_name = "Anthropic"
    label = LABEL
    capabilities: tuple[Capability, ...] = ("llm",)
    config_fields: tuple[ConfigField, ...] = (API_KEY, base_url_field(None))

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return validate_fields(self.config_fields, config, LABEL)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> AnthropicProvider:
        anthropic = _sdk()
        client = anthropic.AsyncAnthropic(
            api_key=config["api_key"],
            base_url=config.get("base_url"),
            timeout=timeout,
            max_retries=0,
            http_client=anthropic.DefaultAioHttpClient(),  # see openai_provider.make_client
            default_headers=quiet_client_headers(anthropic),
        )
        return AnthropicProvider(client)


anthropic_type = AnthropicProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(anthropic_type)

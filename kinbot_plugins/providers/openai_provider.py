"""OpenAI: llm (Chat Completions), embedding (``openai_embeddings``) and image
(``openai_images``), through the official ``openai`` SDK, imported when a client is made
(``openai_sdk``). Also the base of the OpenAI-compatible provider (``openai_compatible``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from kinbot_core import hookimpl
from kinbot_core.providers import (
    Capability,
    ChatEvent,
    ChatRequest,
    ConfigField,
    ConnectionReport,
    ContextOverflowError,
    Finish,
    MalformedResponse,
    ModelInfo,
    ProviderError,
    TextDelta,
    Usage,
)
from kinbot_core.providers.types import FinishReason
from kinbot_plugins.providers._common import (
    API_KEY,
    base_url_field,
    missing_v1,
    quiet_call_headers,
    quiet_client_headers,
    translate_stainless,
    validate_fields,
)
from kinbot_plugins.providers.chat_stream import answer_chunks
from kinbot_plugins.providers.chat_wire import wire_messages, wire_tools
from kinbot_plugins.providers.openai_embeddings import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDING_DIMENSIONS,
    OpenAIEmbeddings,
)
from kinbot_plugins.providers.openai_images import DEFAULT_IMAGE_MODEL, OpenAIImages
from kinbot_plugins.providers.openai_sdk import httpx2 as _httpx2
from kinbot_plugins.providers.openai_sdk import sdk as _sdk
from kinbot_plugins.providers.streamed_tool_calls import StreamedToolCalls, TextToolCalls

if TYPE_CHECKING:
    import openai

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
_NOT_CHAT = ("embedding", "embed", "whisper", "tts", "dall-e", "gpt-image", "moderation", "audio")


def classify_model(model_id: str) -> Capability | None:
    """What an OpenAI(-compatible) model id is for, judging by its name."""
    lowered = model_id.lower()
    if "embed" in lowered:
        return "embedding"
    if lowered.startswith(("dall-e", "gpt-image")):
        return "image"
    if any(word in lowered for word in _NOT_CHAT):
        return None
    return "llm"


class OpenAIChat:
    """Streamed Chat Completions. With ``tool_calls_in_text``, calls of the offered tools
    that the model wrote in its text are tool calls too (``TextToolCalls``)."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        label: str,
        *,
        max_tokens_parameter: str = "max_completion_tokens",
        list_models: Callable[[], Any],
        tool_calls_in_text: bool = False,
    ) -> None:
        self._client = client
        self._label = label
        self._max_tokens_parameter = max_tokens_parameter
        self._list_models = list_models
        self._tool_calls_in_text = tool_calls_in_text

    def supports_tools(self, model: str) -> bool:
        return True

    def supports_vision(self, model: str) -> bool:
        return model.startswith(("gpt-4o", "gpt-4.1", "gpt-5", "o")) or "vision" in model

    async def list_models(self) -> list[ModelInfo]:
        models: list[ModelInfo] = await self._list_models()
        return [model for model in models if model.capability == "llm"]

    async def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        arguments: dict[str, Any] = {
            "model": request.model,
            "messages": wire_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
            self._max_tokens_parameter: request.max_tokens,
        }
        if request.tools:
            arguments["tools"] = wire_tools(request.tools)
        if request.temperature is not None:
            arguments["temperature"] = request.temperature
        sdk = _sdk()
        try:
            # The SDK's own HTTP layer (auth, errors) without the recursive validation
            # ``chat.completions.create`` runs on its parameters: the body is already in wire
            # format, and that validation costs ~15 ms for a 100-message history, more than
            # everything else the platform does in a turn. The body goes as bytes orjson
            # wrote: the SDK's ``json.dumps`` of a long history and some forty tool schemas
            # was the largest single cost left on the event loop in a turn. The answer comes
            # back as the SDK's HTTP response, its events read by ``chat_stream`` and each chunk
            # by orjson: the SDK's stream reader cost a quarter of the call's CPU.
            response = await self._client.post(
                "/chat/completions",
                content=orjson.dumps(arguments),
                options={"security": {"bearer_auth": True}, "headers": quiet_call_headers(sdk)},
                cast_to=_httpx2().Response,
                stream=True,
            )
        except Exception as exc:
            raise translate_stainless(exc, sdk, self._label) from exc
        calls = StreamedToolCalls(self._label)
        written = (
            TextToolCalls(frozenset(tool.name for tool in request.tools))
            if self._tool_calls_in_text and request.tools
            else None
        )
        finish: str | None = None
        said = False
        try:
            async with contextlib.aclosing(answer_chunks(response, sdk, self._label)) as chunks:
                async for chunk in chunks:
                    calls.completion_id = calls.completion_id or str(chunk.get("id") or "")
                    if isinstance(usage := chunk.get("usage"), dict):
                        yield Usage(
                            _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
                        )
                    for choice in _objects(chunk.get("choices")):
                        delta = choice.get("delta")
                        delta = delta if isinstance(delta, dict) else {}
                        text = delta.get("content")
                        text = text if isinstance(text, str) else ""
                        if written is not None and text:
                            text = written.feed(text)
                        if text:
                            said = True
                            yield TextDelta(text)
                        for call in _objects(delta.get("tool_calls")):
                            calls.add(call)
                        if reason := choice.get("finish_reason"):
                            finish = str(reason)
        except ProviderError:
            raise
        except Exception as exc:
            raise translate_stainless(exc, sdk, self._label) from exc
        finally:
            await response.aclose()
        if written is not None:
            if rest := written.finish():
                said = True
                yield TextDelta(rest)
            for name, arguments in written.calls:
                calls.add_complete(name, arguments)
            if written.calls and finish == "stop":
                finish = "tool_calls"
        called = False
        for event in calls.events():
            called = True
            yield event
        if not said and not called and finish in (None, "length"):
            # Nothing at all, cut short or stopped for length: the prompt filled the window.
            raise ContextOverflowError(
                f"{self._label} ended the answer before its first word: the prompt does not "
                "leave the model room to answer in its context window."
            )
        if finish is None:
            raise MalformedResponse(f"{self._label} ended the answer without finishing it.")
        yield Finish(_FINISH.get(finish, "stop"))


def _objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a list in a streamed chunk (``choices``, ``tool_calls``)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class OpenAIProvider:
    """A configured OpenAI (or OpenAI-compatible) endpoint."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        label: str,
        *,
        capabilities: tuple[Capability, ...],
        embedding_model: str | None,
        image_model: str | None,
        max_tokens_parameter: str,
        tool_calls_in_text: bool = False,
    ) -> None:
        self._client = client
        self._label = label
        self._models: list[ModelInfo] | None = None
        self.llm: OpenAIChat | None = None
        self.embedding: OpenAIEmbeddings | None = None
        self.image: OpenAIImages | None = None
        self.search = None
        if "llm" in capabilities:
            self.llm = OpenAIChat(
                client,
                label,
                max_tokens_parameter=max_tokens_parameter,
                list_models=self.all_models,
                tool_calls_in_text=tool_calls_in_text,
            )
        if "embedding" in capabilities:
            self.embedding = OpenAIEmbeddings(
                client, label, model=embedding_model, list_models=self.all_models
            )
        if "image" in capabilities and image_model:
            self.image = OpenAIImages(client, label, model=image_model)

    async def all_models(self) -> list[ModelInfo]:
        """Every model the endpoint lists, classified by name."""
        try:
            page = await self._client.models.list()
            ids = sorted([model.id async for model in page])
        except Exception as exc:
            raise translate_stainless(exc, _sdk(), self._label) from exc
        models = []
        for model_id in ids:
            capability = classify_model(model_id)
            if capability is not None:
                models.append(
                    ModelInfo(
                        id=model_id,
                        capability=capability,
                        dimension=EMBEDDING_DIMENSIONS.get(model_id),
                    )
                )
        return models

    async def test_connection(self) -> ConnectionReport:
        try:
            models = await self.all_models()
        except ProviderError as error:
            raise missing_v1(error, str(self._client.base_url)) from error
        capabilities = self.detected_capabilities(models)
        return ConnectionReport(
            ok=True,
            capabilities=capabilities,
            message=f"Connected to {self._label}: {len(models)} models.",
            models=tuple(models),
            code="connected_models",
            params={"provider": self._label, "count": len(models)},
        )

    def detected_capabilities(self, models: list[ModelInfo]) -> tuple[Capability, ...]:
        """The capabilities this configuration offers (OpenAI itself: all it was built with)."""
        offered: list[Capability] = []
        if self.llm is not None:
            offered.append("llm")
        if self.embedding is not None:
            offered.append("embedding")
        if self.image is not None:
            offered.append("image")
        return tuple(offered)

    async def aclose(self) -> None:
        await self._client.close()


def make_client(
    config: Mapping[str, Any], timeout: float, default_base_url: str | None
) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client whose own retries are off (the platform retries), on the
    SDK's aiohttp transport: half the CPU of its default httpx one per streamed call, which
    is what bounds how many Kins can talk at once."""
    sdk = _sdk()
    client: openai.AsyncOpenAI = sdk.AsyncOpenAI(
        api_key=config.get("api_key") or "not-needed",
        base_url=config.get("base_url") or default_base_url,
        timeout=timeout,
        max_retries=0,
        http_client=sdk.DefaultAioHttpClient(),
        default_headers=quiet_client_headers(sdk),
    )
    return client


class OpenAIProviderType:
    """OpenAI itself: one API key gives llm, embedding and image."""

    name = "openai"
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 10
    default_name = "OpenAI"
    label = "OpenAI"
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
        return validate_fields(self.config_fields, config, self.label)

    def create(self, config: Mapping[str, Any], *, timeout: float) -> OpenAIProvider:
        return OpenAIProvider(
            make_client(config, timeout, None),
            self.label,
            capabilities=self.capabilities,
            embedding_model=config.get("embedding_model") or DEFAULT_EMBEDDING_MODEL,
            image_model=config.get("image_model") or DEFAULT_IMAGE_MODEL,
            max_tokens_parameter="max_completion_tokens",
        )


openai_type = OpenAIProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(openai_type)

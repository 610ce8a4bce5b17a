"""Gemini's provider through the official ``google-genai`` SDK: llm, embedding and image
(Imagen). The plugin (``gemini_provider``) imports this module when it creates a provider."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import httpx
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from kinbot_core.providers import (
    Capability,
    ChatEvent,
    ChatMessage,
    ChatRequest,
    ConnectionReport,
    ContextWindow,
    Finish,
    GeneratedImage,
    MalformedResponse,
    ModelInfo,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    TextDelta,
    ToolCallEvent,
    Usage,
    Vector,
)
from kinbot_core.providers.types import FinishReason
from kinbot_core.usage import report_usage
from kinbot_plugins.providers._common import from_status
from kinbot_plugins.providers._server_errors import recognised
from kinbot_plugins.providers.gemini_provider import LABEL

_FINISH: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "BLOCKLIST": "content_filter",
}


#: Prefix of the call ids KinBot makes up when Gemini gives none (never sent back to it).
_OUR_ID = "kinbot_call_"


def _api_id(call_id: str | None) -> str | None:
    """A call id to send back to Gemini: only the ones it gave."""
    return None if not call_id or call_id.startswith(_OUR_ID) else call_id


def translate(exc: BaseException) -> ProviderError:
    """A typed error for anything google-genai or its HTTP client raises."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, genai_errors.APIError):
        headers = getattr(getattr(exc, "response", None), "headers", None)
        message = str(exc.message or "")[:300]
        status = int(exc.code or 500)
        if status == 400 and ("API_KEY_INVALID" in str(exc.details) or "API key" in message):
            status = 401  # Gemini answers a bad key with 400 INVALID_ARGUMENT
        return recognised(status, message, None, LABEL) or from_status(
            status, message, LABEL, headers
        )
    if isinstance(exc, TimeoutError | asyncio.TimeoutError | httpx.TimeoutException):
        return ProviderTimeout(f"{LABEL} did not answer in time.")
    if isinstance(exc, httpx.TransportError | ConnectionError | OSError):
        return ProviderUnavailable(f"{LABEL} cannot be reached.")
    if type(exc).__module__.startswith("aiohttp"):
        if "Timeout" in type(exc).__name__:
            return ProviderTimeout(f"{LABEL} did not answer in time.")
        return ProviderUnavailable(f"{LABEL} cannot be reached.")
    return MalformedResponse(f"{LABEL} sent an answer KinBot could not read.")


def gemini_contents(messages: tuple[ChatMessage, ...]) -> list[types.Content]:
    """Gemini turns ("user" / "model"); a tool result names its function, found by call id."""
    names = {call.id: call.name for m in messages for call in m.tool_calls}
    contents: list[types.Content] = []
    for message in messages:
        role = "model" if message.role == "assistant" else "user"
        parts: list[types.Part] = []
        if message.role == "tool":
            parts.append(
                types.Part(
                    function_response=types.FunctionResponse(
                        id=_api_id(message.tool_call_id),
                        name=names.get(message.tool_call_id or "", "tool"),
                        response={"error" if message.is_error else "result": message.content},
                    )
                )
            )
        else:
            if message.content:
                parts.append(types.Part(text=message.content))
            for image in message.images:
                parts.append(types.Part.from_bytes(data=image.data, mime_type=image.mime_type))
            for call in message.tool_calls:
                signature = call.extra.get("thought_signature")
                parts.append(
                    types.Part(
                        function_call=types.FunctionCall(
                            id=_api_id(call.id), name=call.name, args=call.arguments
                        ),
                        thought_signature=base64.b64decode(signature) if signature else None,
                    )
                )
        if not parts:
            continue
        if contents and contents[-1].role == role and contents[-1].parts is not None:
            contents[-1].parts.extend(parts)
        else:
            contents.append(types.Content(role=role, parts=parts))
    return contents


class GeminiChat:
    """Streamed generateContent."""

    def __init__(self, client: genai.Client, list_models: Callable[[], Any]) -> None:
        self._client = client
        self._list_models = list_models

    def supports_tools(self, model: str) -> bool:
        return True

    def supports_vision(self, model: str) -> bool:
        return model.startswith("gemini")

    async def context_window(self, model: str) -> ContextWindow | None:
        """The model's ``inputTokenLimit`` in the Gemini API's model metadata."""
        try:
            info = await self._client.aio.models.get(model=model)
        except Exception as exc:
            raise translate(exc) from exc
        tokens = info.input_token_limit
        return ContextWindow(tokens, "provider") if tokens else None

    async def list_models(self) -> list[ModelInfo]:
        models: list[ModelInfo] = await self._list_models()
        return [model for model in models if model.capability == "llm"]

    async def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        config = types.GenerateContentConfig(
            system_instruction=request.system or None,
            max_output_tokens=request.max_tokens,
            temperature=request.temperature,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=t.name,
                            description=t.description,
                            parameters_json_schema=t.parameters,
                        )
                        for t in request.tools
                    ]
                )
            ]
            if request.tools
            else None,
        )
        finish: str | None = None
        called = False
        usage: types.GenerateContentResponseUsageMetadata | None = None
        try:
            stream = await self._client.aio.models.generate_content_stream(
                model=request.model, contents=gemini_contents(request.messages), config=config
            )
            async for chunk in stream:
                if chunk.usage_metadata is not None:
                    usage = chunk.usage_metadata
                for candidate in chunk.candidates or ():
                    for part in (candidate.content.parts if candidate.content else None) or ():
                        if part.text and not part.thought:
                            yield TextDelta(part.text)
                        if part.function_call is not None and part.function_call.name:
                            called = True
                            extra = {}
                            if part.thought_signature:
                                signature = base64.b64encode(part.thought_signature).decode()
                                extra["thought_signature"] = signature
                            yield ToolCallEvent(
                                part.function_call.id or f"{_OUR_ID}{uuid.uuid4().hex[:12]}",
                                part.function_call.name,
                                dict(part.function_call.args or {}),
                                extra=extra,
                            )
                    if candidate.finish_reason is not None:
                        finish = str(
                            getattr(candidate.finish_reason, "value", candidate.finish_reason)
                        )
        except ProviderError:
            raise
        except Exception as exc:
            raise translate(exc) from exc
        if finish is None:
            raise MalformedResponse(f"{LABEL} ended the answer without finishing it.")
        if usage is not None:
            yield Usage(usage.prompt_token_count or 0, usage.candidates_token_count or 0)
        yield Finish("tool_calls" if called else _FINISH.get(finish, "stop"))


class GeminiEmbeddings:
    """embedContent."""

    def __init__(self, client: genai.Client, model: str, list_models: Callable[[], Any]) -> None:
        self._client = client
        self._model = model
        self._list_models = list_models

    def default_model(self) -> str:
        return self._model

    def dimension(self, model: str | None = None) -> int | None:
        return {"gemini-embedding-001": 3072, "text-embedding-004": 768}.get(model or self._model)

    async def list_models(self) -> list[ModelInfo]:
        models: list[ModelInfo] = await self._list_models()
        return [model for model in models if model.capability == "embedding"]

    async def embed(self, texts: list[str], *, model: str | None = None) -> Sequence[Vector]:
        if not texts:
            return []
        try:
            result = await self._client.aio.models.embed_content(
                model=model or self._model,
                contents=list(texts),  # type: ignore[arg-type]
            )
        except Exception as exc:
            raise translate(exc) from exc
        report_usage(model=model or self._model)  # the Gemini API reports no token count here
        vectors = [list(e.values or ()) for e in result.embeddings or ()]
        if len(vectors) != len(texts) or any(not v for v in vectors):
            raise MalformedResponse(
                f"{LABEL} returned {len(vectors)} vectors for {len(texts)} texts."
            )
        return vectors


class GeminiImages:
    """Gemini's native image models (generateContent answering with an image part)."""

    def __init__(self, client: genai.Client, model: str) -> None:
        self._client = client
        self._model = model

    async def generate(
        self, prompt: str, *, size: str = "1024x1024", model: str | None = None
    ) -> GeneratedImage:
        try:
            result = await self._client.aio.models.generate_content(
                model=model or self._model,
                contents=prompt,
                config=types.GenerateContentConfig(response_modalities=["IMAGE"]),
            )
        except Exception as exc:
            raise translate(exc) from exc
        for candidate in result.candidates or ():
            for part in (candidate.content.parts if candidate.content else None) or ():
                if part.inline_data is not None and part.inline_data.data:
                    report_usage(model=model or self._model, units=1)
                    return GeneratedImage(
                        data=part.inline_data.data,
                        mime_type=part.inline_data.mime_type or "image/png",
                    )
        raise MalformedResponse(f"{LABEL} returned no image.")


class GeminiProvider:
    """A configured Gemini API key."""

    def __init__(self, client: genai.Client, *, embedding_model: str, image_model: str) -> None:
        self._client = client
        self.llm = GeminiChat(client, self.all_models)
        self.embedding = GeminiEmbeddings(client, embedding_model, self.all_models)
        self.image = GeminiImages(client, image_model)
        self.search = None

    async def all_models(self) -> list[ModelInfo]:
        """Every model listed, classified by the actions it supports."""
        found = []
        try:
            async for model in await self._client.aio.models.list():
                name = (model.name or "").removeprefix("models/")
                actions = set(model.supported_actions or ())
                capability: Capability | None = None
                if "embedContent" in actions:
                    capability = "embedding"
                elif "generateContent" in actions:
                    capability = "llm"
                elif "predict" in actions or name.startswith("imagen"):
                    capability = "image"
                if capability is not None and name:
                    window = model.input_token_limit if capability == "llm" else None
                    found.append(
                        ModelInfo(
                            id=name,
                            capability=capability,
                            label=model.display_name,
                            context_window=window,
                        )
                    )
        except Exception as exc:
            raise translate(exc) from exc
        return found

    async def test_connection(self) -> ConnectionReport:
        models = await self.all_models()
        return ConnectionReport(
            ok=True,
            capabilities=("llm", "embedding", "image"),
            message=f"Connected to {LABEL}: {len(models)} models.",
            models=tuple(models),
            code="connected_models",
            params={"provider": LABEL, "count": len(models)},
        )

    async def aclose(self) -> None:
        await self._client.aio.aclose()


def create(
    config: Mapping[str, Any], *, timeout: float, embedding_model: str, image_model: str
) -> GeminiProvider:
    """A provider for a validated configuration."""
    options = types.HttpOptions(
        base_url=config.get("base_url"),
        timeout=int(timeout * 1000),
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    client = genai.Client(api_key=config["api_key"], http_options=options)
    return GeminiProvider(client, embedding_model=embedding_model, image_model=image_model)

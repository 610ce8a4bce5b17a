"""Provider-neutral values: chat messages and stream events, models, images, search results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

#: An embedding: its floats in order, as a list or an ``array('f')`` (what a provider read
#: from float32 bytes, given to sqlite-vec as those bytes again without a float made of each).
Vector = Sequence[float]

Capability = Literal["llm", "embedding", "image", "search"]
ALL_CAPABILITIES: tuple[Capability, ...] = ("llm", "embedding", "image", "search")


# -- chat -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImagePart:
    """An image given to a vision model."""

    data: bytes
    mime_type: str


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asked for, as stored in an assistant message. ``extra`` is what
    the provider needs to see again with it (Gemini's thought signature, say)."""

    id: str
    name: str
    arguments: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation.

    ``role`` is ``user``, ``assistant`` or ``tool``. An assistant message may carry
    ``tool_calls``; a ``tool`` message answers the call ``tool_call_id`` with ``content``
    (``is_error`` when the tool failed or was refused).
    """

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    images: tuple[ImagePart, ...] = ()
    tool_calls: tuple[ToolCallRequest, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    """One call to an LLM."""

    model: str
    messages: tuple[ChatMessage, ...]
    system: str = ""
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    temperature: float | None = None


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's text, in order."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolCallEvent:
    """A complete tool call (arguments fully received and parsed). ``extra`` is opaque
    provider data to send back with the call in later requests."""

    id: str
    name: str
    arguments: dict[str, Any]
    type: Literal["tool_call"] = "tool_call"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    """Tokens used by the call, when the provider reports them."""

    input_tokens: int
    output_tokens: int
    type: Literal["usage"] = "usage"


FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "error"]


@dataclass(frozen=True)
class Finish:
    """The last event of a successful stream."""

    reason: FinishReason
    type: Literal["finish"] = "finish"


ChatEvent = TextDelta | ToolCallEvent | Usage | Finish


# -- models, embeddings, images, search --------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    """A model a provider offers. ``capability`` says what it is for."""

    id: str
    capability: Capability
    label: str | None = None
    #: Embedding models: the vector size, when known.
    dimension: int | None = None
    supports_tools: bool | None = None
    supports_vision: bool | None = None
    #: Chat models: the context window in tokens, when the provider's list says it (vLLM,
    #: OpenRouter, Gemini, Anthropic); ``providers.context_window`` says the one in force.
    context_window: int | None = None


@dataclass(frozen=True)
class GeneratedImage:
    """An image made by an image model."""

    data: bytes
    mime_type: str
    revised_prompt: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """One web search result."""

    title: str
    url: str
    description: str
    age: str | None = None


# -- configuration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigField:
    """A field of a provider's configuration form. ``secret`` fields are encrypted at rest
    and never returned in full."""

    name: str
    label: str
    required: bool = True
    secret: bool = False
    default: str | None = None
    help: str | None = None


@dataclass(frozen=True)
class ConnectionReport:
    """The result of testing a provider's configuration.

    ``message`` is an English sentence for API clients; the web interface words ``code`` with
    ``params`` in the user's language instead (a success code such as ``connected_models``,
    or the ``ProviderError`` code of the failure, whose ``params["detail"]`` then holds the
    provider's own words, when it sent any).
    """

    ok: bool
    capabilities: tuple[Capability, ...] = ()
    message: str = ""
    models: tuple[ModelInfo, ...] = field(default_factory=tuple)
    code: str = ""
    params: dict[str, str | int] = field(default_factory=dict)

"""The capability interfaces of specification section 13, as typing protocols.

A plugin registers a ``ProviderType`` (through ``register_providers``) or a
``SearchProviderType`` (``register_search_providers``). The platform stores one configuration
per configured provider and asks the type for a ``Provider`` built from it; the provider
exposes the capabilities it has. Every method that talks to the network is async and raises
``kinbot_core.providers.errors.ProviderError`` subclasses, never an SDK's own exceptions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from kinbot_core.providers.types import (
    Capability,
    ChatEvent,
    ChatRequest,
    ConfigField,
    ConnectionReport,
    GeneratedImage,
    ModelInfo,
    SearchResult,
    Vector,
)


@runtime_checkable
class LLMCapability(Protocol):
    """Streamed chat with tool calling and vision."""

    def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        """Stream the reply: ``TextDelta``s and complete ``ToolCallEvent``s in order, a
        ``Usage`` when reported, then one ``Finish``. Errors raise ``ProviderError``."""
        ...

    def supports_tools(self, model: str) -> bool:
        """Whether ``model`` can call tools."""
        ...

    def supports_vision(self, model: str) -> bool:
        """Whether ``model`` accepts images."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        """The chat models this provider offers."""
        ...


@runtime_checkable
class EmbeddingCapability(Protocol):
    """Text embeddings for long-term memory and search."""

    async def embed(self, texts: list[str], *, model: str | None = None) -> Sequence[Vector]:
        """One vector per text, in order (lists of floats, or ``array('f')``). ``model``
        defaults to the provider's default."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        """The embedding models offered, with their dimension when known."""
        ...

    def default_model(self) -> str:
        """The model used when none is named."""
        ...

    def dimension(self, model: str | None = None) -> int | None:
        """The vector size of ``model`` (the default one if ``None``), when known."""
        ...


@runtime_checkable
class ImageCapability(Protocol):
    """Image generation (Kin avatars and the image tool)."""

    async def generate(
        self, prompt: str, *, size: str = "1024x1024", model: str | None = None
    ) -> GeneratedImage:
        """Make one image from ``prompt``."""
        ...


@runtime_checkable
class SearchCapability(Protocol):
    """Web search."""

    async def search(
        self, query: str, *, count: int = 5, freshness: str | None = None
    ) -> list[SearchResult]:
        """Up to ``count`` results; ``freshness`` is ``day``, ``week``, ``month`` or ``year``."""
        ...


class Provider(Protocol):
    """A configured provider: what its configuration gives access to.

    Capabilities it lacks are ``None``. ``aclose`` releases its HTTP clients.
    """

    llm: LLMCapability | None
    embedding: EmbeddingCapability | None
    image: ImageCapability | None
    search: SearchCapability | None

    async def test_connection(self) -> ConnectionReport:
        """Check the credentials and reachability; report the capabilities detected."""
        ...

    async def aclose(self) -> None:
        """Close network clients."""
        ...


class ProviderType(Protocol):
    """A kind of provider a plugin contributes (``"openai"``, ``"anthropic"``…).

    Two optional attributes shape the set-up forms: ``rank`` (an int; lists show the types by
    it, lower first, so the providers most people have come first; without one a type comes
    after the built-in ones) and ``default_name`` (the name a configured provider gets when
    the person types none; it must be a valid provider name, else one is made from
    ``label``). The web client shows its own translation of a built-in type's label and
    fields, and a plugin's ``label``, field ``label`` and ``help`` as given.
    """

    #: The ``type`` stored in configurations; unique among registered types.
    name: str
    #: What the UI shows ("OpenAI").
    label: str
    #: Every capability this type can offer; a configuration may end up with fewer.
    capabilities: tuple[Capability, ...]
    #: The configuration form.
    config_fields: tuple[ConfigField, ...]

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Return the normalised configuration or raise ``ProviderConfigError``."""
        ...

    def create(self, config: Mapping[str, Any], *, timeout: float) -> Provider:
        """Build a provider from a validated configuration (no network access yet)."""
        ...

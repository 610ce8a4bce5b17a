"""Models' context windows: how many tokens one call to a model may hold, and who said so.

``await platform.providers.context_window(provider_id, model)`` answers a ``ContextWindow``
from the first of these that knows:

1. an administrator (``"admin"``): the window given for one model from a Kin's settings
   (``given``: stored in the database, ``kinbot_core.providers.window_settings``), then the
   ``compacting_context_windows`` setting, by model id (``"qwen2.5:7b"``) or by
   ``"<provider name>/<model id>"``, then the provider's own ``context_window``
   configuration field (offered by the OpenAI-compatible type);
2. the provider's plugin, through the optional ``context_window(model)`` of its llm
   capability (``ReportsContextWindow``): what the server runs the model with (``"server"``:
   llama.cpp, Ollama, vLLM, LM Studio) or the cloud provider's model metadata
   (``"provider"``: OpenRouter, Gemini, Anthropic);
3. the built-in table of known models (``"known_model"``,
   ``kinbot_core.compacting.tokens.CONTEXT_WINDOWS``);
4. the fallback (``"fallback"``): the window whose compacting threshold is the
   ``compacting_threshold_tokens`` setting, as before windows were learned.

When an administrator gave the window, the server is still asked what the model can do
(``LearnsCapabilities``: Ollama says whether a model can call tools), since asking for the
window is what taught it otherwise.

A server that refuses a prompt as too long and names its window (llama.cpp's ``n_ctx``,
"maximum context length is …") is taken at its word too (``refused``): unless an
administrator gave the window, that figure, when smaller, becomes the one in force
(``"server"``) as a learned answer.

Learned answers are cached per provider and model for ``LEARNED_SECONDS`` (a server restarted
with another context size is noticed within that time); an answer reached because the
provider could not be asked (a network error, a timeout) is kept ``RETRY_SECONDS`` only. A
provider's configuration change, test or removal forgets its answers. Asking never raises for
a network error: it falls back.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kinbot_core.config import Settings
from kinbot_core.providers.errors import ContextOverflowError, ProviderError
from kinbot_core.providers.token_ratios import TokenRatios

if TYPE_CHECKING:
    from kinbot_core.providers.types import ChatRequest

logger = logging.getLogger(__name__)

#: The configuration field in which a provider type lets an administrator give the window.
CONFIG_FIELD = "context_window"
#: Smallest and largest window an administrator may give (tokens).
MIN_TOKENS = 256
MAX_TOKENS = 100_000_000
#: How long a learned window is kept before the provider is asked again (seconds).
LEARNED_SECONDS = 300.0
#: How long an answer reached because the provider could not be asked is kept (seconds).
RETRY_SECONDS = 30.0
#: The longest a lookup waits for the provider (seconds): a turn is never held longer.
ASK_SECONDS = 10.0


@dataclass(frozen=True)
class ContextWindow:
    """A model's context window in tokens, and where the figure comes from (``source``:
    ``"server"``, ``"provider"``, ``"known_model"``, ``"admin"`` or ``"fallback"``)."""

    tokens: int
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "source": self.source}


@runtime_checkable
class ReportsContextWindow(Protocol):
    """An llm capability that can say a model's window (optional for plugins)."""

    async def context_window(self, model: str) -> ContextWindow | None:
        """The window ``model`` runs with, as the server or the provider's model metadata
        says (source ``"server"`` or ``"provider"``), or ``None`` when it does not say.
        Network failures raise (``ProviderError``); the platform then falls back."""
        ...


@runtime_checkable
class CountsTokens(Protocol):
    """An llm capability whose server counts tokens as the model does (optional for plugins:
    llama.cpp's ``/tokenize``), which calibrates a model's token ratio before its first call
    (``kinbot_core.kins.token_calibration``)."""

    async def count_tokens(self, model: str, text: str) -> int | None:
        """The tokens ``model``'s tokenizer makes of ``text``, or ``None`` when the server
        does not say. Network failures raise (``ProviderError``)."""
        ...


@runtime_checkable
class LearnsCapabilities(Protocol):
    """An llm capability whose server says what a model can do apart from its window
    (optional for plugins: Ollama's ``capabilities``, behind ``supports_tools``). Asked when
    an administrator gave the window, so that the server's own answer was not asked for."""

    async def learn_capabilities(self, model: str) -> None:
        """Ask the server what ``model`` can do. Network failures raise (``ProviderError``)."""
        ...


class _Providers(Protocol):
    """What the lookup needs of the provider service."""

    async def get(self, provider_id: str) -> Any: ...

    async def instance(self, provider_id: str) -> Any: ...


def parse_tokens(value: Any) -> int | None:
    """A window given as text or number (``"8192"``, ``"8,192"``, ``8192``), or ``None`` when
    it is not a whole number from ``MIN_TOKENS`` to ``MAX_TOKENS``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "").replace(" ", "")
        if not text.isdigit():
            return None
        value = int(text)
    if not isinstance(value, int) or not MIN_TOKENS <= value <= MAX_TOKENS:
        return None
    return value


def fallback_window(settings: Settings) -> ContextWindow:
    """The window assumed when nothing knows it: compacting then starts at
    ``compacting_threshold_tokens``, as it did before windows were learned."""
    share = settings.compacting_threshold_share
    return ContextWindow(math.ceil(settings.compacting_threshold_tokens / share), "fallback")


def admin_window(
    overrides: Mapping[str, int], model: str, provider_name: str | None
) -> ContextWindow | None:
    """The ``compacting_context_windows`` entry for ``model``: by ``"<provider>/<model>"``
    first (provider names compared without case), then by the model id alone."""
    if provider_name is not None:
        wanted = f"{provider_name}/{model}".lower()
        for key, tokens in overrides.items():
            if key.lower() == wanted:
                return ContextWindow(tokens, "admin")
    if model in overrides:
        return ContextWindow(overrides[model], "admin")
    return None


class ContextWindows:
    """The lookup and its cache (one per provider service)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self._settings = settings
        self._clock = clock
        #: (provider id, model) -> (window, provider name, time after which it is asked again)
        self._cache: dict[tuple[str, str], tuple[ContextWindow, str, float]] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        #: (provider id, model) -> time after which its capabilities are asked again
        self._capabilities_asked: dict[tuple[str, str], float] = {}
        #: What answered calls taught of each model's tokenizer (``token_ratios``).
        self.ratios = TokenRatios()
        #: Windows an administrator gave one model each from the interface, by
        #: ``"<provider name>/<model id>"``: they win over the configuration's.
        self._given: dict[str, int] = {}

    def set_given(self, given: Mapping[str, int]) -> None:
        """The windows given from the interface (``window_settings``), in force at once."""
        self._given = dict(given)

    def admin(self, model: str, provider_name: str | None) -> ContextWindow | None:
        """The window an administrator gave ``model`` alone: from the interface, else in the
        ``compacting_context_windows`` setting."""
        return admin_window(self._given, model, provider_name) or admin_window(
            self._settings.compacting_context_windows, model, provider_name
        )

    def forget_model(self, provider_id: str, model: str) -> None:
        """Drop the cached window of one model of one provider: asked again at its next use."""
        self._cache.pop((provider_id, model), None)
        self._capabilities_asked.pop((provider_id, model), None)

    def forget(self, provider_id: str | None = None) -> None:
        """Drop the cached windows of one provider (of every provider if ``None``), and
        the token ratios its calls taught."""
        for key in list(self._cache):
            if provider_id is None or key[0] == provider_id:
                del self._cache[key]
        for key in list(self._capabilities_asked):
            if provider_id is None or key[0] == provider_id:
                del self._capabilities_asked[key]
        self.ratios.forget(provider_id)

    async def lookup(
        self, providers: _Providers, provider_id: str | None, model: str
    ) -> ContextWindow:
        """The window of ``model`` served by ``provider_id`` (see the module docstring).
        Without a provider (a Kin whose model no provider serves now), only the setting,
        the known models and the fallback are consulted."""
        if provider_id is None:
            return self.admin(model, None) or self._offline(model)
        key = (provider_id, model)
        cached = self._fresh(key)
        if cached is not None:  # the setting may have changed since: it still wins
            return self.admin(model, cached[1]) or cached[0]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            cached = self._fresh(key)
            if cached is not None:
                return self.admin(model, cached[1]) or cached[0]
            try:
                view = await providers.get(provider_id)
            except ProviderError:  # removed meanwhile: as for a model no provider serves
                return self.admin(model, None) or self._offline(model)
            given = self.admin(model, view.name)
            if given is not None:
                await self._learn_capabilities(providers, provider_id, model)
                return given
            window, keep = await self._learn(providers, provider_id, view, model)
            self._cache[key] = (window, view.name, self._clock() + keep)
            return window

    def learn_from_refusal(
        self, provider_id: str, model: str, request: ChatRequest, error: ContextOverflowError
    ) -> None:
        """``provider_id``'s server refused ``request`` to ``model`` as too long: the window
        it named (``refused``) and its count of the prompt (``TokenRatios.observe``)."""
        if error.window:
            self.refused(provider_id, model, error.window)
        if error.prompt_tokens:
            self.ratios.observe(provider_id, model, request, error.prompt_tokens)

    def refused(self, provider_id: str, model: str, tokens: int) -> None:
        """``provider_id``'s server refused a prompt to ``model`` as too long for its window
        of ``tokens`` (its own words): the window in force from now on, unless an
        administrator gave one or a smaller one is known."""
        key = (provider_id, model)
        cached = self._fresh(key)
        if cached is None or cached[0].source == "admin" or cached[0].tokens <= tokens:
            return
        window = ContextWindow(tokens, "server")
        self._cache[key] = (window, cached[1], self._clock() + LEARNED_SECONDS)

    def _fresh(self, key: tuple[str, str]) -> tuple[ContextWindow, str] | None:
        """The cached window of ``key`` and its provider's name, unless stale."""
        cached = self._cache.get(key)
        if cached is None or cached[2] <= self._clock():
            return None
        return cached[0], cached[1]

    async def _learn(
        self, providers: _Providers, provider_id: str, view: Any, model: str
    ) -> tuple[ContextWindow, float]:
        """The window and how long to keep it."""
        configured = parse_tokens(view.config.get(CONFIG_FIELD))
        if configured is not None:
            await self._learn_capabilities(providers, provider_id, model)
            return ContextWindow(configured, "admin"), LEARNED_SECONDS
        keep = LEARNED_SECONDS
        try:
            provider = await providers.instance(provider_id)
            llm = getattr(provider, "llm", None)
            if isinstance(llm, ReportsContextWindow):
                reported = await asyncio.wait_for(llm.context_window(model), ASK_SECONDS)
                if reported is not None and reported.tokens > 0:
                    return reported, LEARNED_SECONDS
        except Exception as error:  # a server that cannot say must never stop a turn
            logger.info(
                "context window of %s from provider %s unknown: %s",
                model,
                provider_id,
                type(error).__name__,
            )
            keep = RETRY_SECONDS
        return self._offline(model), keep

    async def _learn_capabilities(
        self, providers: _Providers, provider_id: str, model: str
    ) -> None:
        """What ``model`` can do, asked of its server (``LearnsCapabilities``) at most once per
        ``LEARNED_SECONDS``; never an error (the model is then taken to call tools)."""
        key = (provider_id, model)
        if self._capabilities_asked.get(key, 0.0) > self._clock():
            return
        self._capabilities_asked[key] = self._clock() + LEARNED_SECONDS
        try:
            llm = getattr(await providers.instance(provider_id), "llm", None)
            if isinstance(llm, LearnsCapabilities):
                await asyncio.wait_for(llm.learn_capabilities(model), ASK_SECONDS)
        except Exception as error:  # as for the window: asking must never stop a turn
            logger.info(
                "capabilities of %s from provider %s unknown: %s",
                model,
                provider_id,
                type(error).__name__,
            )
            self._capabilities_asked[key] = self._clock() + RETRY_SECONDS

    def _offline(self, model: str) -> ContextWindow:
        """What KinBot knows without asking: the known models, else the fallback."""
        # Imported here: the compacting package imports the providers package.
        from kinbot_core.compacting.tokens import context_window as known_window

        tokens = known_window(model, {})
        if tokens is not None:
            return ContextWindow(tokens, "known_model")
        return fallback_window(self._settings)


class _Resolving(Protocol):
    async def resolve_model(self, model: str) -> Any: ...

    async def context_window(self, provider_id: str | None, model: str) -> ContextWindow: ...


async def window_of(providers: _Resolving, model: str) -> ContextWindow:
    """The window of a Kin's model string (``"qwen2.5:7b"`` or ``"Local models/qwen2.5:7b"``):
    on the provider serving it, or without a provider when none serves it now."""
    try:
        resolved = await providers.resolve_model(model)
    except ProviderError:
        return await providers.context_window(None, model)
    return await providers.context_window(resolved.provider_id, resolved.model)

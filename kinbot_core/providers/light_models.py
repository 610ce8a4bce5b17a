"""The model of a Kin's background work (memory extraction, compacting): by default the
cheapest capable chat model of the provider serving the Kin, not the Kin's own model.

Which model does the work, first found wins:

1. the Kin's override (``memory_extraction_model`` / ``compacting_model`` on the Kin);
2. the platform's: an administrator's choice in Settings (``background_settings``), else the
   ``memory_extraction_model`` / ``compacting_model`` configuration settings;
3. the light model of the Kin's provider (``light_model``);
4. the Kin's own model.

An override is a model (``<provider name>/<model>``) or ``OWN_MODEL`` ("the Kin's own
model"); empty means "not set here".

The light model is chosen only among the chat models the provider lists:

- a provider type of ``LIGHT_MODELS`` takes the first of its patterns that a listed model
  matches whole (the greatest such id, so the newest dated release);
- any other provider takes its smallest listed chat model by the parameter count its id
  states (``qwen2.5:0.5b``, ``SmolLM2-135M-Instruct``, ``llama-3.2-1b``); ids without a count
  are never guessed at, so a provider whose ids say nothing keeps the Kin's own model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any, Literal

from kinbot_core.providers.errors import ProviderError

logger = logging.getLogger(__name__)

Purpose = Literal["extraction", "compacting"]

#: An override meaning "the Kin's own model" (a Kin's, or the platform's setting).
OWN_MODEL = "@kin"

#: The cheap, capable chat models of each provider type, most wanted first (regular
#: expressions matched against the whole model id; a dated suffix is allowed).
LIGHT_MODELS: dict[str, tuple[str, ...]] = {
    "anthropic": (
        r"claude-haiku-4-5(-\d{8})?",
        r"claude-3-5-haiku(-\d{8}|-latest)?",
        r"claude-3-haiku(-\d{8})?",
    ),
    "openai": (
        r"gpt-4\.1-mini(-\d{4}-\d{2}-\d{2})?",
        r"gpt-4o-mini(-\d{4}-\d{2}-\d{2})?",
    ),
    "gemini": (
        r"gemini-2\.5-flash(-\d{3})?",
        r"gemini-2\.0-flash(-\d{3})?",
        r"gemini-flash-latest",
    ),
}

#: A parameter count in a model id: ``0.5b``, ``1.5B``, ``135M``, ``7b`` (not inside a word
#: or a longer number, so ``gpt-4o`` or ``text-embedding-3`` count nothing).
_PARAMETERS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([bm])(?![a-z0-9])", re.IGNORECASE)
_SCALE = {"b": 1e9, "m": 1e6}


def parameter_count(model_id: str) -> float | None:
    """The number of parameters ``model_id`` states (the smallest if several), or ``None``."""
    counts = [
        float(number) * _SCALE[unit.lower()]
        for number, unit in _PARAMETERS.findall(model_id.replace("_", "-"))
    ]
    return min(counts) if counts else None


def pick_light_model(provider_type: str, chat_models: Iterable[str]) -> str | None:
    """The cheapest capable model among ``chat_models`` (a provider's listed chat model ids)
    by the rules above; ``None`` when none is known to be."""
    listed = sorted(set(chat_models))
    for pattern in LIGHT_MODELS.get(provider_type, ()):
        matching = [model for model in listed if re.fullmatch(pattern, model)]
        if matching:
            return max(matching)
    if provider_type in LIGHT_MODELS:
        return None  # a known type lists none of its light models: no guessing from sizes
    sized = [(count, model) for model in listed if (count := parameter_count(model)) is not None]
    return min(sized)[1] if sized else None


async def light_model(platform: Any, model: str) -> str | None:
    """The light model (``<provider name>/<model>``) of the provider serving ``model``, from
    its cached model list; ``None`` when none is known or the provider cannot say."""
    providers = platform.providers
    try:
        resolved = await providers.resolve_model(model)
        view = await providers.get(resolved.provider_id)
        listed = await providers.models(resolved.provider_id)
    except ProviderError as error:
        logger.info("no light model for %s: %s", model, error)
        return None
    chosen = pick_light_model(view.type, (m.id for m in listed if m.capability == "llm"))
    return f"{resolved.provider_name}/{chosen}" if chosen else None


def override_of(platform: Any, kin: Any, purpose: Purpose) -> str:
    """The override in force for ``purpose`` (the Kin's, else the platform's), or ``""``."""
    own = kin.memory_extraction_model if purpose == "extraction" else kin.compacting_model
    return str(own or platform.background_models.in_force(purpose) or "")


async def background_model(platform: Any, kin: Any, purpose: Purpose) -> str:
    """The model that does ``kin``'s ``purpose`` work now (see the module's rules)."""
    override = override_of(platform, kin, purpose).strip()
    if override == OWN_MODEL:
        return str(kin.model)
    if override:
        return override
    return await light_model(platform, kin.model) or str(kin.model)

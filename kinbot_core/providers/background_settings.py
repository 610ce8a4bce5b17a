"""The platform-wide models of background work (memory extraction, compacting), as an
administrator sets them in Settings (``/api/settings/background-models``).

A value set here is stored in the ``setting`` table (keys ``background_models.extraction``
and ``background_models.compacting``, JSON strings) and wins over the configuration's
``memory_extraction_model`` / ``compacting_model``; it is held in memory, so the next
extraction or summary uses it without a restart. The values mean what a Kin's override
means (``kinbot_core.providers.light_models``): empty for the light model of each Kin's
provider, ``OWN_MODEL`` for each Kin's own model, or ``<provider name>/<model>``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import peewee

from kinbot_core.db.models import Setting
from kinbot_core.providers.errors import ProviderError
from kinbot_core.providers.light_models import OWN_MODEL, Purpose, pick_light_model

logger = logging.getLogger(__name__)

#: Each purpose's configuration field (``kinbot_core.config.Settings``), also the API's name.
FIELDS: dict[Purpose, str] = {
    "extraction": "memory_extraction_model",
    "compacting": "compacting_model",
}


def setting_key(purpose: Purpose) -> str:
    """The ``setting`` table's key of ``purpose``'s stored choice."""
    return f"background_models.{purpose}"


@dataclass(frozen=True)
class ModelChoice:
    """A chat model an administrator may choose for background work."""

    #: What to store: ``<provider name>/<model id>``.
    value: str
    provider: str
    id: str
    label: str | None
    context_window: int | None
    #: Whether it is its provider's light model (what "empty" picks for Kins of it).
    light: bool

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class BackgroundModels:
    """The platform's choice of background models: stored choices over the configuration."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform
        self._stored: dict[Purpose, str] = {}

    async def load(self) -> None:
        """Read the stored choices (at start-up, once the database is open)."""
        keys = {setting_key(purpose): purpose for purpose in FIELDS}

        def read() -> list[Setting]:
            return list(Setting.select().where(Setting.key.in_(list(keys))))

        self._stored = {
            keys[row.key]: str(json.loads(row.value) or "")
            for row in await self._platform.db.read(read)
        }

    def in_force(self, purpose: Purpose) -> str:
        """The platform's override for ``purpose``: the stored choice, else the configuration's
        (``""``: the light model of each Kin's provider)."""
        if purpose in self._stored:
            return self._stored[purpose]
        return str(getattr(self._platform.settings, FIELDS[purpose]) or "").strip()

    def stored(self, purpose: Purpose) -> bool:
        """Whether an administrator's choice (rather than the configuration) is in force."""
        return purpose in self._stored

    async def update(self, changes: dict[Purpose, str]) -> None:
        """Store new choices. A model must be one a configured provider lists (the same
        check as a Kin's override: ``ModelResolutionError`` with a specific code otherwise);
        nothing is stored unless every value passes."""
        values = {purpose: value.strip() for purpose, value in changes.items()}
        for value in values.values():
            if value not in ("", OWN_MODEL):
                await self._platform.providers.resolve_model(value)

        def write() -> None:
            for purpose, value in values.items():
                Setting.put(setting_key(purpose), value)

        await self._platform.db.write(write)
        self._stored.update(values)

    async def choices(self) -> list[ModelChoice]:
        """The chat models of the configured providers (from their cached lists), each
        provider's light model marked; a provider that cannot list its models is left out."""
        providers = self._platform.providers
        found: list[ModelChoice] = []
        for view in await providers.configured("ai"):
            if "llm" not in view.capabilities:
                continue
            try:
                listed = [m for m in await providers.models(view.id) if m.capability == "llm"]
            except (ProviderError, peewee.PeeweeException) as error:
                logger.info("models of %s not listed: %s", view.name, error)
                continue
            light = pick_light_model(view.type, (m.id for m in listed))
            found += [
                ModelChoice(
                    value=f"{view.name}/{m.id}",
                    provider=view.name,
                    id=m.id,
                    label=m.label,
                    context_window=m.context_window,
                    light=m.id == light,
                )
                for m in listed
            ]
        return found

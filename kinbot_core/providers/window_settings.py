"""Context windows an administrator gives one model each from a Kin's settings
(``/api/kins/<id>/context-window``), for servers that do not say theirs.

They are stored in the ``setting`` table under ``SETTING_KEY``, as one JSON object
``{"<provider name>/<model id>": tokens}``, and held in memory by the provider service's
window lookup (``ContextWindows.set_given``): they win, as the administrator's (source
``"admin"``), over the ``compacting_context_windows`` setting's entries and over everything
else, and the next turn of every Kin on that model follows them without a restart.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from kinbot_core.db.models import Setting
from kinbot_core.providers.context_windows import admin_window
from kinbot_core.providers.errors import ProviderError

logger = logging.getLogger(__name__)

#: The ``setting`` table's key of the stored windows.
SETTING_KEY = "context_windows.models"


@dataclass(frozen=True)
class ModelKey:
    """Which model a window is given for: ``"<provider name>/<model id>"`` (``key``), and the
    provider serving it now (``None`` when no configured provider serves the Kin's model)."""

    key: str
    provider_id: str | None
    model: str


class ModelWindows:
    """The windows given from the interface: read at start-up, changed by administrators."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform
        self._given: dict[str, int] = {}

    async def load(self) -> None:
        """Read the stored windows (at start-up, once the database is open)."""

        def read() -> Setting | None:
            return Setting.get_or_none(Setting.key == SETTING_KEY)

        row = await self._platform.db.read(read)
        given: dict[str, int] = {}
        if row is not None:
            try:
                stored = json.loads(row.value)
            except ValueError:
                stored = {}
            if isinstance(stored, dict):
                given = {
                    str(key): value
                    for key, value in stored.items()
                    if isinstance(value, int) and not isinstance(value, bool)
                }
        self._given = given
        self._platform.providers.windows.set_given(given)

    async def key_of(self, kin_model: str) -> ModelKey:
        """The key a Kin's model string's window is given under: its provider's name and the
        provider's model id when a provider serves it, else the Kin's model string itself."""
        try:
            resolved = await self._platform.providers.resolve_model(kin_model)
        except ProviderError:
            return ModelKey(kin_model, None, kin_model)
        return ModelKey(
            f"{resolved.provider_name}/{resolved.model}", resolved.provider_id, resolved.model
        )

    def given(self, model: ModelKey) -> int | None:
        """The window given for ``model`` (provider names compared without case), if any."""
        provider = model.key.removesuffix(f"/{model.model}") if model.provider_id else None
        window = admin_window(self._given, model.model, provider)
        return window.tokens if window is not None else None

    async def give(self, model: ModelKey, tokens: int | None) -> None:
        """Store ``tokens`` as the window of ``model`` (``None``: forget it, so that the
        server's or the next source's figure is in force again), effective at once."""
        given = {k: v for k, v in self._given.items() if k.lower() != model.key.lower()}
        if tokens is not None:
            given[model.key] = tokens
        await self._platform.db.write(Setting.put, SETTING_KEY, given)
        self._given = given
        windows = self._platform.providers.windows
        windows.set_given(given)
        if model.provider_id is not None:
            windows.forget_model(model.provider_id, model.model)
        logger.info("context window of %s given by hand: %s", model.key, tokens)

"""Plugins' settings: the models plugins declare, the values administrators save for them.

A plugin declares its settings as a pydantic model through the ``register_settings`` hook.
The values are stored per plugin (table ``plugin_settings``), secrets sealed under
``plugin-settings:<plugin>`` (``kinbot_core.schema_settings``), and kept opened in memory, so
``get`` is a plain synchronous read a hook may do on every use: a save takes effect for the
next read, and ``plugin.settings.changed`` tells plugins that keep derived state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import PluginSettingsRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import PluginSettingsChanged
from kinbot_core.plugins.caller import HookCaller
from kinbot_core.schema_settings import SchemaSettings, SettingsInvalid, SettingsUnreadable

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


class NoPluginSettings(LookupError):
    """The plugin declares no settings (or is disabled, so its model is unknown)."""

    code = "no_plugin_settings"

    def __init__(self, plugin: str) -> None:
        super().__init__(f"the plugin {plugin!r} has no settings")
        self.plugin = plugin


class SettingsNotConfigured(LookupError):
    """The plugin's model has required fields and no administrator saved them yet."""

    def __init__(self, plugin: str) -> None:
        super().__init__(f"the settings of plugin {plugin!r} have not been saved yet")
        self.plugin = plugin


def context_of(plugin: str) -> str:
    """What a plugin's secrets are sealed under: they open for this plugin's row only."""
    return f"plugin-settings:{plugin}"


class PluginSettings:
    """Every enabled plugin's settings model and saved values (``platform.plugin_settings``)."""

    def __init__(self, db: Database, bus: EventBus, master_key: Callable[[], bytes]) -> None:
        self._db = db
        self._bus = bus
        self._master_key = master_key
        self._schemas: dict[str, SchemaSettings[Any]] = {}
        #: Each plugin's saved values, opened and valid; absent when nothing usable is saved.
        self._saved: dict[str, BaseModel] = {}
        self._lock = asyncio.Lock()

    # -- declared models -------------------------------------------------------------------

    async def rebuild(self, hooks: HookCaller) -> None:
        """Collect the enabled plugins' models (``register_settings``) and open their saved
        values. Called with the registries: at start-up and when a plugin is switched."""
        declared: dict[str, list[type[BaseModel]]] = {}
        failed: set[str] = set()

        def bind(plugin: str) -> dict[str, Any]:
            def register(model: Any) -> None:
                if not (isinstance(model, type) and issubclass(model, BaseModel)):
                    raise TypeError("register_settings takes a pydantic model class")
                SchemaSettings(model)  # refuses a model whose secrets could not be kept sealed
                declared.setdefault(plugin, []).append(model)

            return {"register": register}

        await hooks.call("register_settings", bind=bind, failed=failed)
        schemas: dict[str, SchemaSettings[Any]] = {}
        for plugin, models in declared.items():
            if plugin in failed:
                continue
            if len(models) > 1:
                logger.warning(
                    "plugin %s registered several settings models: the first kept", plugin
                )
            schemas[plugin] = SchemaSettings(models[0])
        async with self._lock:
            rows = await self._db.read(_stored_rows, list(schemas))
            self._schemas = schemas
            self._saved = {}
            for plugin, stored in rows.items():
                opened = self._open(plugin, stored)
                if opened is not None:
                    self._saved[plugin] = opened

    def _open(self, plugin: str, stored: str) -> BaseModel | None:
        try:
            opened: BaseModel = self._schemas[plugin].open(stored, self._box(), context_of(plugin))
            return opened
        except SettingsUnreadable as exc:
            logger.warning("plugin %s: saved settings cannot be read (%s)", plugin, exc)
        except SettingsInvalid as exc:
            # The plugin's model changed since they were saved: the form shows what to fix.
            logger.warning("plugin %s: saved settings no longer valid (%s)", plugin, exc)
        return None

    def declared(self) -> set[str]:
        """The enabled plugins that declare settings."""
        return set(self._schemas)

    def schema_of(self, plugin: str) -> SchemaSettings[Any]:
        """The settings machinery of ``plugin``'s model, or ``NoPluginSettings``."""
        schema = self._schemas.get(plugin)
        if schema is None:
            raise NoPluginSettings(plugin)
        return schema

    # -- reading ---------------------------------------------------------------------------

    def get(self, plugin: str, model: type[M]) -> M:
        """``plugin``'s settings as an instance of ``model`` (the class it registered): the
        saved values, or the model's defaults when nothing is saved.

        Raises ``NoPluginSettings`` when ``plugin`` (enabled) declares none,
        ``SettingsNotConfigured`` when a required field has no saved value, and
        ``TypeError`` when ``model`` is not the registered class."""
        schema = self.schema_of(plugin)
        if schema.model is not model:
            raise TypeError(f"plugin {plugin!r} registered {schema.model.__name__} as its settings")
        saved = self._saved.get(plugin)
        value = saved if saved is not None else schema.defaults()
        if value is None:
            raise SettingsNotConfigured(plugin)
        return cast(M, value)

    def view(self, plugin: str) -> dict[str, Any]:
        """The form and the values for the API: ``schema`` (``form_schema``), ``values``
        (secrets as ``{"set": bool}``) and ``saved`` (whether an administrator saved them)."""
        schema = self.schema_of(plugin)
        saved = self._saved.get(plugin)
        return {
            "plugin": plugin,
            "schema": schema.form_schema(),
            "values": schema.present(saved),
            "saved": saved is not None,
        }

    # -- saving ----------------------------------------------------------------------------

    async def update(self, plugin: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``values`` merged into the saved ones (a secret left empty or as shown is
        kept), store them sealed and use them from now on; the new ``view``.

        Raises ``NoPluginSettings`` or ``SettingsInvalid`` (nothing is changed then)."""
        async with self._lock:
            schema = self.schema_of(plugin)
            current = self._saved.get(plugin)
            updated = schema.merge(current, values)
            stored = schema.seal(updated, self._box(), context_of(plugin))
            await self._db.write(_store, plugin, stored)
            self._saved[plugin] = updated
            before = schema.raw_values(current) if current is not None else {}
            after = schema.raw_values(updated)
            changed = tuple(
                sorted(n for n in after.keys() | before.keys() if before.get(n) != after.get(n))
            )
        self._bus.emit(PluginSettingsChanged(plugin=plugin, fields=changed))
        logger.info("plugin %s settings saved (%s)", plugin, ", ".join(changed) or "no change")
        return self.view(plugin)

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())


def _stored_rows(plugins: list[str]) -> dict[str, str]:
    query = PluginSettingsRecord.select().where(PluginSettingsRecord.plugin.in_(plugins))
    return {row.plugin: row.stored for row in query}


def _store(plugin: str, stored: str) -> None:
    (
        PluginSettingsRecord.insert(plugin=plugin, stored=stored, updated_at=time.time())
        .on_conflict_replace()
        .execute()
    )

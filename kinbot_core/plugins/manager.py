"""Discovering plugins through entry points, and enabling or disabling them at runtime."""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from hookspecs import PROJECT_NAME, SPEC_MODULES

logger = logging.getLogger(__name__)

#: The distribution whose entry points are the built-in plugins.
BUILTIN_DISTRIBUTION = "kinbot-platform"
#: A plugin module sets this to a reason when the platform cannot run without it.
REQUIRED_ATTRIBUTE = "KINBOT_REQUIRED"
#: A plugin module sets this to what it does, in a sentence for administrators: a string, or
#: the sentence by language (``{"en": ..., "fr": ...}``).
DESCRIPTION_ATTRIBUTE = "KINBOT_DESCRIPTION"
#: The codes of a plugin's ``error_code`` (worded by the web interface).
PLUGIN_ERROR_CODES = ("plugin_load_failed", "plugin_unknown_hook")


class UnknownPlugin(KeyError):
    """No plugin of that name is installed or registered."""

    def __str__(self) -> str:
        return f"no plugin named {self.args[0]!r}"


class PluginRequired(Exception):
    """The plugin cannot be disabled; ``reason`` says why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"plugin {name!r} cannot be disabled: {reason}")
        self.name = name
        self.reason = reason


@dataclass
class _Entry:
    name: str
    entry_point: importlib.metadata.EntryPoint | None = None
    obj: Any = None
    distribution: str | None = None
    version: str | None = None
    #: The distribution's one-line summary (its ``description`` in pyproject.toml).
    summary: str | None = None
    enabled: bool = False
    error: str | None = None
    error_code: str | None = None
    hooks: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class PluginInfo:
    """What ``kinbot plugins list`` and the Settings page show of one plugin."""

    name: str
    version: str | None
    distribution: str | None
    hooks: tuple[str, ...]
    enabled: bool
    builtin: bool
    #: Why it cannot be disabled, or ``None``.
    required: str | None
    #: The same as a code the interface words (``only_<kind>``: it provides the only one of
    #: a kind the platform needs); ``None`` for a reason the plugin declares in its own words.
    required_code: str | None
    #: Why it could not be loaded, or ``None``.
    error: str | None
    #: The same as a code the interface words (``PLUGIN_ERROR_CODES``), or ``None``.
    error_code: str | None
    #: What it does in its own words, by language (``KINBOT_DESCRIPTION``; else, for a plugin
    #: not built in, its distribution's summary as ``{"en": ...}``), or ``None``. The
    #: interface words built-in plugins itself, by their name.
    description: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {
            "name": self.name,
            "version": self.version,
            "distribution": self.distribution,
            "hooks": list(self.hooks),
            "enabled": self.enabled,
            "builtin": self.builtin,
            "required": self.required,
            "required_code": self.required_code,
            "error": self.error,
            "error_code": self.error_code,
            "description": self.description,
        }


class PluginManager:
    """One application's plugins: a pluggy manager plus what pluggy does not keep.

    Plugins come from the ``kinbot`` entry-point group (built-in ones exactly like third-party
    ones) or from :meth:`register`. A disabled plugin is blocked in pluggy, so its hooks stop
    running at once; one disabled at start-up is never even imported.
    """

    def __init__(self) -> None:
        self.pluggy = pluggy.PluginManager(PROJECT_NAME)
        for module in SPEC_MODULES:
            self.pluggy.add_hookspecs(module)
        self._entries: dict[str, _Entry] = {}

    # -- loading -----------------------------------------------------------------------------

    def load_entry_points(self, disabled: Iterable[str] = ()) -> None:
        """Find every plugin in the entry-point group; load and register the enabled ones.

        A plugin that fails to import or register is dropped with a warning and listed with
        its error. Names in ``disabled`` are blocked before their entry point is loaded.
        """
        blocked = set(disabled)
        # ``metadata`` parses the distribution's METADATA file at each call: read once per
        # distribution (the built-in plugins share one), not once per plugin.
        described: dict[int, tuple[str, str, str | None]] = {}
        for entry_point in importlib.metadata.entry_points(group=PROJECT_NAME):
            if entry_point.name in self._entries:
                logger.warning("plugin %s: duplicate entry point ignored", entry_point.name)
                continue
            dist = entry_point.dist
            distribution: str | None = None
            version: str | None = None
            summary: str | None = None
            if dist is not None:
                if id(dist) not in described:
                    metadata = dist.metadata
                    described[id(dist)] = (
                        metadata["Name"],
                        metadata["Version"],
                        next(iter(metadata.get_all("Summary") or []), None) or None,
                    )
                distribution, version, summary = described[id(dist)]
            entry = _Entry(
                entry_point.name,
                entry_point=entry_point,
                distribution=distribution,
                version=version,
                summary=summary,
            )
            self._entries[entry.name] = entry
            if entry.name in blocked:
                self.pluggy.set_blocked(entry.name)
                continue
            self._activate(entry)
        self.check_pending()

    def register(self, plugin: Any, name: str, *, enabled: bool = True) -> None:
        """Register a plugin object directly (an application embedding KinBot, or a test)."""
        if name in self._entries:
            raise ValueError(f"a plugin named {name!r} is already known")
        entry = _Entry(name, obj=plugin)
        self._entries[name] = entry
        if enabled:
            self._activate(entry)
            self.check_pending()
        else:
            self.pluggy.set_blocked(name)

    def _load(self, entry: _Entry) -> None:
        if entry.obj is None and entry.entry_point is not None:
            try:
                entry.obj = entry.entry_point.load()
            except SystemExit as exc:  # a plugin must not be able to stop the platform
                raise ImportError(f"the plugin exited while importing ({exc})") from exc

    def preload(self, name: str) -> None:
        """Import a plugin's entry point now (safe to call from a worker thread).

        An import error is kept and reported by ``enable``.
        """
        entry = self._entry(name)
        try:
            self._load(entry)
        except Exception as exc:
            entry.error, entry.error_code = f"{type(exc).__name__}: {exc}", "plugin_load_failed"

    def _activate(self, entry: _Entry) -> bool:
        try:
            self._load(entry)
            self.pluggy.unblock(entry.name)
            self.pluggy.register(entry.obj, name=entry.name)
            self._refuse_wrappers(entry)
        except Exception as exc:
            entry.error, entry.error_code = f"{type(exc).__name__}: {exc}", "plugin_load_failed"
            entry.enabled = False
            logger.warning("plugin %s dropped: %s", entry.name, entry.error)
            return False
        entry.error = entry.error_code = None
        entry.enabled = True
        entry.hooks = self._hook_names(entry.obj)
        return True

    def _refuse_wrappers(self, entry: _Entry) -> None:
        wrappers = [
            caller.name
            for caller in self.pluggy.get_hookcallers(entry.obj) or []
            for impl in caller.get_hookimpls()
            if impl.plugin is entry.obj and (impl.wrapper or impl.hookwrapper)
        ]
        if wrappers:
            self.pluggy.unregister(entry.obj)
            raise pluggy.PluginValidationError(
                entry.obj, f"hook wrappers are not supported ({', '.join(sorted(wrappers))})"
            )

    def check_pending(self) -> None:
        """Drop, with a warning, every plugin implementing a hook that has no specification."""
        while True:
            try:
                self.pluggy.check_pending()
                return
            except pluggy.PluginValidationError as exc:
                name = self.pluggy.get_name(exc.plugin)
                self.pluggy.unregister(exc.plugin)
                if name is None:
                    return
                entry = self._entries[name]
                entry.enabled = False
                entry.error, entry.error_code = str(exc), "plugin_unknown_hook"
                logger.warning("plugin %s dropped: %s", name, exc)

    def _hook_names(self, obj: Any) -> tuple[str, ...]:
        names = [
            attr for attr in dir(obj) if self.pluggy.parse_hookimpl_opts(obj, attr) is not None
        ]
        return tuple(sorted(names))

    # -- runtime state -----------------------------------------------------------------------

    def required_reason(self, name: str) -> str | None:
        """The reason a plugin declares for being indispensable (``KINBOT_REQUIRED``)."""
        obj = self._entry(name).obj
        reason = getattr(obj, REQUIRED_ATTRIBUTE, None)
        return str(reason) if reason else None

    def description(self, name: str) -> dict[str, str] | None:
        """What a plugin says it does (``KINBOT_DESCRIPTION``), by language; else its
        distribution's summary, in English, unless it is the built-in plugins' one."""
        entry = self._entry(name)
        declared = getattr(entry.obj, DESCRIPTION_ATTRIBUTE, None)
        if isinstance(declared, str) and declared.strip():
            return {"en": declared.strip()}
        if isinstance(declared, dict):
            words = {
                str(language): text.strip()
                for language, text in declared.items()
                if isinstance(text, str) and text.strip()
            }
            if words:
                return words
        if entry.summary and entry.distribution != BUILTIN_DISTRIBUTION:
            return {"en": entry.summary}
        return None

    def enable(self, name: str) -> bool:
        """Enable a plugin (importing it if it was never loaded). Returns whether it worked."""
        entry = self._entry(name)
        if entry.enabled:
            return True
        activated = self._activate(entry)
        if activated:
            self.check_pending()
        return entry.enabled

    def check_can_disable(self, name: str, reason_required: str | None = None) -> None:
        """Raise ``PluginRequired`` if the plugin declares itself required, or with
        ``reason_required`` (the caller's own finding) when given."""
        reason = reason_required or self.required_reason(name)
        if reason:
            raise PluginRequired(name, reason)

    def block(self, name: str) -> None:
        """Stop a plugin's hooks at once, without any check (see ``disable``)."""
        self.pluggy.set_blocked(name)
        self._entry(name).enabled = False

    def disable(self, name: str, *, reason_required: str | None = None) -> None:
        """Disable a plugin unless it is required (``PluginRequired``, with the reason)."""
        self.check_can_disable(name, reason_required)
        self.block(name)

    def is_enabled(self, name: str) -> bool:
        """Whether the plugin is registered and running."""
        return self._entry(name).enabled

    def names(self) -> list[str]:
        """Every known plugin name, sorted."""
        return sorted(self._entries)

    def info(self, name: str) -> PluginInfo:
        """The description of one plugin."""
        entry = self._entry(name)
        return PluginInfo(
            name=entry.name,
            version=entry.version,
            distribution=entry.distribution,
            hooks=entry.hooks,
            enabled=entry.enabled,
            builtin=entry.distribution == BUILTIN_DISTRIBUTION,
            required=self.required_reason(name) if entry.obj is not None else None,
            required_code=None,
            error=entry.error,
            error_code=entry.error_code,
            description=self.description(name),
        )

    def list(self) -> list[PluginInfo]:
        """Every known plugin, sorted by name."""
        return [self.info(name) for name in self.names()]

    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownPlugin(name) from None

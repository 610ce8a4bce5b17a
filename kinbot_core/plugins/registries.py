"""What the enabled plugins contribute, by kind, with the plugin that gave each thing."""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kinbot_core.plugins.caller import HookCaller

logger = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")

#: Registry kind -> the registration hook that fills it.
REGISTRATION_HOOKS = {
    "providers": "register_providers",
    "tools": "register_tools",
    "memory_backends": "register_memory_backends",
    "search_providers": "register_search_providers",
    "routes": "register_routes",
    "channels": "register_channels",
}
#: Kinds the platform cannot run without, and how to name one item in a refusal.
ESSENTIAL_KINDS = {"memory_backends": "memory backend"}
#: Kinds whose names need only be unique within one plugin (routes live under the plugin).
_PLUGIN_SCOPED = {"routes"}


@dataclass(frozen=True)
class Registered(Generic[T]):
    """One contribution: its name, the object, and the plugin that registered it."""

    name: str
    item: T
    plugin: str


class Registry(Generic[T]):
    """Contributions of one kind, by name, in registration order."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._scoped = kind in _PLUGIN_SCOPED
        self._entries: dict[str, Registered[T]] = {}
        #: Every plugin that offered something, including what was refused as a duplicate.
        self.contributors: set[str] = set()
        self._derived: dict[Hashable, Any] = {}

    def add(self, plugin: str, item: T) -> None:
        """Record ``item`` from ``plugin``; a name already taken is refused with a warning."""
        name = getattr(item, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"a registered {self.kind} item needs a non-empty 'name'")
        self.contributors.add(plugin)
        key = f"{plugin}/{name}" if self._scoped else name
        taken = self._entries.get(key)
        if taken is not None:
            logger.warning(
                "%s %r from plugin %s ignored: already registered by %s",
                self.kind,
                name,
                plugin,
                taken.plugin,
            )
            return
        self._entries[key] = Registered(name, item, plugin)
        self._derived.clear()

    def derived(self, key: Hashable, build: Callable[[], D]) -> D:
        """What ``build`` makes of this registry, made once (a rebuild of the registries
        makes new ones: the ``tools`` a turn offers, say)."""
        if key not in self._derived:
            self._derived[key] = build()
        made: D = self._derived[key]
        return made

    def get(self, name: str) -> T | None:
        """The item registered under ``name``, or ``None``."""
        entry = self._entries.get(name)
        return entry.item if entry else None

    def entries(self) -> list[Registered[T]]:
        """Every contribution, in registration order."""
        return list(self._entries.values())

    def plugins(self) -> set[str]:
        """The plugins that contributed to this registry."""
        return {entry.plugin for entry in self._entries.values()}

    def __iter__(self) -> Iterator[T]:
        return (entry.item for entry in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


class Registries:
    """Every registry, rebuilt from the enabled plugins' registration hooks."""

    def __init__(self) -> None:
        self._by_kind: dict[str, Registry[Any]] = {
            kind: Registry(kind) for kind in REGISTRATION_HOOKS
        }
        #: Bumped at each rebuild, so derived structures (the route map) know to refresh.
        self.version = 0

    def __getitem__(self, kind: str) -> Registry[Any]:
        return self._by_kind[kind]

    @property
    def providers(self) -> Registry[Any]:
        return self._by_kind["providers"]

    @property
    def tools(self) -> Registry[Any]:
        return self._by_kind["tools"]

    @property
    def memory_backends(self) -> Registry[Any]:
        return self._by_kind["memory_backends"]

    @property
    def search_providers(self) -> Registry[Any]:
        return self._by_kind["search_providers"]

    @property
    def routes(self) -> Registry[Any]:
        return self._by_kind["routes"]

    @property
    def channels(self) -> Registry[Any]:
        return self._by_kind["channels"]

    async def rebuild(self, hooks: HookCaller) -> None:
        """Call every registration hook and swap the new registries in at once."""
        fresh: dict[str, Registry[Any]] = {}
        for kind, hook_name in REGISTRATION_HOOKS.items():
            # Each plugin's offers are kept aside and committed only if its hook succeeds.
            offers: dict[str, list[Any]] = {}
            failed: set[str] = set()

            def bind(plugin: str, offers: dict[str, list[Any]] = offers) -> dict[str, Any]:
                return {"register": offers.setdefault(plugin, []).append}

            await hooks.call(hook_name, bind=bind, failed=failed)
            registry: Registry[Any] = Registry(kind)
            for plugin, items in offers.items():
                if plugin in failed:
                    continue
                for item in items:
                    try:
                        registry.add(plugin, item)
                    except TypeError as exc:
                        logger.warning("plugin %s: %s", plugin, exc)
            fresh[kind] = registry
        self._by_kind = fresh
        self.version += 1

    def essential_to(self, plugin: str) -> tuple[str, str] | None:
        """Why the platform cannot run without ``plugin``'s contributions, as a code the
        interface words (``only_<kind>``) and an English sentence, or ``None``."""
        for kind, noun in ESSENTIAL_KINDS.items():
            registry = self._by_kind[kind]
            if registry.contributors == {plugin}:
                return f"only_{kind}", f"it provides the only {noun}"
        return None

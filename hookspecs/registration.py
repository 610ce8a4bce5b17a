"""Registration hooks: how a plugin contributes capabilities to the platform.

Each hook receives a ``register`` callable and calls it once per thing contributed, in the
style of simonw/llm. The core calls these hooks at start-up and again whenever a plugin is
enabled or disabled, rebuilding its registries from the enabled plugins only, and records which
plugin gave what. Names are unique per registry: a second registration of a taken name is
refused with a warning naming both plugins. Implementations may be ``async``. An implementation
that raises contributes nothing; the failure is logged and published as ``plugin.error``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookspecs.markers import hookspec


@hookspec
def register_providers(register: Callable[[Any], None]) -> None:
    """Contribute AI provider types (LLM, embedding, image capabilities).

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(provider_type)`` takes a provider type object with a unique ``name`` (the
    provider's ``type`` in its configuration, e.g. ``"anthropic"``); the interface is
    ``kinbot_core.providers.ProviderType``.
    """


@hookspec
def register_tools(register: Callable[[Any], None]) -> None:
    """Contribute native tools Kins may call.

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(tool)`` takes a tool object with a unique ``name``, a ``description``, a JSON
    Schema ``parameters`` and an async ``run``; the interface is ``kinbot_core.tools.Tool``.
    """


@hookspec
def register_memory_backends(register: Callable[[Any], None]) -> None:
    """Contribute long-term memory backends (storage and retrieval of memories).

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(backend)`` takes a backend object with a unique ``name``; the interface is
    ``kinbot_core.memory.MemoryBackend``. The platform needs at least one enabled.
    """


@hookspec
def register_search_providers(register: Callable[[Any], None]) -> None:
    """Contribute web search provider types (Brave Search, SearXNG…).

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(search_provider_type)`` takes an object with a unique ``name``; the interface is
    ``kinbot_core.providers.SearchProviderType``.
    """


@hookspec
def register_routes(register: Callable[[Any], None]) -> None:
    """Contribute HTTP routes, mounted under ``/api/ext/<plugin name>/``.

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(route)`` takes a ``kinbot_core.PluginRoute``: a path (werkzeug syntax, e.g.
    ``/items/<int:item_id>``), its HTTP methods and an async handler that receives the URL
    variables as keyword arguments and returns what a Quart view may return (a dict becomes
    JSON), and who may call it (``access``: signed-in users by default, or administrators, or
    anyone). The route answers 404 as soon as its plugin is disabled.
    """


@hookspec
def register_channels(register: Callable[[Any], None]) -> None:
    """Contribute messaging channel types (Telegram, e-mail…) that connect Kins to people.

    Called at start-up and whenever a plugin is enabled or disabled.

    ``register(channel_type)`` takes a channel type object with a unique ``name`` (the type
    of the connections an administrator configures in Settings, e.g. ``"telegram"``); the
    interface is ``kinbot_core.channels.ChannelType``: its settings model, its message length
    limit, its Markdown formatting, and ``open(settings, inbox)``, which returns a connection
    with a receive loop and ``send``. Connections of a type whose plugin is disabled stop.
    """


@hookspec
def register_events(
    register: Callable[[Any], None], subscribe: Callable[..., Any], platform: Any
) -> None:
    """Declare event types and subscribe to events of the event bus.

    Called once for the plugin when it is enabled: at start-up, or when an administrator
    enables it. ``platform`` is the running ``kinbot_core.platform.Platform``, for handlers
    that act on it (a plugin serving several platforms keeps its state per platform).

    ``register(event_class)`` declares a new event type: a subclass of
    ``kinbot_core.events.Event`` with a unique dotted ``type``. ``subscribe(pattern, handler)``
    calls ``handler(event)`` (sync or async) for every event whose type matches ``pattern``: an
    exact type (``"kin.created"``), a prefix wildcard (``"kin.*"``) or ``"*"``. Subscriptions
    end when the plugin is disabled. A handler that raises is isolated.
    """

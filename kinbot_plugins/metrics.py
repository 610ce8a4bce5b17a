"""Counts events and plugin errors, served in the Prometheus text format.

``GET /api/ext/metrics/prometheus`` (administrators) answers ``kinbot_events_total`` by
event type and ``kinbot_plugin_errors_total`` by plugin and hook, since the process started.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from kinbot_core import Event, PluginRoute, hookimpl
from kinbot_core.events.catalogue import PluginError

events_by_type: Counter[str] = Counter()
plugin_errors: Counter[tuple[str, str]] = Counter()


def count(event: Event) -> None:
    """Count one event (and, for ``plugin.error``, which plugin and hook failed)."""
    events_by_type[event.type] += 1
    if isinstance(event, PluginError):
        plugin_errors[(event.plugin, event.hook)] += 1


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render() -> str:
    """The counters in the Prometheus text exposition format."""
    lines = [
        "# HELP kinbot_events_total Events published on the event bus.",
        "# TYPE kinbot_events_total counter",
    ]
    for event_type, total in sorted(events_by_type.items()):
        lines.append(f'kinbot_events_total{{type="{_label(event_type)}"}} {total}')
    lines += [
        "# HELP kinbot_plugin_errors_total Failures of plugin hooks and event handlers.",
        "# TYPE kinbot_plugin_errors_total counter",
    ]
    for (plugin, hook), total in sorted(plugin_errors.items()):
        lines.append(
            f'kinbot_plugin_errors_total{{plugin="{_label(plugin)}",hook="{_label(hook)}"}} {total}'
        )
    return "\n".join(lines) + "\n"


async def prometheus() -> tuple[str, int, dict[str, str]]:
    return render(), 200, {"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}


@hookimpl
def register_events(subscribe: Callable[..., Any]) -> None:
    subscribe("*", count)


@hookimpl
def register_routes(register: Callable[[PluginRoute], None]) -> None:
    register(PluginRoute("/prometheus", prometheus, access="admin"))

"""Serving the routes plugins contribute, under ``/api/plugins/<plugin>/...``.

Quart cannot add or remove routes once it serves, so one catch-all view matches requests
against a werkzeug map rebuilt whenever the registries change: a disabled plugin's routes
disappear at once, an enabled one's appear.
"""

from __future__ import annotations

from typing import Any

from quart import Blueprint, current_app, request
from werkzeug.exceptions import NotFound
from werkzeug.routing import Map, Rule

from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginRoute
from kinbot_web.app_context import current_platform

blueprint = Blueprint("plugin_routes", __name__)

_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
_CACHE_KEY = "kinbot.plugin_route_map"


def _route_map(platform: Platform) -> Map:
    cached: tuple[int, Map] | None = current_app.extensions.get(_CACHE_KEY)
    if cached is not None and cached[0] == platform.registries.version:
        return cached[1]
    rules = []
    for entry in platform.registries.routes.entries():
        route: PluginRoute = entry.item
        path = "/" + entry.plugin + "/" + route.path.lstrip("/")
        rules.append(Rule(path, methods=list(route.methods), endpoint=route))
    route_map = Map(rules, strict_slashes=False)
    current_app.extensions[_CACHE_KEY] = (platform.registries.version, route_map)
    return route_map


@blueprint.route("/api/plugins/<plugin>/", methods=_METHODS)
@blueprint.route("/api/plugins/<plugin>/<path:rest>", methods=_METHODS)
async def dispatch(plugin: str, rest: str = "") -> Any:
    """Hand the request to the enabled plugin route it matches; 404 or 405 otherwise."""
    adapter = _route_map(current_platform()).bind("")
    try:
        route, arguments = adapter.match(f"/{plugin}/{rest}", method=request.method)
    except NotFound:
        message = f"No route of an enabled plugin matches /api/plugins/{plugin}/{rest}."
        raise NotFound(message) from None
    return await route.handler(**arguments)

"""Serving the routes plugins contribute, under ``/api/ext/<plugin>/...``.

Quart cannot add or remove routes once it serves, so one catch-all view matches requests
against a werkzeug map rebuilt whenever the registries change: a disabled plugin's routes
disappear at once, an enabled one's appear.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from quart import Blueprint, current_app, request
from quart_schema import hide
from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, Rule

from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginRoute
from kinbot_web.app_context import current_platform
from kinbot_web.auth import public
from kinbot_web.auth.access import require
from kinbot_web.errors import ApiError

logger = logging.getLogger(__name__)
blueprint = Blueprint("plugin_routes", __name__)

_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
_CACHE_KEY = "kinbot.plugin_route_map"


def _route_map(platform: Platform) -> Map:
    cached: tuple[int, Map] | None = current_app.extensions.get(_CACHE_KEY)
    if cached is not None and cached[0] == platform.registries.version:
        return cached[1]
    route_map = Map(strict_slashes=False)
    for entry in platform.registries.routes.entries():
        route: PluginRoute = entry.item
        path = "/" + entry.plugin + "/" + route.path.lstrip("/")
        try:
            route_map.add(Rule(path, methods=list(route.methods), endpoint=(entry.plugin, route)))
        except (ValueError, TypeError) as exc:
            logger.warning("plugin %s: route %r ignored: %s", entry.plugin, route.path, exc)
    current_app.extensions[_CACHE_KEY] = (platform.registries.version, route_map)
    return route_map


def _declares_platform(route: PluginRoute) -> bool:
    try:
        return "platform" in inspect.signature(route.handler).parameters
    except (TypeError, ValueError):  # a callable without a signature
        return False


@blueprint.route("/api/ext/<plugin>/", methods=_METHODS)
@blueprint.route("/api/ext/<plugin>/<path:rest>", methods=_METHODS)
@public  # each plugin route declares its own access, checked below
@hide  # not an API of KinBot's own: each plugin documents its routes
async def dispatch(plugin: str, rest: str = "") -> Any:
    """Hand the request to the enabled plugin route it matches; 404 or 405 otherwise."""
    adapter = _route_map(current_platform()).bind("")
    try:
        (owner, route), arguments = adapter.match(f"/{plugin}/{rest}", method=request.method)
    except NotFound:
        message = f"No route of an enabled plugin matches /api/ext/{plugin}/{rest}."
        raise NotFound(message) from None
    require(route.access)
    if _declares_platform(route):
        arguments = {**arguments, "platform": current_platform()}
    try:
        return await route.handler(**arguments)
    except HTTPException:
        raise
    except Exception as exc:
        logger.exception("plugin %s failed in its route %s", owner, route.path)
        current_platform().report_plugin_failure(owner, f"route:{route.path}", exc)
        raise ApiError(500, "plugin_error", f"The plugin {owner!r} failed.") from None

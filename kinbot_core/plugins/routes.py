"""HTTP routes contributed by plugins through ``register_routes``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class PluginRoute:
    """A route mounted under ``/api/ext/<plugin name>``.

    ``path`` uses werkzeug's syntax (``/items/<int:item_id>``); ``handler`` is an async
    function that receives the URL variables as keyword arguments (and the running
    ``Platform`` as ``platform`` when it declares that parameter), reads the request through
    ``quart.request`` if it needs to, and returns what a Quart view may return. ``access``
    says who may call it: ``"user"`` (signed-in users, the default), ``"admin"`` or
    ``"public"``.
    """

    path: str
    handler: Callable[..., Awaitable[Any]]
    methods: tuple[str, ...] = ("GET",)
    access: Literal["public", "user", "admin"] = "user"

    @property
    def name(self) -> str:
        """Unique key of the route within its plugin."""
        return f"{','.join(sorted(self.methods))} {self.path}"

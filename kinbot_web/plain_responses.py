"""Answers already made of JSON's own types skip quart-schema's conversion.

QuartSchema converts whatever a view returns before Quart makes the response. A dict or a
list goes through ``TypeAdapter(dict).dump_python``, which builds a pydantic adapter for
every response: about 0.1 ms of CPU each time, for a value Quart encodes as it is. Such
answers (alone, or with a status) now go straight to Quart; the JSON provider QuartSchema
installed still encodes what they hold (a dataclass, a pydantic model, a date) as the
conversion would have. Anything else, headers given as a dict included (QuartSchema writes
their names in kebab case), is converted as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from quart import Quart

MakeResponse = Callable[[Any], Awaitable[Any]]


def install(app: Quart, plain: MakeResponse) -> None:
    """Route ``app``'s plain JSON answers to ``plain`` (Quart's own ``make_response``,
    taken before QuartSchema wrapped it); the rest to QuartSchema's."""
    converting: MakeResponse = app.make_response

    async def make_response(result: Any) -> Any:
        if _plain_json(result) and not app.config.get("QUART_SCHEMA_CONVERT_CASING"):
            return await plain(result)
        return await converting(result)

    app.make_response = make_response  # type: ignore[method-assign]


def _plain_json(result: Any) -> bool:
    """A dict or list, alone or with an integer status."""
    if isinstance(result, tuple):
        if len(result) != 2 or not isinstance(result[1], int):
            return False
        result = result[0]
    return isinstance(result, dict | list)

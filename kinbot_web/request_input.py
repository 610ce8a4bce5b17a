"""Reading what a request carries without trusting it: JSON bodies decoded strictly (UTF-8,
standard JSON, bounded size and nesting), so that a malformed body is a 400 or 413 with a
message, never a server error, before any view sees it.

The app's ``request_class`` is :class:`BoundedRequest`; every ``validate_request`` of
quart_schema and every ``await request.get_json()`` goes through it.
"""

from __future__ import annotations

from typing import Any

from quart import Request, current_app

from kinbot_web.app_context import current_platform
from kinbot_web.errors import ApiError

#: Deepest nesting of arrays and objects a JSON body may have (no route needs more than a few
#: levels; deeper documents are a way to exhaust recursive code).
JSON_MAX_DEPTH = 32


def _invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_json", message)


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "body_too_large", f"A JSON body may have {max_bytes} bytes at most.")


def _refuse_constant(name: str) -> Any:
    raise _invalid(f"The body is not standard JSON: {name} is not a JSON number.")


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects more than ``limit`` deep;
    iterative, so any depth can be measured."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def parse_json_body(data: bytes, *, max_bytes: int) -> Any:
    """The JSON document in a request body, or ``ApiError``: 413 ``body_too_large`` past
    ``max_bytes``, 400 ``invalid_json`` for a body that is not UTF-8, not standard JSON
    (``NaN`` and ``Infinity`` included) or nested more than ``JSON_MAX_DEPTH`` levels."""
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"The body is not valid UTF-8 (byte {exc.start}).") from None
    try:
        value = current_app.json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise _invalid(f"The body nests deeper than {JSON_MAX_DEPTH} levels.") from None
    except ValueError as exc:  # json.JSONDecodeError, and numbers of too many digits
        raise _invalid(f"The body is not valid JSON: {exc}.") from None
    # Only a body with enough brackets can be too deep: skip the walk for all the others.
    if text.count("[") + text.count("{") > JSON_MAX_DEPTH and nested_deeper_than(
        value, JSON_MAX_DEPTH
    ):
        raise _invalid(f"The body nests deeper than {JSON_MAX_DEPTH} levels.")
    return value


class BoundedRequest(Request):
    """Quart's request, whose JSON body is parsed by :func:`parse_json_body`."""

    async def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        if cache and self._cached_json[silent] is not Ellipsis:
            return self._cached_json[silent]
        if not (force or self.is_json):
            return None
        max_bytes = current_platform().settings.json_body_max_bytes
        try:
            if self.content_length is not None and self.content_length > max_bytes:
                raise _too_large(max_bytes)  # from its declared length, before reading it
            data = await self.get_data(cache=cache, as_text=False, parse_form_data=False)
            result = parse_json_body(data, max_bytes=max_bytes)
        except ApiError:
            if not silent:
                raise
            if cache:
                self._cached_json[True] = None
            return None
        if cache:  # parsed: the same for a silent call and a strict one (the Kin guard's, then
            self._cached_json[True] = self._cached_json[False] = result  # the view's)
        return result

"""Whether a callback's result is to be awaited, asked of every hook's and handler's result."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from types import CoroutineType
from typing import Any, TypeGuard


def is_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
    """``inspect.isawaitable``, answered at once for a coroutine and for ``None`` (what most
    callbacks give): only other objects are asked about through the abstract ``Awaitable``
    class, which is slow to ask."""
    if isinstance(value, CoroutineType):
        return True
    return value is not None and inspect.isawaitable(value)

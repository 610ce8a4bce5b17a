"""Values made of objects that come back turn after turn, found again by the objects' identity."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """What was made of an object, kept while the very same object is asked about again.

    For objects not changed in place (frozen views, a list a service keeps, a plugin's tool):
    asking costs one dictionary lookup. Each object is kept alive with its value, so that no
    other object takes its id meanwhile; at ``limit`` objects, everything is forgotten."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept: dict[int, tuple[object, V]] = {}

    def get(self, source: object) -> V | None:
        """The value kept for ``source``, or ``None``."""
        kept = self._kept.get(id(source))
        return kept[1] if kept is not None and kept[0] is source else None

    def keep(self, source: object, value: V) -> V:
        """Keep ``value`` for ``source``; returns it."""
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[id(source)] = (source, value)
        return value


def identical_prefix(before: Sequence[object], now: Sequence[object]) -> int:
    """How many items ``now`` begins with that are the very objects ``before`` began with
    (what of a kept conversion, made item by item, is still good)."""
    same = list(map(operator.is_, before, now))
    try:
        return same.index(False)
    except ValueError:
        return len(same)

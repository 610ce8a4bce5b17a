"""Pieces of hybrid search: safe FTS5 queries and weighted reciprocal rank fusion."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

_WORD = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression for free text: every word quoted (so no user input is read as
    FTS syntax) and joined with OR; ``None`` when the text has no word."""
    words = dict.fromkeys(word.lower() for word in _WORD.findall(text))
    if not words:
        return None
    return " OR ".join(f'"{word}"' for word in words)


def reciprocal_rank_fusion(
    rankings: Sequence[tuple[float, Sequence[K]]], k: float = 60.0
) -> list[tuple[K, float]]:
    """Fuse ranked lists: each item scores the sum of ``weight / (k + rank)`` over the lists
    it appears in (rank from 1). Returns items by decreasing score; ties keep first seen."""
    scores: dict[K, float] = {}
    for weight, ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])

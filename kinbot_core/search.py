"""Pieces of hybrid search: weighted reciprocal rank fusion (full-text queries and terms are
``kinbot_core.fulltext``'s)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal, TypeVar

K = TypeVar("K", bound=Hashable)

#: Which signals a search uses: both fused (the default), or one alone (for comparison).
SearchMode = Literal["hybrid", "dense", "fulltext"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "dense", "fulltext")


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


def spread_to_neighbours(
    scores: dict[K, float], neighbours: dict[K, Sequence[K]], weight: float
) -> list[tuple[K, float]]:
    """Let each item take ``weight`` times the scores of its neighbours (in a conversation:
    the messages just before and after it), so that a turn whose surroundings match the query
    rises. Only items already scored are ranked. Returns items by decreasing new score."""
    if weight <= 0:
        return sorted(scores.items(), key=lambda pair: -pair[1])
    spread = {
        item: score + weight * sum(scores.get(other, 0.0) for other in neighbours.get(item, ()))
        for item, score in scores.items()
    }
    return sorted(spread.items(), key=lambda pair: -pair[1])

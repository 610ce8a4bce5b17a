"""Pieces of hybrid search: safe FTS5 queries and weighted reciprocal rank fusion."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Literal, TypeVar

K = TypeVar("K", bound=Hashable)

#: Which signals a search uses: both fused (the default), or one alone (for comparison).
SearchMode = Literal["hybrid", "dense", "fulltext"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "dense", "fulltext")

_WORD = re.compile(r"\w+", re.UNICODE)

#: Common English function words: they match nearly every text, so in an OR query they only
#: add noise to the ranking. Words of other languages are kept (harmless, just unhelpful).
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905 (a list this long reads better as text)
)


def fts_query(text: str, *, drop_stop_words: bool = False) -> str | None:
    """An FTS5 MATCH expression for free text: every word quoted (so no user input is read as
    FTS syntax) and joined with OR; ``None`` when the text has no word.

    With ``drop_stop_words``, common English function words are left out, unless the text has
    nothing else."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))
    if drop_stop_words:
        words = [word for word in words if word not in STOP_WORDS] or words
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

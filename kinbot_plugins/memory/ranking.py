"""How the built-in memory backend ranks what its two signals find: the candidate pool each
signal gives, the fusion of the semantic and full-text rankings, and the spread of scores to a
message's neighbours in its session.

Every tunable here is a ``search_*`` setting; ``benchmarks/memory_recall.py --cross-validate``
chooses them on some conversations and measures them on others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kinbot_core.search import SearchMode, reciprocal_rank_fusion, spread_to_neighbours
from kinbot_plugins.memory.time_cues import asks_when, date_cues, says_when, sent_on


def candidates(settings: Any, limit: int) -> int:
    """How many results each signal gives to the fusion: the same pool whatever the limit, so
    that a longer result list only extends a shorter one."""
    return max(int(settings.search_candidates), limit)


def fused(settings: Any, dense: list[int], text: list[int]) -> dict[int, float]:
    """Hybrid scores by weighted reciprocal rank fusion, best first."""
    return dict(
        reciprocal_rank_fusion(
            [(settings.search_weight_dense, dense), (settings.search_weight_fulltext, text)],
            k=settings.search_rrf_k,
        )
    )


def fuse(settings: Any, mode: SearchMode, dense: list[int], text: list[int]) -> list[int]:
    """The ranking of ``mode``: one signal alone, or both fused."""
    if mode == "dense":
        return dense
    if mode == "fulltext":
        return text
    return list(fused(settings, dense, text))


def neighbours(db: Any, kin_id: str, ids: list[int]) -> dict[int, list[int]]:
    """The user/assistant messages just before and after each of ``ids`` in the Kin's
    session (run inside a database read)."""
    found: dict[int, list[int]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.sql(
            "select m.id, (select max(p.id) from message p where p.kin_id = m.kin_id "
            "and p.id < m.id and p.role in ('user', 'assistant')), "
            "(select min(n.id) from message n where n.kin_id = m.kin_id "
            "and n.id > m.id and n.role in ('user', 'assistant')) "
            f"from message m where m.id in ({', '.join('?' * len(chunk))}) and m.kin_id = ?",
            (*chunk, kin_id),
        ).fetchall()
        for message_id, before, after in rows:
            found[message_id] = [other for other in (before, after) if other is not None]
    return found


def history_ranking(
    settings: Any, db: Any, kin_id: str, query: str, dense: list[int], text: list[int]
) -> list[int]:
    """The hybrid ranking of a Kin's messages for ``query`` (run inside a database read):
    both signals fused, each message then taking a share of its neighbours' scores, then the
    time cues of ``time_boosted``."""
    scores = fused(settings, dense, text)
    weight = settings.search_history_neighbour_weight
    if weight > 0 and scores:
        near: dict[int, Sequence[int]] = dict(neighbours(db, kin_id, list(scores)))
        scores = dict(spread_to_neighbours(scores, near, weight))
    scores = time_boosted(settings, db, query, scores)
    return sorted(scores, key=lambda item: -scores[item])


def time_boosted(settings: Any, db: Any, query: str, scores: dict[int, float]) -> dict[int, float]:
    """``scores`` of messages raised by time cues (inside a read): when the question asks when,
    a message that says when gains ``search_when_boost`` of its score; when it names a date,
    a message sent on that date gains ``search_date_boost``."""
    when = settings.search_when_boost if asks_when(query) else 0.0
    cues = date_cues(query) if settings.search_date_boost > 0 else []
    if not scores or (when <= 0 and not cues):
        return scores
    boosted = dict(scores)
    ids = list(scores)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.sql(
            "select id, content, created_at from message "
            f"where id in ({', '.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        for message_id, content, created_at in rows:
            factor = 1.0
            if when > 0 and says_when(content or ""):
                factor += when
            if cues and any(cue.matches(sent_on(created_at)) for cue in cues):
                factor += settings.search_date_boost
            boosted[message_id] *= factor
    return boosted

"""Cross-validated recall: settings chosen on some conversations, measured on another.

    .venv/bin/python -m benchmarks.memory_recall ../shared/data/locomo/locomo-dev.json \\
        --cross-validate [--grid search_rrf_k=2,5,10] [--fixed search_candidates=100]

Each conversation is stored and embedded once (turns as a Kin's messages, observation facts as
its memories, in one real platform database); the platform's settings are then swapped
between searches, nothing is embedded again. For each conversation in turn (a fold), the
settings with the best hybrid recall@10 over the questions of the others are chosen
(coordinate ascent over the grid's values, each search done once and reused by the folds),
and measured on the held-out one in the three modes. Printed per level (turns, observations):
recall@5/10/25 per category and over all questions, as the mean, standard deviation and range
over the folds of the held-out figures.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kinbot_core.platform import Platform
from kinbot_core.search import SEARCH_MODES, SearchMode
from kinbot_core.tools import Speaker, ToolContext

#: The search settings tried by default: the fusion, the candidate pool, the neighbours, and the
#: query and ranking options; each list starts with the setting's default.
GRID: dict[str, list[Any]] = {
    "search_rrf_k": [5.0, 2.0, 10.0],
    "search_weight_fulltext": [1.0, 0.7, 1.4],
    "search_candidates": [100, 50, 200],
    "search_semantic_query": ["question", "statement", "keywords"],
    "search_history_neighbour_weight": [0.1, 0.0, 0.2],
    "search_when_boost": [1.0, 0.0, 0.5],
    "search_date_boost": [1.0, 0.0, 0.5],
}
#: Settings only history search reads (the observation level ignores them).
HISTORY_ONLY = frozenset(
    {"search_history_neighbour_weight", "search_when_boost", "search_date_boost"}
)
LEVELS = ("turns", "observations")
KS = (5, 10, 25)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SELECT_K = 10

#: One question's recall at each of ``KS``, with its category.
Result = tuple[int, tuple[float, ...]]


@dataclass
class Stored:
    """Where one conversation lives in the database, and how to map hits back to turns."""

    turns_kin: str
    by_message: dict[int, str]
    facts_kin: str
    by_memory: dict[int, str]


def parse_value(platform: Platform, name: str, text: str) -> Any:
    """``text`` as the type of setting ``name`` (an unknown name is an error)."""
    current = getattr(platform.settings, name)
    if isinstance(current, bool):
        return text.strip().lower() in ("1", "true", "yes", "on")
    return type(current)(text)


async def store(
    platform: Platform, conversations: Sequence[Any], facts: bool = True
) -> dict[str, Stored]:
    """Each conversation's turns as messages (embedded by the history indexer) and, with
    ``facts``, its observation facts as memories (through the ``memorize`` tool)."""
    from benchmarks.memory_recall import MEMORIZE, new_kin
    from kinbot_plugins.memory.sqlite_memory import backend

    started = time.process_time()
    stored: dict[str, Stored] = {}
    for conversation in conversations:
        turns_kin = await new_kin(platform, conversation.sample_id)
        by_message: dict[int, str] = {}
        for turn in conversation.turns:
            message = await platform.kins.add_message(
                turns_kin, role="user", source="user", sender_name=turn["speaker"],
                content=turn["text"], created_at=turn["time"],
            )  # fmt: skip
            by_message[message.id] = turn["dia_id"]
        facts_kin = await new_kin(platform, conversation.sample_id)
        context = ToolContext(platform, facts_kin, "Bench", Speaker("user", None, "bench"))
        by_memory: dict[int, str] = {}
        for speaker, text, dia_id in conversation.facts if facts else []:
            done = await MEMORIZE.run(
                context, {"content": text, "category": "fact", "subject": speaker}
            )
            by_memory[done["memory"]["id"]] = dia_id
        stored[conversation.sample_id] = Stored(turns_kin, by_message, facts_kin, by_memory)
    await backend.indexer(platform).catch_up()
    print(f"stored and embedded {sum(len(c.turns) for c in conversations)} turns and "
          f"{sum(len(c.facts) for c in conversations) if facts else 0} facts "
          f"({time.process_time() - started:.1f} s of CPU)", flush=True)  # fmt: skip
    return stored


async def search(
    platform: Platform,
    level: str,
    conversation: Any,
    where: Stored,
    settings: dict[str, Any],
    mode: SearchMode,
) -> list[Result]:
    """The recall of each question of ``conversation`` at one level with ``settings``."""
    base = platform.settings
    platform.settings = base.model_copy(update=settings)
    try:
        results: list[Result] = []
        for question in conversation.questions:
            if level == "turns":
                hits = await platform.memory.search_history(
                    where.turns_kin, question.text, limit=max(KS), mode=mode
                )
                found = [where.by_message.get(hit.message_id) for hit in hits]
            else:
                memories = await platform.memory.recall(
                    where.facts_kin, question.text, limit=max(KS), mode=mode
                )
                found = [where.by_memory.get(memory.id) for memory in memories]
            wanted = set(question.evidence)
            results.append(
                (
                    question.category,
                    tuple(len(wanted & set(found[:k])) / len(wanted) for k in KS),
                )
            )
        return results
    finally:
        platform.settings = base


def mean_at(results: Sequence[Result], k: int) -> float:
    return statistics.fmean(r[1][KS.index(k)] for r in results) if results else 0.0


def spread(values: list[float]) -> str:
    """``mean ± stdev (min-max)`` of per-fold percentages."""
    if not values:
        return "-"
    deviation = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.1f} ±{deviation:.1f} ({min(values):.1f}-{max(values):.1f})"


def table(title: str, folds: dict[SearchMode, list[list[Result]]]) -> str:
    """Per mode and category, each ``KS`` as mean ± stdev (min-max) over the folds."""
    lines = [title]
    header = f"{'':<24}" + "".join(f"{'R@' + str(k):<27}" for k in KS)
    for mode in ("dense", "fulltext", "hybrid"):
        lines += [f"{mode}", header]
        rows: list[tuple[str, set[int]]] = [
            (f"{c} {name}", {c}) for c, name in CATEGORIES.items()
        ] + [("all", set(CATEGORIES))]
        for label, categories in rows:
            cells = []
            for k in KS:
                per_fold = [
                    100 * mean_at(kept, k)
                    for results in folds[mode]
                    if (kept := [r for r in results if r[0] in categories])
                ]
                cells.append(f"{spread(per_fold):<27}")
            lines.append(f"  {label:<22}" + "".join(cells))
    return "\n".join(lines)


def describe(settings: dict[str, Any]) -> str:
    return ", ".join(f"{name.removeprefix('search_')}={value}" for name, value in settings.items())


class Searches:
    """Every (level, settings, conversation, mode) searched at most once."""

    def __init__(self, platform: Platform, conversations: Sequence[Any], stored: dict[str, Stored]):
        self.platform, self.stored = platform, stored
        self.conversations = {c.sample_id: c for c in conversations}
        self.done: dict[tuple[str, str, str, str], list[Result]] = {}

    async def results(
        self, level: str, settings: dict[str, Any], sample_id: str, mode: SearchMode = "hybrid"
    ) -> list[Result]:
        key = (level, describe(dict(sorted(settings.items()))), sample_id, mode)
        if key not in self.done:
            self.done[key] = await search(
                self.platform, level, self.conversations[sample_id], self.stored[sample_id],
                settings, mode,
            )  # fmt: skip
        return self.done[key]

    async def score(self, level: str, settings: dict[str, Any], samples: list[str]) -> float:
        """Hybrid recall@``SELECT_K`` over the questions of ``samples``, pooled."""
        pooled = [r for sample in samples for r in await self.results(level, settings, sample)]
        return mean_at(pooled, SELECT_K)


async def choose(
    searches: Searches, level: str, grid: dict[str, list[Any]], fixed: dict[str, Any],
    training: list[str],
) -> tuple[dict[str, Any], float]:  # fmt: skip
    """The settings with the best training score, by coordinate ascent from each list's first
    value: one setting at a time takes its best value, the others held, until none changes
    (a tie keeps the current value)."""
    current = fixed | {name: values[0] for name, values in grid.items()}
    best = await searches.score(level, current, training)
    for _round in range(4):
        changed = False
        for name, values in grid.items():
            for value in values:
                trial = current | {name: value}
                score = await searches.score(level, trial, training)
                if score > best + 1e-12:
                    current, best, changed = trial, score, True
        if not changed:
            break
    return current, best


async def cross_validate(
    platform: Platform,
    conversations: Sequence[Any],
    grid: dict[str, list[Any]],
    fixed: dict[str, Any],
    levels: Sequence[str] = LEVELS,
    stored_hook: Callable[[], None] | None = None,
    before: dict[str, Any] | None = None,
) -> None:
    """Store the conversations (then call ``stored_hook``), choose the settings of ``grid``
    (the others as in ``fixed``) on all conversations but one, and print the held-out figures
    of each of ``levels``. With ``before`` (settings that turn changes off), the same first
    with those settings held, so that both runs share the database and their searches."""
    stored = await store(platform, conversations, facts="observations" in levels)
    if stored_hook is not None:
        stored_hook()
    searches = Searches(platform, conversations, stored)
    variants = [("before", fixed | before), ("after", fixed)] if before else [("", fixed)]
    for level in levels:
        for label, held in variants:
            level_grid = {
                name: values
                for name, values in grid.items()
                if name not in held and not (level == "observations" and name in HISTORY_ONLY)
            }
            await held_out_folds(searches, f"{level} {label}".strip(), level, level_grid, held)


async def held_out_folds(
    searches: Searches, title: str, level: str, grid: dict[str, list[Any]], fixed: dict[str, Any]
) -> None:
    """Each conversation held out in turn: settings chosen on the others, figures printed."""
    started = time.process_time()
    samples = list(searches.conversations)
    folds: dict[SearchMode, list[list[Result]]] = {mode: [] for mode in SEARCH_MODES}
    print(f"\n{title}:", flush=True)
    for held_out in samples:
        training = [sample for sample in samples if sample != held_out] or [held_out]
        chosen, trained = await choose(searches, level, grid, fixed, training)
        for mode in SEARCH_MODES:
            folds[mode].append(await searches.results(level, chosen, held_out, mode))
        start = fixed | {name: values[0] for name, values in grid.items()}
        print(f"  held out {held_out}: chosen {describe(chosen)} "
              f"(training R@{SELECT_K} {100 * trained:.1f}, held-out "
              f"{100 * mean_at(folds['hybrid'][-1], SELECT_K):.1f}; with the first values: "
              f"{100 * await searches.score(level, start, [held_out]):.1f})",
              flush=True)  # fmt: skip
    print(table(f"{title}, held-out folds (mean ±stdev (min-max) over {len(samples)} folds):",
                folds))  # fmt: skip
    print(f"({len(searches.done)} searches of all questions of a conversation so far, "
          f"{time.process_time() - started:.1f} s of CPU)", flush=True)  # fmt: skip

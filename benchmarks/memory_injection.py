"""Tokens of memory injected into a Kin's prompt per turn, on replayed LoCoMo conversations,
and whether a question's evidence is still among them.

    .venv/bin/python -m benchmarks.memory_injection ../shared/data/locomo/locomo-dev.json

The conversation's turns are replayed as the messages of one Kin (the first speaker as the
user, the other as the Kin), in a real platform database with the local embedding model. At
the end of each session its observation facts are memorised (as the extraction would after
it), so memories grow as the conversation goes on. Before each turn the memories for its query
(the turn and the message before it, as a turn builds it) are recalled once with their
relevance (``recall_scored``) and chosen by ``injection.select``:

- before: the injection as it was before issue 23's relevance floors (the
  ``memory_injected_max`` most relevant memories within the token budget, whatever their
  relevance, nothing left out for the session's messages);
- after: with floors ``(memory_injection_min_score, memory_injection_relative_score)``, the
  defaults and, with ``--sweep``, a grid of others, and the "already said" skip.

After the replay, each question of categories 1-4 whose evidence fact has been memorised is
asked as a turn's query; its evidence is injected when one of the chosen memories is a fact of
one of its evidence turns. It prints, per setting, the tokens (estimated as compacting does)
and memories injected per turn (mean, median, p90), the memories left out because the recent
messages already said them, and the share of questions whose evidence is injected. Everything
is local (all-MiniLM-L6-v2, no LLM); figures are counts, not timings.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.embedding_cache import EmbeddingCache
from benchmarks.memory_recall import Conversation, load, new_kin
from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.injection import (
    Scored,
    memory_line,
    recent_messages,
    scored_recall,
    select,
)
from kinbot_plugins.memory.session_overlap import RecentMessage
from kinbot_plugins.memory.sqlite_memory import backend

#: Characters of the previous message added to a turn's query (as ``kins/turn.py`` does).
QUERY_CONTEXT_CHARS = 500
#: The floors tried with ``--sweep``: absolute (cosine) and relative (share of the best).
SWEEP_MIN = (0.0, 0.25, 0.3, 0.35, 0.375, 0.4, 0.45, 0.5)
SWEEP_RELATIVE = (0.0, 0.5, 0.6, 0.7, 0.8)


@dataclass
class Case:
    """One query as injection sees it: the scored recall and the recent messages; for a
    question, the memory ids of its evidence."""

    scored: list[Scored]
    recent: list[RecentMessage]
    evidence: set[int] = field(default_factory=set)


@dataclass
class Replayed:
    """What one conversation's replay measured."""

    sample_id: str
    turns: list[Case] = field(default_factory=list)
    questions: list[Case] = field(default_factory=list)
    memories: int = 0


def _tokens(memories: list[Any]) -> int:
    return sum(estimate_tokens(f"- {memory_line(memory)}\n") for memory in memories)


async def _case(platform: Platform, kin_id: str, query: str) -> Case:
    scored = await scored_recall(backend, platform, kin_id, query)
    return Case(scored, await recent_messages(platform, kin_id))


async def replay(platform: Platform, conversation: Conversation, turns: int) -> Replayed:
    """Replay up to ``turns`` turns of ``conversation``, then ask its questions."""
    kin_id = await new_kin(platform, conversation.sample_id)
    first_speaker = conversation.turns[0]["speaker"]
    facts_by_session: dict[str, list[tuple[str, str, str]]] = {}
    for speaker, text, dia_id in conversation.facts:
        facts_by_session.setdefault(dia_id.split(":")[0], []).append((speaker, text, dia_id))
    result = Replayed(conversation.sample_id)
    memory_ids: dict[str, set[int]] = {}  # by evidence turn
    previous: str | None = None
    session: str | None = None
    for turn in conversation.turns[:turns]:
        this_session = turn["dia_id"].split(":")[0]
        if session is not None and this_session != session:
            for speaker, text, dia_id in facts_by_session.get(session, []):
                stored = await platform.memory.memorize(kin_id, text[:2000], "fact", speaker)
                memory_ids.setdefault(dia_id, set()).add(stored.id)
                result.memories += 1
        session = this_session
        user = turn["speaker"] == first_speaker
        await platform.kins.add_message(
            kin_id, role="user" if user else "assistant", source="user" if user else "kin",
            sender_name=turn["speaker"], content=turn["text"], created_at=turn["time"],
        )  # fmt: skip
        query = turn["text"] + (f"\n{previous[:QUERY_CONTEXT_CHARS]}" if previous else "")
        previous = turn["text"]
        if result.memories:
            result.turns.append(await _case(platform, kin_id, query))
    for question in conversation.questions:
        evidence = set().union(*(memory_ids.get(dia_id, set()) for dia_id in question.evidence))
        if evidence:
            case = await _case(platform, kin_id, question.text)
            case.evidence = evidence
            result.questions.append(case)
    return result


def figures(settings: Any, replayed: list[Replayed], *, skip_said: bool = True) -> dict[str, Any]:
    """Per-turn tokens and memories, memories skipped as already said, and the share of
    questions whose evidence is injected, under ``settings``."""
    tokens: list[int] = []
    counts: list[int] = []
    said = 0
    for case in (case for one in replayed for case in one.turns):
        chosen = select(settings, [], case.scored, case.recent if skip_said else [])
        tokens.append(_tokens(chosen))
        counts.append(len(chosen))
        if skip_said:
            said += len(chosen) < len(select(settings, [], case.scored, []))
    questions = [case for one in replayed for case in one.questions]
    found = [
        bool(case.evidence & {m.id for m in select(settings, [], case.scored, case.recent)})
        for case in questions
    ]
    return {"tokens": tokens, "memories": counts, "turns with a memory said": said,
            "evidence": sum(found), "questions": len(found)}  # fmt: skip


def _summary(name: str, values: list[int]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] if ordered else 0
    mean = statistics.fmean(values) if values else 0.0
    median = statistics.median(values) if values else 0
    return f"  {name:<28}{mean:8.1f}{median:8.1f}{p90:8d}{sum(values):10d}"


def _share(result: dict[str, Any]) -> str:
    share = 100 * result["evidence"] / result["questions"] if result["questions"] else 0.0
    return f"{result['evidence']}/{result['questions']} ({share:.1f} %)"


def report(settings: Any, replayed: list[Replayed], sweep: bool) -> None:
    """Print the before and after figures (and the sweep's)."""
    unfloored = settings.model_copy(
        update={"memory_injection_min_score": -1.0, "memory_injection_relative_score": 0.0}
    )
    before = figures(unfloored, replayed, skip_said=False)
    after = figures(settings, replayed)
    print(f"\n  {'per turn':<28}{'mean':>8}{'median':>8}{'p90':>8}{'total':>10}")
    for name, result in (("before", before), ("after", after)):
        print(_summary(f"tokens injected, {name}", result["tokens"]))
        print(_summary(f"memories injected, {name}", result["memories"]))
    print(f"  turns where a memory was left out as already said (after): "
          f"{after['turns with a memory said']}")  # fmt: skip
    print(f"  questions whose evidence is injected: before {_share(before)}, "
          f"after {_share(after)}")  # fmt: skip
    for one in replayed:
        alone_before = figures(unfloored, [one], skip_said=False)
        alone_after = figures(settings, [one])
        print(f"  {one.sample_id}: tokens per turn {statistics.fmean(alone_before['tokens']):.1f}"
              f" -> {statistics.fmean(alone_after['tokens']):.1f}, evidence injected "
              f"{_share(alone_before)} -> {_share(alone_after)}")  # fmt: skip
    if not sweep:
        return
    print(f"\n  {'min':>6}{'rel':>6}{'tokens':>8}{'memories':>10}  evidence injected")
    for low in SWEEP_MIN:
        for relative in SWEEP_RELATIVE:
            tried = settings.model_copy(
                update={"memory_injection_min_score": low,
                        "memory_injection_relative_score": relative}
            )  # fmt: skip
            result = figures(tried, replayed)
            print(f"  {low:6.3f}{relative:6.2f}{statistics.fmean(result['tokens']):8.1f}"
                  f"{statistics.fmean(result['memories']):10.2f}  {_share(result)}")  # fmt: skip


async def run(
    path: Path, conversations: int, turns: int, sweep: bool, cache_path: Path | None
) -> None:
    loaded = load(path, Counter())[:conversations]
    cache = EmbeddingCache(cache_path)
    with tempfile.TemporaryDirectory() as data_dir:
        platform = Platform(load_settings(data_dir=Path(data_dir) / "data"))
        await platform.start()
        try:
            await platform.providers.add("ai", "local-embeddings", "Local", {})
            cache.wrap(platform)
            replayed: list[Replayed] = []
            for conversation in loaded:
                replayed.append(await replay(platform, conversation, turns))
                one = replayed[-1]
                print(f"conversation {conversation.sample_id}: {len(one.turns)} turns measured, "
                      f"{one.memories} memories at the end, {len(one.questions)} questions "
                      f"with evidence memorised", flush=True)  # fmt: skip
                cache.save()
            settings = platform.settings
            print(f"\nbudget {settings.memory_injected_max_tokens} tokens, at most "
                  f"{settings.memory_injected_max} relevant, floors "
                  f"{settings.memory_injection_min_score} (cosine) and "
                  f"{settings.memory_injection_relative_score} (of the best)")  # fmt: skip
            report(settings, replayed, sweep)
        finally:
            await platform.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=1, help="conversations replayed")
    parser.add_argument("--turns", type=int, default=150, help="turns replayed per conversation")
    parser.add_argument("--sweep", action="store_true", help="also try a grid of floors")
    parser.add_argument("--cache", type=Path, help="a .npz file of embeddings kept between runs")
    arguments = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the live feed's notes about Kins stored directly
    asyncio.run(
        run(arguments.dataset, arguments.conversations, arguments.turns, arguments.sweep,
            arguments.cache)
    )  # fmt: skip


if __name__ == "__main__":
    main()

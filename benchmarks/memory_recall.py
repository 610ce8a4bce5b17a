"""Retrieval quality of memory and history search on a LoCoMo-format file, and search latency.

    .venv/bin/python -m benchmarks.memory_recall ../shared/data/locomo/locomo-dev.json

For every question of categories 1-4 (5, adversarial, has no evidence to find), recall@5, @10
and @25 of its evidence turns, for dense-only, full-text-only and hybrid search, at two levels:

- turns: each conversation's dialogue turns are stored as the messages of one Kin in a real
  platform database, embedded by the backend's background history indexer, and searched with
  ``search_history``;
- observations: the dataset's ``observation`` facts are stored through the ``memorize`` tool
  and searched with ``recall``; a fact counts for the turn it cites.

Recall of a question is the share of its evidence turns found in the top k, averaged over the
questions. Everything runs locally (all-MiniLM-L6-v2, no network, no LLM). Then the p50/p99
latency of ``recall`` over 100,000 generated memories of one Kin (random unit vectors and
texts drawn from a word list, inserted in bulk; the query is embedded by the real model).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks import recall_folds
from benchmarks.embedding_cache import EmbeddingCache
from kinbot_core.config import load_settings
from kinbot_core.db.models import KinRecord
from kinbot_core.fulltext import index_terms
from kinbot_core.platform import Platform
from kinbot_core.search import SEARCH_MODES
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.memory.history_index import vector_bytes
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.tools.memory_tools import TOOLS

KS = (5, 10, 25)
CATEGORIES = (1, 2, 3, 4)
LATENCY_MEMORIES = 100_000
LATENCY_QUERIES = 200
MEMORIZE = next(tool for tool in TOOLS if tool.name == "memorize")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


@dataclass
class Question:
    """A question of categories 1-4 with its (sanitised) evidence turn ids."""

    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    """One LoCoMo sample: its turns, observation facts and answerable questions."""

    sample_id: str
    turns: list[dict[str, Any]] = field(default_factory=list)  # dia_id, speaker, text, time
    facts: list[tuple[str, str, str]] = field(default_factory=list)  # speaker, text, dia_id
    questions: list[Question] = field(default_factory=list)


def dia_ids(raw: Any) -> list[str]:
    """Evidence ids as ``D<session>:<turn>``, repairing forms like ``D:11:26`` or
    ``D8:6; D9:17``."""
    values = raw if isinstance(raw, list) else [raw]
    found: list[str] = []
    for value in values:
        for session, turn in _DIA_ID.findall(str(value)):
            found.append(f"D{int(session)}:{int(turn)}")
    return list(dict.fromkeys(found))


def session_time(text: str) -> float:
    """``1:56 pm on 8 May, 2023`` as a UTC timestamp (0 if unreadable)."""
    try:
        moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return 0.0
    return moment.replace(tzinfo=UTC).timestamp()


def turn_text(turn: dict[str, Any]) -> str:
    """What the speaker said, with the description of a shared photo when there is one."""
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def load(path: Path, skipped: Counter[str]) -> list[Conversation]:
    """The conversations of a LoCoMo-format file; ``skipped`` counts questions left out."""
    conversations: list[Conversation] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = Conversation(str(sample.get("sample_id", len(conversations))))
        dialogue = sample["conversation"]
        sessions = sorted(
            (int(key.split("_")[1]), value)
            for key, value in dialogue.items()
            if re.fullmatch(r"session_\d+", key) and isinstance(value, list)
        )
        for number, turns in sessions:
            start = session_time(str(dialogue.get(f"session_{number}_date_time", "")))
            for index, turn in enumerate(turns):
                (dia_id,) = dia_ids(turn["dia_id"]) or [turn["dia_id"]]
                conversation.turns.append(
                    {
                        "dia_id": dia_id,
                        "speaker": turn["speaker"],
                        "text": turn_text(turn),
                        "time": start + index,
                    }
                )
        for per_speaker in (sample.get("observation") or {}).values():
            for speaker, facts in per_speaker.items():
                for fact in facts:
                    for dia_id in dia_ids(fact[1])[:1]:
                        conversation.facts.append((speaker, str(fact[0]), dia_id))
        known = {turn["dia_id"] for turn in conversation.turns}
        for qa in sample.get("qa", []):
            category = qa.get("category")
            if category not in CATEGORIES:
                skipped[f"category {category} (adversarial: no evidence to retrieve)"] += 1
                continue
            evidence = [dia_id for dia_id in dia_ids(qa.get("evidence", [])) if dia_id in known]
            if not evidence:
                skipped["no evidence id found among the turns"] += 1
                continue
            conversation.questions.append(Question(str(qa["question"]), category, evidence))
        conversations.append(conversation)
    return conversations


class Scores:
    """Recall@k per mode, averaged over questions."""

    def __init__(self) -> None:
        self.values: dict[str, dict[int, list[float]]] = {
            mode: {k: [] for k in KS} for mode in SEARCH_MODES
        }

    def add(self, mode: str, question: Question, found: Sequence[str | None]) -> None:
        wanted = set(question.evidence)
        for k in KS:
            top = set(found[:k])
            self.values[mode][k].append(len(wanted & top) / len(wanted))

    def table(self, title: str) -> str:
        lines = [title, f"{'mode':<10}" + "".join(f"{'R@' + str(k):>8}" for k in KS)]
        for mode in ("dense", "fulltext", "hybrid"):
            cells = "".join(f"{100 * statistics.fmean(self.values[mode][k]):8.1f}" for k in KS)
            lines.append(f"{mode:<10}{cells}")
        return "\n".join(lines)


async def new_kin(platform: Platform, name: str) -> str:
    """A Kin stored directly (no LLM is configured: nothing here talks to a model)."""
    kin_id = uuid.uuid4().hex
    workspace = platform.settings.data_dir / "workspaces" / kin_id
    await platform.db.write(
        lambda: KinRecord.create(id=kin_id, name=name, model="none/none", workspace=str(workspace))
    )
    return kin_id


async def turn_level(platform: Platform, conversations: list[Conversation]) -> Scores:
    """Turns as messages, embedded by the history indexer, found by ``search_history``."""
    kins: dict[str, tuple[str, dict[int, str]]] = {}
    started = time.perf_counter()
    for conversation in conversations:
        kin_id = await new_kin(platform, conversation.sample_id)
        by_message: dict[int, str] = {}
        for turn in conversation.turns:
            message = await platform.kins.add_message(
                kin_id, role="user", source="user", sender_name=turn["speaker"],
                content=turn["text"], created_at=turn["time"],
            )  # fmt: skip
            by_message[message.id] = turn["dia_id"]
        kins[conversation.sample_id] = (kin_id, by_message)
    await backend.indexer(platform).catch_up()  # what the background indexer has not done yet
    embedded = sum(len(c.turns) for c in conversations)
    elapsed = time.perf_counter() - started
    print(f"stored and embedded {embedded} turns in {elapsed:.1f} s", flush=True)
    scores = Scores()
    for conversation in conversations:
        kin_id, by_message = kins[conversation.sample_id]
        for question in conversation.questions:
            for mode in SEARCH_MODES:
                hits = await platform.memory.search_history(
                    kin_id, question.text, limit=max(KS), mode=mode
                )
                scores.add(mode, question, [by_message.get(hit.message_id) for hit in hits])
    return scores


async def observation_level(
    platform: Platform, conversations: list[Conversation]
) -> tuple[Scores, float]:
    """Observation facts through the ``memorize`` tool, found by ``recall``. Also returns the
    share of evidence turns that some fact cites (the ceiling of this level)."""
    scores = Scores()
    cited = total = 0
    for conversation in conversations:
        kin_id = await new_kin(platform, conversation.sample_id)
        context = ToolContext(platform, kin_id, "Bench", Speaker("user", None, "bench"))
        by_memory: dict[int, str] = {}
        for speaker, text, dia_id in conversation.facts:
            stored = await MEMORIZE.run(
                context, {"content": text, "category": "fact", "subject": speaker}
            )
            by_memory[stored["memory"]["id"]] = dia_id
        covered = set(by_memory.values())
        for question in conversation.questions:
            total += len(question.evidence)
            cited += sum(1 for dia_id in question.evidence if dia_id in covered)
            for mode in SEARCH_MODES:
                found = await platform.memory.recall(
                    kin_id, question.text, limit=max(KS), mode=mode
                )
                scores.add(mode, question, [by_memory.get(memory.id) for memory in found])
    return scores, (100 * cited / total if total else 0.0)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def latency(platform: Platform, count: int, queries: list[str]) -> dict[str, float]:
    """p50/p99 (ms) of ``recall`` over ``count`` generated memories of one Kin."""
    import numpy

    kin_id = await new_kin(platform, "latency")
    first = await platform.memory.memorize(kin_id, "The benchmark starts here.", "fact")
    dimension = len((await platform.providers.embed(["probe"]))[0])
    words = sorted({w.lower() for q in queries for w in re.findall(r"[a-zA-Z]{3,}", q)})
    words += [f"word{i}" for i in range(2000)]
    rng = random.Random(7)
    vectors = numpy.random.default_rng(7).standard_normal((count, dimension)).astype("float32")
    vectors /= numpy.linalg.norm(vectors, axis=1, keepdims=True)
    model = await platform.providers.embedding_model()
    db, now = platform.db, time.time()

    def insert(start: int, stop: int) -> None:
        rows = [(first.id + 1 + i, " ".join(rng.choices(words, k=12))) for i in range(start, stop)]
        connection = db.peewee.connection()  # type: ignore[no-untyped-call]
        connection.executemany(
            "insert into memory (id, kin_id, content, category, subject, embedding_model, "
            "dimension, created_at, updated_at) values (?, ?, ?, 'fact', '', ?, ?, ?, ?)",
            [(i, kin_id, text, model, dimension, now, now) for i, text in rows],
        )
        connection.executemany(
            "insert into memory_fts (rowid, content, subject) values (?, ?, '')",
            [(i, index_terms(text)) for i, text in rows],
        )
        connection.executemany(
            f"insert into memory_vec_{dimension} (rowid, kin_id, embedding) values (?, ?, ?)",
            [(i, kin_id, vector_bytes(vectors[i - first.id - 1].tolist())) for i, _ in rows],
        )

    started = time.perf_counter()
    for start in range(0, count, 10_000):
        await db.write(insert, start, min(count, start + 10_000))
    backend.vectors.invalidate(kin_id)  # written without the backend
    print(f"inserted {count} memories in {time.perf_counter() - started:.1f} s", flush=True)
    for query in queries[:5]:  # warm the caches and the model
        await platform.memory.recall(kin_id, query)
    results: dict[str, float] = {}
    for mode in SEARCH_MODES:
        timings = []
        for query in queries:
            begin = time.perf_counter()
            await platform.memory.recall(kin_id, query, limit=10, mode=mode)
            timings.append(1000 * (time.perf_counter() - begin))
        results[f"{mode} p50"] = _percentile(timings, 0.5)
        results[f"{mode} p99"] = _percentile(timings, 0.99)
    return results


@dataclass
class Folds:
    """The cross-validation asked for: grid dimensions replaced and settings fixed, as text."""

    grid: dict[str, list[str]]
    fixed: dict[str, str]
    cache: Path | None
    levels: tuple[str, ...] = recall_folds.LEVELS
    before: dict[str, str] = field(default_factory=dict)


async def run(
    path: Path, latency_memories: int, latency_queries: int, folds: Folds | None = None
) -> None:
    skipped: Counter[str] = Counter()
    conversations = load(path, skipped)
    asked = sum(len(c.questions) for c in conversations)
    print(f"{path.name}: {len(conversations)} conversations, "
          f"{sum(len(c.turns) for c in conversations)} turns, "
          f"{sum(len(c.facts) for c in conversations)} observation facts, "
          f"{asked} questions of categories 1-4 evaluated")  # fmt: skip
    for reason, count in sorted(skipped.items()):
        print(f"skipped {count} questions: {reason}")
    with tempfile.TemporaryDirectory() as data_dir:
        platform = Platform(load_settings(data_dir=Path(data_dir) / "data"))
        await platform.start()
        try:
            await platform.providers.add("ai", "local-embeddings", "Local", {})
            if folds is not None:
                await cross_validated(platform, conversations, folds)
                return
            turns = await turn_level(platform, conversations)
            print(turns.table("\nturn level (search_history over the dialogue turns)"), flush=True)
            facts, ceiling = await observation_level(platform, conversations)
            print(facts.table("\nobservation level (recall over the observation facts)"))
            print(f"(evidence turns cited by some observation fact: {ceiling:.1f} %)")
            if latency_memories:
                queries = [q.text for c in conversations for q in c.questions]
                queries = (queries * (latency_queries // max(1, len(queries)) + 1))[
                    :latency_queries
                ]
                timings = await latency(platform, latency_memories, queries)
                print(f"\nrecall over {latency_memories} memories of one Kin "
                      f"({len(queries)} queries, limit 10, ms):")  # fmt: skip
                for name, value in timings.items():
                    print(f"  {name}: {value:.1f}")
        finally:
            await platform.stop()


async def cross_validated(
    platform: Platform, conversations: list[Conversation], folds: Folds
) -> None:
    """``recall_folds.cross_validate`` with the grid and fixed settings of the command line,
    each text embedded once (and kept in ``folds.cache`` when given)."""
    cache = EmbeddingCache(folds.cache)
    cache.wrap(platform)
    grid = dict(recall_folds.GRID)
    for name, values in folds.grid.items():
        grid[name] = [recall_folds.parse_value(platform, name, value) for value in values]
    fixed = {
        name: recall_folds.parse_value(platform, name, value) for name, value in folds.fixed.items()
    }
    grid = {name: values for name, values in grid.items() if name not in fixed}
    before = {
        name: recall_folds.parse_value(platform, name, value)
        for name, value in folds.before.items()
    }
    try:
        await recall_folds.cross_validate(
            platform, conversations, grid, fixed, folds.levels, cache.save, before
        )
    finally:
        cache.save()
    print(f"\n{cache.embedded} texts embedded, {cache.reused} embeddings reused")


def _pairs(values: list[str], separator: str) -> dict[str, list[str]]:
    pairs: dict[str, list[str]] = {}
    for value in values:
        name, _, listed = value.partition("=")
        if not listed:
            sys.exit(f"expected NAME=VALUE{separator}...: {value}")
        pairs[name.strip()] = [item.strip() for item in listed.split(separator)]
    return pairs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument(
        "--latency-memories",
        type=int,
        default=LATENCY_MEMORIES,
        help="generated memories for the latency measure (0: skip it)",
    )
    parser.add_argument(
        "--latency-queries",
        type=int,
        default=LATENCY_QUERIES,
        help="queries timed per search mode in the latency measure",
    )
    parser.add_argument(
        "--cross-validate",
        action="store_true",
        help="choose the search settings on all conversations but one, measure on that one",
    )
    parser.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="SETTING=V1,V2",
        help="values tried for a setting in the cross-validation (replaces the default list)",
    )
    parser.add_argument(
        "--fixed",
        action="append",
        default=[],
        metavar="SETTING=VALUE",
        help="a setting held at one value in the cross-validation",
    )
    parser.add_argument(
        "--before",
        action="append",
        default=[],
        metavar="SETTING=VALUE",
        help="cross-validate first with this setting held (a change turned off), then without",
    )
    parser.add_argument(
        "--levels",
        default=",".join(recall_folds.LEVELS),
        help="levels cross-validated: turns, observations or both (comma-separated)",
    )
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        help="a .npz file keeping the cross-validation's embeddings between runs",
    )
    arguments = parser.parse_args(argv)
    path = arguments.dataset.expanduser()
    if not path.is_file():
        sys.exit(f"no such file: {path}")
    folds = None
    if arguments.cross_validate:
        fixed = {name: values[0] for name, values in _pairs(arguments.fixed, "=").items()}
        levels = tuple(arguments.levels.split(","))
        before = {name: values[0] for name, values in _pairs(arguments.before, "=").items()}
        grid = _pairs(arguments.grid, ",")
        folds = Folds(grid, fixed, arguments.embedding_cache, levels, before)
    asyncio.run(run(path.resolve(), arguments.latency_memories, arguments.latency_queries, folds))


if __name__ == "__main__":
    main()

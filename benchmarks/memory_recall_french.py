"""Retrieval quality of memory search in French, on the French family set.

    .venv/bin/python -m benchmarks.memory_recall_french

The memories of ``benchmarks/french_family.py`` are stored through the memory backend in a
real platform database (local embedding model, no network) and each question is searched
with ``recall``. Recall@5 and @10 of the memories answering it, per kind of question
(inflection, accents, paraphrase) and in all, for:

- today's full-text search (``fulltext``), the semantic one (``dense``) and both fused
  (``hybrid``), as the backend does them;
- ``fulltext-en`` and ``hybrid-en``: the full-text search KinBot had before it read French
  (FTS5's English porter stemmer on the raw text, English stop words left out of queries),
  alone and fused with the same dense ranking, for comparison.

The dense ranking comes from the local model the platform ships (all-MiniLM-L6-v2), which
was trained on English: its figures show what a French family gets without a multilingual
embedding model. ``--embeddings-url`` measures another one served by an OpenAI-compatible
server instead (see "Memory in French" in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.french_family import KINDS, MEMORIES, QUESTIONS, FamilyQuestion
from kinbot_core.config import load_settings
from kinbot_core.db.models import KinRecord
from kinbot_core.platform import Platform
from kinbot_core.search import SEARCH_MODES, reciprocal_rank_fusion
from kinbot_plugins.memory.sqlite_memory import backend

KS = (5, 10)
MODES = ("fulltext-en", "fulltext", "dense", "hybrid-en", "hybrid")

#: English function words the full-text queries left out before French was read.
_OLD_STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905 (the list as it was)
)
_WORD = re.compile(r"\w+", re.UNICODE)


def english_only_query(text: str) -> str | None:
    """The MATCH expression full-text search built before it read French."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))
    words = [word for word in words if word not in _OLD_STOP_WORDS] or words
    return " OR ".join(f'"{word}"' for word in words) if words else None


class Recall:
    """Recall@k per mode and per kind of question."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str, int], list[float]] = {}

    def add(self, mode: str, question: FamilyQuestion, ranking: Sequence[int]) -> None:
        wanted = set(question.answers)
        for k in KS:
            found = len(wanted & set(ranking[:k])) / len(wanted)
            for kind in (question.kind, "all"):
                self.values.setdefault((mode, kind, k), []).append(found)

    def table(self) -> str:
        kinds = (*KINDS, "all")
        header = f"{'mode':<12}" + "".join(
            f"{kind + ' R@' + str(k):>17}" for kind in kinds for k in KS
        )
        lines = [header]
        for mode in MODES:
            cells = "".join(
                f"{100 * statistics.fmean(self.values[(mode, kind, k)]):17.1f}"
                for kind in kinds
                for k in KS
            )
            lines.append(f"{mode:<12}{cells}")
        return "\n".join(lines)


async def new_kin(platform: Platform) -> str:
    """A Kin stored directly (no chat model is configured: nothing here talks to one)."""
    kin_id = uuid.uuid4().hex
    workspace = str(platform.settings.data_dir / "workspaces" / kin_id)
    await platform.db.write(
        lambda: KinRecord.create(
            id=kin_id, name="Majordome", model="none/none", workspace=workspace
        )
    )
    return kin_id


async def store_family(platform: Platform) -> tuple[str, list[int]]:
    """A Kin holding the family's memories (stored through the backend) and their ids, in
    the order of ``MEMORIES``; the English-only index of before is filled beside them."""
    kin_id = await new_kin(platform)
    ids = []
    for memory in MEMORIES:
        stored = await backend.memorize(platform, kin_id, memory.content, "fact", memory.subject)
        ids.append(stored.id)
    db = platform.db

    def english_index() -> None:
        db.sql(
            "create virtual table english_fts using fts5("
            "content, subject, tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        for memory_id, memory in zip(ids, MEMORIES, strict=True):
            db.sql(
                "insert into english_fts (rowid, content, subject) values (?, ?, ?)",
                (memory_id, memory.content, memory.subject),
            )

    await db.write(english_index)
    return kin_id, ids


async def english_only(platform: Platform, query: str, limit: int) -> list[int]:
    match = english_only_query(query)
    if match is None:
        return []
    db = platform.db
    rows = await db.read(
        lambda: db.sql(
            "select rowid from english_fts where english_fts match ? order by bm25(english_fts) "
            "limit ?",
            (match, limit),
        ).fetchall()
    )
    return [row[0] for row in rows]


async def measure(platform: Platform) -> Recall:
    """Recall of every mode on the French family set, in ``platform``."""
    kin_id, ids = await store_family(platform)
    index_of = {memory_id: index for index, memory_id in enumerate(ids)}
    settings = platform.settings
    pool = max(settings.search_candidates, max(KS))
    recall = Recall()
    for question in QUESTIONS:
        rankings: dict[str, list[int]] = {}
        for mode in SEARCH_MODES:
            found = await platform.memory.recall(kin_id, question.text, limit=pool, mode=mode)
            rankings[mode] = [memory.id for memory in found]
        rankings["fulltext-en"] = await english_only(platform, question.text, pool)
        fused = reciprocal_rank_fusion(
            [
                (settings.search_weight_dense, rankings["dense"]),
                (settings.search_weight_fulltext, rankings["fulltext-en"]),
            ],
            k=settings.search_rrf_k,
        )
        rankings["hybrid-en"] = [memory_id for memory_id, _score in fused]
        for name, ranking in rankings.items():
            recall.add(name, question, [index_of[memory_id] for memory_id in ranking])
    return recall


async def run(embeddings_url: str | None = None, embeddings_model: str | None = None) -> Recall:
    """Measure in a fresh platform with the local embedding model, or with the embedding
    model of the OpenAI-compatible server at ``embeddings_url``; returns the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        platform = Platform(load_settings(data_dir=Path(scratch) / "data"))
        await platform.start()
        try:
            if embeddings_url:
                config = {"base_url": embeddings_url, "embedding_model": embeddings_model or ""}
                await platform.providers.add("ai", "openai-compatible", "Embeddings", config)
            else:
                await platform.providers.add("ai", "local-embeddings", "Local", {})
            print(f"embedding model: {await platform.providers.embedding_model()}")
            return await measure(platform)
        finally:
            await platform.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--embeddings-url",
        help="embed with this OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1) "
        "instead of the bundled English model",
    )
    parser.add_argument("--embeddings-model", help="the server's embedding model name")
    arguments = parser.parse_args(argv)
    by_kind = {kind: sum(q.kind == kind for q in QUESTIONS) for kind in KINDS}
    print(f"French family set: {len(MEMORIES)} memories, {len(QUESTIONS)} questions "
          f"({', '.join(f'{count} {kind}' for kind, count in by_kind.items())})")  # fmt: skip
    recall: Any = asyncio.run(run(arguments.embeddings_url, arguments.embeddings_model))
    print(recall.table())


if __name__ == "__main__":
    main()

"""How close nonsense comes to a Kin's messages in meaning, and what a similarity floor on
history search's semantic signal costs real questions (``history_search_min_score``).

    .venv/bin/python -m benchmarks.history_search_floor ../shared/data/locomo/locomo-dev.json

Each LoCoMo conversation's turns are stored as one Kin's messages and embedded by the history
indexer, as in ``memory_recall``. Then:

- for queries nothing in a conversation is like (``NONSENSE``), the best cosine similarity of
  any turn to each (what a floor must stay above for them to find nothing);
- for every question of categories 1-4, the cosine similarity of its evidence turns among the
  semantic signal's candidates, and of those the full-text signal does not find (the ones a
  floor could take away);
- hybrid recall@10 and @25 of the questions' evidence with each floor of ``--floors`` (none:
  the search as the Kin's own tool and ``memory_recall`` run it).

Everything is local (all-MiniLM-L6-v2, no network, no LLM); the figures are counts and
similarities, not timings.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.memory_recall import Conversation, load, new_kin
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.history_index import message_vec_table, vector_bytes
from kinbot_plugins.memory.sqlite_memory import backend

NONSENSE = (
    "zzzqqq", "zzz", "qqq", "jjjjjjj", "kkkkk", "aaaa", "sdfsdfsdf", "asdfgh jkl",
    "qwertyuiop", "xyzzy plugh", "xkcd blorp", "fnord", "blah", "hmm", "ok", "123456",
    "lorem ipsum dolor",
)  # fmt: skip
CANDIDATES = 100
KS = (10, 25)


async def similarities(platform: Platform, kin_id: str, query: str) -> dict[int, float]:
    """The semantic signal's candidates for ``query`` with their cosine similarity."""
    (vector,) = await platform.providers.embed([query])
    table, db = message_vec_table(len(vector)), platform.db

    def knn() -> dict[int, float]:
        rows = db.sql(
            f"select rowid, distance from {table} where embedding match ? and k = ? "
            "and kin_id = ? order by distance",
            (vector_bytes(vector), CANDIDATES, kin_id),
        ).fetchall()
        return {message_id: 1.0 - distance for message_id, distance in rows}

    found: dict[int, float] = await db.read(knn)
    return found


async def store(platform: Platform, conversation: Conversation) -> tuple[str, dict[int, str]]:
    """The conversation as a Kin's messages; the Kin and each message's turn id."""
    kin_id = await new_kin(platform, conversation.sample_id)
    turns: dict[int, str] = {}
    for turn in conversation.turns:
        message = await platform.kins.add_message(
            kin_id, role="user", source="user", sender_name=turn["speaker"],
            content=turn["text"], created_at=turn["time"],
        )  # fmt: skip
        turns[message.id] = turn["dia_id"]
    return kin_id, turns


async def run(path: Path, count: int | None, floors: list[float | None]) -> None:
    conversations = load(path, Counter())[:count]
    with tempfile.TemporaryDirectory() as data_dir:
        platform = Platform(load_settings(data_dir=Path(data_dir) / "data"))
        await platform.start()
        try:
            await platform.providers.add("ai", "local-embeddings", "Local", {})
            kins = [(c, *await store(platform, c)) for c in conversations]
            await backend.indexer(platform).catch_up()
            print(f"{len(kins)} conversations, {sum(len(c.turns) for c in conversations)} "
                  f"turns embedded")  # fmt: skip
            print("\nnonsense: best cosine similarity of any turn")
            for query in NONSENSE:
                best = [max((await similarities(platform, k, query)).values()) for _, k, _ in kins]
                print(f"  {query!r:<22}{max(best):.3f}")
            evidence: list[float] = []
            by_meaning_alone: list[float] = []
            recall: dict[tuple[float | None, int], list[float]] = {}
            for conversation, kin_id, turns in kins:
                for question in conversation.questions:
                    near = await similarities(platform, kin_id, question.text)
                    words = await platform.memory.search_history(
                        kin_id, question.text, limit=CANDIDATES, mode="fulltext"
                    )
                    by_words = {hit.message_id for hit in words}
                    for message_id, similarity in near.items():
                        if turns[message_id] in question.evidence:
                            evidence.append(similarity)
                            if message_id not in by_words:
                                by_meaning_alone.append(similarity)
                    for floor in floors:
                        hits = await platform.memory.search_history(
                            kin_id, question.text, limit=max(KS), min_similarity=floor
                        )
                        for k in KS:
                            top = {turns.get(hit.message_id) for hit in hits[:k]}
                            wanted = set(question.evidence)
                            recall.setdefault((floor, k), []).append(
                                len(wanted & top) / len(wanted)
                            )
            twentieths = statistics.quantiles(evidence, n=20)
            print(f"\nevidence turns among the semantic candidates: {len(evidence)}, cosine "
                  f"p5 {twentieths[0]:.3f}, median {statistics.median(evidence):.3f}")  # fmt: skip
            print(f"of which the full-text signal does not find: {len(by_meaning_alone)}")
            print(f"\n{'floor':<8}{'kept':>8}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
            for floor in floors:
                kept = sum(1 for s in by_meaning_alone if floor is None or s >= floor)
                share = 100 * kept / max(1, len(by_meaning_alone))
                cells = "".join(f"{100 * statistics.fmean(recall[(floor, k)]):8.1f}" for k in KS)
                print(f"{'none' if floor is None else floor:<8}{share:7.1f}%{cells}")
        finally:
            await platform.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=None, help="the first N only")
    parser.add_argument(
        "--floors", default="none,0.3,0.35,0.4", help="comma-separated ('none': no floor)"
    )
    args = parser.parse_args()
    floors = [None if f == "none" else float(f) for f in args.floors.split(",")]
    asyncio.run(run(args.path, args.conversations, floors))


if __name__ == "__main__":
    main()

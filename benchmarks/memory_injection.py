"""Tokens of memory injected into a Kin's prompt per turn, on a replayed LoCoMo conversation.

    .venv/bin/python -m benchmarks.memory_injection ../shared/data/locomo/locomo-dev.json

The conversation's turns are replayed as the messages of one Kin (the first speaker as the
user, the other as the Kin), in a real platform database with the local embedding model. At
the end of each session its observation facts are memorised (as the extraction would after
it), so memories grow as the conversation goes on. Before each turn the memories for its query
(the turn and the message before it, as a turn builds it) are chosen twice:

- before: the injection as it was (the ``memory_injected_max`` most relevant memories, in
  order, until one passes the token budget);
- after: the backend's ``prompt_context`` (``kinbot_plugins/memory/injection.py``).

It prints the tokens (estimated as compacting does) and memories injected per turn (mean,
median, p90), how many were left out because the recent messages already said them, and,
from the usage counters, how many memories were never injected and the most injected one's
count. Everything is local (all-MiniLM-L6-v2, no LLM); figures are counts, not timings.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.memory_recall import Conversation, load, new_kin
from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.injection import memory_line
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.memory.usage import usage_of

#: Characters of the previous message added to a turn's query (as ``kins/turn.py`` does).
QUERY_CONTEXT_CHARS = 500


def _tokens(lines: list[str]) -> int:
    return sum(estimate_tokens(f"- {line}\n") for line in lines)


async def before(platform: Platform, kin_id: str, query: str) -> list[str]:
    """The injection before issue 23: relevance order, stop at the first that passes."""
    settings = platform.settings
    found = await backend.recall(platform, kin_id, query, limit=settings.memory_injected_max)
    budget, lines = settings.memory_injected_max_tokens, []
    for memory in found:
        line = memory_line(memory)
        cost = estimate_tokens(f"- {line}\n")
        if cost > budget:
            break
        budget -= cost
        lines.append(line)
    return lines


def _summary(name: str, values: list[int]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] if ordered else 0
    mean = statistics.fmean(values) if values else 0.0
    median = statistics.median(values) if values else 0
    return f"  {name:<28}{mean:8.1f}{median:8.1f}{p90:8d}{sum(values):10d}"


async def replay(platform: Platform, conversation: Conversation, turns: int) -> dict[str, Any]:
    """Replay up to ``turns`` turns of ``conversation``; the per-turn figures."""
    kin_id = await new_kin(platform, conversation.sample_id)
    first_speaker = conversation.turns[0]["speaker"]
    facts_by_session: dict[str, list[tuple[str, str]]] = {}
    for speaker, text, dia_id in conversation.facts:
        facts_by_session.setdefault(dia_id.split(":")[0], []).append((speaker, text))
    figures: dict[str, list[int]] = {
        "before tokens": [],
        "after tokens": [],
        "before memories": [],
        "after memories": [],
    }
    previous: str | None = None
    session: str | None = None
    memorised = 0
    for turn in conversation.turns[:turns]:
        this_session = turn["dia_id"].split(":")[0]
        if session is not None and this_session != session:
            for speaker, text in facts_by_session.get(session, []):
                await platform.memory.memorize(kin_id, text[:2000], "fact", speaker)
                memorised += 1
        session = this_session
        user = turn["speaker"] == first_speaker
        await platform.kins.add_message(
            kin_id, role="user" if user else "assistant", source="user" if user else "kin",
            sender_name=turn["speaker"], content=turn["text"], created_at=turn["time"],
        )  # fmt: skip
        query = turn["text"] + (f"\n{previous[:QUERY_CONTEXT_CHARS]}" if previous else "")
        previous = turn["text"]
        if not memorised:
            continue
        old = await before(platform, kin_id, query)
        new = (await backend.prompt_context(platform, kin_id, query)).memories
        figures["before tokens"].append(_tokens(old))
        figures["after tokens"].append(_tokens(new))
        figures["before memories"].append(len(old))
        figures["after memories"].append(len(new))
    usage = await usage_of(platform).figures(kin_id)
    injected = Counter({memory_id: f.injected_count for memory_id, f in usage.items()})
    return {
        "figures": figures,
        "memories": memorised,
        "never injected": memorised - len(injected),
        "most injected": injected.most_common(1)[0][1] if injected else 0,
        "turns measured": len(figures["after tokens"]),
    }


async def run(path: Path, conversations: int, turns: int) -> None:
    loaded = load(path, Counter())[:conversations]
    with tempfile.TemporaryDirectory() as data_dir:
        platform = Platform(load_settings(data_dir=Path(data_dir) / "data"))
        await platform.start()
        try:
            await platform.providers.add("ai", "local-embeddings", "Local", {})
            for conversation in loaded:
                result = await replay(platform, conversation, turns)
                print(f"\nconversation {conversation.sample_id}: {result['turns measured']} "
                      f"turns measured, {result['memories']} memories at the end "
                      f"(budget {platform.settings.memory_injected_max_tokens} tokens, "
                      f"at most {platform.settings.memory_injected_max} relevant)")  # fmt: skip
                print(f"  {'per turn':<28}{'mean':>8}{'median':>8}{'p90':>8}{'total':>10}")
                for name, values in result["figures"].items():
                    print(_summary(name, values))
                print(f"  memories never injected (after): {result['never injected']} of "
                      f"{result['memories']}; the most injected one: "
                      f"{result['most injected']} turns")  # fmt: skip
        finally:
            await platform.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=1, help="conversations replayed")
    parser.add_argument("--turns", type=int, default=150, help="turns replayed per conversation")
    arguments = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the live feed's notes about Kins stored directly
    asyncio.run(run(arguments.dataset, arguments.conversations, arguments.turns))


if __name__ == "__main__":
    main()

"""Streamed text is published as it comes, the deltas of one pass of the event loop as one."""

from __future__ import annotations

import asyncio

from kinbot_core.kins.drafts import DeltaBatch


async def test_deltas_of_one_pass_go_out_together_and_later_ones_apart() -> None:
    published: list[str] = []
    batch = DeltaBatch(published.append)
    for text in ("Bon", "jour", " Nico"):
        batch.add(text)
    assert published == []  # not before the pass ends
    await asyncio.sleep(0)
    assert published == ["Bonjour Nico"]
    batch.add("!")
    await asyncio.sleep(0)
    assert published == ["Bonjour Nico", "!"]


async def test_a_flush_publishes_at_once_and_the_pass_end_adds_nothing() -> None:
    published: list[str] = []
    batch = DeltaBatch(published.append)
    batch.add("Tonight: ")
    batch.add("risotto.")
    batch.flush()
    assert published == ["Tonight: risotto."]
    await asyncio.sleep(0)
    batch.flush()
    assert published == ["Tonight: risotto."]

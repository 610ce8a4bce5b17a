"""The in-memory vectors of Kins that stopped searching are dropped (and read again from the
table by their next search), by the cache itself and periodically by the memory backend."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db import Database
from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from kinbot_plugins.memory.vector_cache import VectorCache
from tests.support.filled_database import filled_database

TABLE = "memory_vec_test_4"


def vector(*values: float) -> bytes:
    return struct.pack(f"{len(values)}f", *values)


def fill(db: Database) -> None:
    db.sql(
        f"create virtual table if not exists {TABLE} using vec0("
        "kin_id text partition key, embedding float[4] distance_metric=cosine)"
    )
    rows = [
        (1, "kin-a", vector(1, 0, 0, 0)),
        (2, "kin-a", vector(0, 1, 0, 0)),
        (3, "kin-b", vector(0, 0, 1, 0)),
        (4, "kin-b", vector(0, 0, 0, 1)),
    ]
    for row in rows:
        db.sql(f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)", row)


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    async with filled_database(data_dir / "kinbot.db", fill) as database:
        yield database


async def test_only_the_vectors_of_kins_idle_long_enough_are_dropped(db: Database) -> None:
    now = [1000.0]
    cache = VectorCache(clock=lambda: now[0])

    async def nearest(kin_id: str, probe: list[float]) -> list[int]:
        return await db.read(cache.nearest, db, TABLE, kin_id, probe, 1)

    assert await nearest("kin-a", [0, 1, 0, 0]) == [2]
    now[0] = 1100.0
    assert await nearest("kin-b", [0, 0, 1, 0]) == [3]
    assert set(cache.loaded()) == {"kin-a", "kin-b"}
    assert cache.loaded()["kin-a"] == 2 * 4 * 4 + 2 * 8  # float32 vectors, int64 ids

    now[0] = 1130.0
    assert cache.evict_idle(60) == ["kin-a"]  # idle 130 s; kin-b only 30 s
    assert set(cache.loaded()) == {"kin-b"}

    # Read again from the table at its next search, with the same answer.
    assert await nearest("kin-a", [1, 0, 0, 0.1]) == [1]
    assert set(cache.loaded()) == {"kin-a", "kin-b"}
    now[0] = 1180.0  # kin-a searched 50 s ago, kin-b 80 s ago
    assert cache.evict_idle(60) == ["kin-b"]


async def test_the_memory_backend_drops_idle_vectors_on_its_own(data_dir: Path) -> None:
    platform = Platform(load_settings(data_dir=data_dir, memory_vectors_idle_seconds=0.2))
    await platform.start()
    try:
        await platform.db.write(fill, platform.db)
        found = await platform.db.read(
            backend.vectors.nearest, platform.db, TABLE, "kin-b", [0, 0, 0, 1], 1
        )
        assert found == [4]
        assert "kin-b" in backend.vectors.loaded()
        for _ in range(300):  # wait for the state, not for a time
            if "kin-b" not in backend.vectors.loaded():
                break
            await asyncio.sleep(0.05)
        assert "kin-b" not in backend.vectors.loaded()
    finally:
        await platform.stop()


async def test_the_cache_gives_cosine_similarities(db: Database) -> None:
    cache = VectorCache()
    probe = [3.0, 4.0, 0.0, 0.0]  # not unit length: compared by direction
    scored = await db.read(cache.nearest_scored, db, TABLE, "kin-a", probe, 2)
    assert list(scored) == [2, 1]
    assert scored == pytest.approx({2: 0.8, 1: 0.6})
    # Of the rowids asked, only the Kin's own vectors are scored.
    some = await db.read(cache.similarities, db, TABLE, "kin-a", probe, [1, 3])
    assert some == pytest.approx({1: 0.6})

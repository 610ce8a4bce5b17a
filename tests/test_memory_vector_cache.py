"""The vector cache's int8 form (large Kins) finds what its exact float32 form finds, with the
same similarities; vec0's storage read directly gives the rows its scan gives; and a change
to the table shows in the results once the Kin's vectors are invalidated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import numpy
import pytest

from kinbot_core.db import Database
from kinbot_plugins.memory import vector_matrix
from kinbot_plugins.memory.history_index import vec0_columns
from kinbot_plugins.memory.vector_cache import VectorCache
from kinbot_plugins.memory.vector_matrix import vec0_storage_known
from tests.support.filled_database import filled_database

DIMENSION = 16
TABLE = f"memory_vec_cache_{DIMENSION}"
EXACT = 10**9  # quantize_from that keeps every Kin in float32
ROWIDS = range(1, 401)


def fill(db: Database) -> None:
    db.sql(f"create virtual table {TABLE} using vec0({vec0_columns(DIMENSION)})")
    rng = numpy.random.default_rng(3)
    # Clustered, as real embeddings are: near-ties are where int8 rounding could reorder.
    centres = rng.standard_normal((5, DIMENSION))
    for rowid in ROWIDS:
        vector = centres[rowid % 5] + 0.05 * rng.standard_normal(DIMENSION)
        kin_id = "kin-a" if rowid % 4 else "kin-b"
        row = (rowid, kin_id, vector.astype(numpy.float32).tobytes())
        db.sql(f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)", row)
    zero = numpy.zeros(DIMENSION, numpy.float32).tobytes()
    db.sql(f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)", (999, "kin-a", zero))
    for rowid in range(7, 400, 9):  # holes in vec0's chunks
        db.sql(f"delete from {TABLE} where rowid = ?", (rowid,))


@pytest.fixture
async def db(data_dir: Path) -> AsyncIterator[Database]:
    async with filled_database(data_dir / "kinbot.db", fill) as database:
        yield database


def queries() -> list[list[float]]:
    rng = numpy.random.default_rng(11)
    return [[float(x) for x in rng.standard_normal(DIMENSION)] for _ in range(12)]


async def test_int8_codes_find_the_nearest_of_an_exact_search(db: Database) -> None:
    exact, coded = VectorCache(quantize_from=EXACT), VectorCache(quantize_from=1)
    for query in queries():
        for k in (1, 5, 40, 1000):
            want = await db.read(exact.nearest_scored, db, TABLE, "kin-a", query, k)
            got = await db.read(coded.nearest_scored, db, TABLE, "kin-a", query, k)
            assert list(got) == list(want)
            assert got == pytest.approx(want, abs=1e-6)
    kin_a = len([i for i in ROWIDS if i % 4 and (i - 7) % 9]) + 1
    assert coded.loaded()["kin-a"] == kin_a * (DIMENSION + 4 + 8)  # codes, scale, rowid
    assert exact.loaded()["kin-a"] == kin_a * (4 * DIMENSION + 8)


async def test_int8_codes_give_exact_similarities_of_the_kins_own_vectors(db: Database) -> None:
    exact, coded = VectorCache(quantize_from=EXACT), VectorCache(quantize_from=1)
    asked = [*ROWIDS, 999, 5000]
    for query in queries():
        want = await db.read(exact.similarities, db, TABLE, "kin-b", query, asked)
        got = await db.read(coded.similarities, db, TABLE, "kin-b", query, asked)
        assert got == pytest.approx(want, abs=1e-6)
        assert set(got) == {i for i in ROWIDS if not i % 4 and (i - 7) % 9}
    assert await db.read(coded.similarities, db, TABLE, "kin-b", queries()[0], [1, 2]) == {}


async def test_vec0_storage_read_directly_matches_its_scan(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fails when sqlite-vec changes version: check its vec0 storage is still what
    # vector_matrix._vec0_batches reads before adding the version to VEC0_STORAGE_VERSIONS.
    assert await db.read(vec0_storage_known, db, TABLE)
    direct = {}
    for quantize_from in (1, EXACT):
        for kin_id in ("kin-a", "kin-b"):
            cache = VectorCache(quantize_from=quantize_from)
            direct[quantize_from, kin_id] = await db.read(
                cache.similarities, db, TABLE, kin_id, queries()[0], [*ROWIDS, 999]
            )
    monkeypatch.setattr(vector_matrix, "vec0_storage_known", lambda db, table: False)
    for (quantize_from, kin_id), want in direct.items():
        cache = VectorCache(quantize_from=quantize_from)
        scanned = await db.read(cache.similarities, db, TABLE, kin_id, queries()[0], [*ROWIDS, 999])
        assert list(scanned) == list(want)
        assert scanned == want


async def test_a_plain_table_is_read_row_by_row(db: Database) -> None:
    def plain() -> None:
        db.sql(
            "create table plain_vectors (rowid integer primary key, kin_id text, embedding blob)"
        )
        db.sql(f"insert into plain_vectors select rowid, kin_id, embedding from {TABLE}")

    await db.write(plain)
    assert not await db.read(vec0_storage_known, db, "plain_vectors")
    query = queries()[1]
    for quantize_from in (1, EXACT):
        cache = VectorCache(quantize_from=quantize_from)
        got = await db.read(cache.nearest_scored, db, "plain_vectors", "kin-a", query, 10)
        want = await db.read(VectorCache().nearest_scored, db, TABLE, "kin-a", query, 10)
        assert got == pytest.approx(want, abs=1e-6)
        assert list(got) == list(want)


@pytest.mark.parametrize("quantize_from", [1, EXACT])
async def test_changes_show_once_the_kin_is_invalidated(db: Database, quantize_from: int) -> None:
    cache = VectorCache(quantize_from=quantize_from)
    query = queries()[2]
    before = await db.read(cache.nearest, db, TABLE, "kin-a", query, 3)

    def change() -> None:
        db.sql(f"delete from {TABLE} where rowid = ?", (before[0],))
        vector = numpy.asarray(query, numpy.float32) * 2
        db.sql(
            f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)",
            (2000, "kin-a", vector.tobytes()),
        )

    await db.write(change)
    cache.invalidate("kin-a")
    after = await db.read(cache.nearest_scored, db, TABLE, "kin-a", query, 3)
    assert list(after) == [2000, *before[1:]]
    assert after[2000] == pytest.approx(1.0)


async def test_a_zero_vector_scores_zero(db: Database) -> None:
    for quantize_from in (1, EXACT):
        cache = VectorCache(quantize_from=quantize_from)
        found = await db.read(cache.similarities, db, TABLE, "kin-a", queries()[0], [999])
        assert found == {999: 0.0}


@pytest.mark.parametrize("k", [1, 10, 210])
def test_the_best_scores_of_a_large_kin_are_those_a_full_sort_gives(k: int) -> None:
    rng = numpy.random.default_rng(5)
    spread = rng.standard_normal(600_000).astype(numpy.float32)
    for scores in (spread, numpy.sort(spread), numpy.sort(spread)[::-1].copy(), spread.round(1)):
        best = vector_matrix._best(scores, k)
        assert list(scores[best]) == list(numpy.sort(scores)[::-1][:k])
        if scores is spread:
            assert list(best) == list(numpy.argsort(-scores, kind="stable")[:k])

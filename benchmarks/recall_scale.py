"""The dense part of ``recall`` as a Kin's memories grow: nearest-neighbour search of the
memory backend's in-memory vector cache (``kinbot_plugins/memory/vector_cache.py``) over
10,000 / 100,000 / 1,000,000 memories of one Kin, 384 dimensions (all-MiniLM-L6-v2's).

The vectors are generated (random unit vectors, numpy seed 7; random vectors are the hard case
for the cache's int8 codes, real embeddings cluster) and written straight into a ``vec0``
table of a real SQLite file made as the backend makes ``memory_vec_384`` (partitioned by Kin,
``kinbot_plugins/memory/history_index.py``'s ``vec0_columns``), 50,000 rows a transaction,
without embedding any text (hours for a million). Printed per size, for ``--k`` nearest (10
by default): the first search (it loads the Kin's vectors from SQLite), p50 and p99 of 200
searches (query vectors generated too, numpy seed 8), the memory the cache holds, and recall@k:
the share of the exact k nearest (float32 cosine, computed here with numpy) that the cache
found, over the 200 queries.

    .venv/bin/python -m benchmarks.recall_scale [--sizes 10000 100000 1000000] [--k 10]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import numpy
import numpy.typing as npt

from kinbot_core.db import Database
from kinbot_plugins.memory.history_index import vec0_columns
from kinbot_plugins.memory.vector_cache import VectorCache

DIMENSION = 384
QUERIES = 200
TABLE = "bench_memory_vec_384"
BATCH = 50_000


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class ExactNearest:
    """The exact ``k`` nearest rowids of each query, kept up to date batch by batch (so that
    the benchmark never holds all the vectors in float32)."""

    def __init__(self, queries: npt.NDArray[numpy.float32], k: int) -> None:
        self.queries = queries / numpy.linalg.norm(queries, axis=1, keepdims=True)
        self.k = k
        self.ids = numpy.empty((len(queries), 0), numpy.int64)
        self.scores = numpy.empty((len(queries), 0), numpy.float32)

    def add(self, ids: npt.NDArray[numpy.int64], vectors: npt.NDArray[numpy.float32]) -> None:
        scores = numpy.concatenate([self.scores, self.queries @ vectors.T], axis=1)
        every = numpy.concatenate([self.ids, numpy.broadcast_to(ids, (len(scores), len(ids)))], 1)
        keep = min(self.k, scores.shape[1])
        best = numpy.argpartition(-scores, keep - 1, axis=1)[:, :keep]
        self.scores = numpy.take_along_axis(scores, best, axis=1)
        self.ids = numpy.take_along_axis(every, best, axis=1)

    def recall(self, found: list[list[int]]) -> float:
        pairs = zip(self.ids, found, strict=True)
        hits = sum(len(set(row.tolist()) & set(mine)) for row, mine in pairs)
        return hits / (len(found) * self.k)


async def measure(db: Database, count: int, k: int) -> None:
    kin_id = f"kin-{count}"
    rng = numpy.random.default_rng(7)
    queries = numpy.random.default_rng(8).standard_normal((QUERIES, DIMENSION)).astype("float32")
    exact = ExactNearest(queries, k)

    def insert(start: int, stop: int) -> None:
        vectors = rng.standard_normal((stop - start, DIMENSION)).astype("float32")
        vectors /= numpy.linalg.norm(vectors, axis=1, keepdims=True)
        ids = numpy.arange(count * 10 + start, count * 10 + stop, dtype=numpy.int64)
        exact.add(ids, vectors)
        rows = [(int(ids[i]), kin_id, vectors[i].tobytes()) for i in range(len(vectors))]
        db.sql("select 1")  # open this thread's connection
        db.peewee.connection().executemany(  # type: ignore[no-untyped-call]
            f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)", rows
        )

    for start in range(0, count, BATCH):
        await db.write(insert, start, min(count, start + BATCH))
    cache = VectorCache()
    probes = queries.tolist()
    started = time.perf_counter()
    await db.read(cache.nearest, db, TABLE, kin_id, probes[0], k)
    first = time.perf_counter() - started
    timings = []
    found = []
    for probe in probes:
        started = time.perf_counter()
        found.append(await db.read(cache.nearest, db, TABLE, kin_id, probe, k))
        timings.append(time.perf_counter() - started)
    memory = cache.loaded()[kin_id]
    p50, p99 = percentile(timings, 0.5) * 1000, percentile(timings, 0.99) * 1000
    print(
        f"  {count:>9} memories: first search {first * 1000:7.0f} ms (loads them), "
        f"p50 {p50:6.1f} ms, p99 {p99:6.1f} ms, in memory {memory / 2**20:7.1f} MiB "
        f"({memory / count:.0f} bytes a memory), recall@{k} {exact.recall(found):.4f}",
        flush=True,
    )


async def run(sizes: list[int], k: int) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        db = Database(Path(data_dir) / "kinbot.db")
        await db.open()
        await db.write(
            lambda: db.sql(f"create virtual table {TABLE} using vec0({vec0_columns(DIMENSION)})")
        )
        print(f"dense search of one Kin's memories ({DIMENSION} dimensions, top {k})")
        for count in sizes:
            await measure(db, count, k)
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--k", type=int, default=10, help="nearest memories asked (10)")
    arguments = parser.parse_args()
    asyncio.run(run(arguments.sizes, arguments.k))


if __name__ == "__main__":
    main()

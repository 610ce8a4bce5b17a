"""The dense part of ``recall`` as a Kin's memories grow: exact nearest-neighbour search of the
memory backend's in-memory vector cache (``kinbot_plugins/memory/vector_cache.py``) over
10,000 / 100,000 / 1,000,000 memories of one Kin, 384 dimensions (all-MiniLM-L6-v2's).

The vectors are generated (random unit vectors, numpy seed 7) and written straight into a
table of a real SQLite file with the columns the cache reads (``rowid, kin_id, embedding``),
without embedding any text: embedding a million memories would take hours, and the cache's
cost does not depend on what the vectors mean. The real memory table (``memory_vec_384``,
sqlite-vec) is not used here because inserting a million vectors into vec0 one by one takes
about as long. Printed per size: the first search (loading the matrix from SQLite), p50 and
p99 of 200 searches (query vectors generated too), and the matrix's memory.

    .venv/bin/python -m benchmarks.recall_scale [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import numpy

from kinbot_core.db import Database
from kinbot_plugins.memory.vector_cache import VectorCache

DIMENSION = 384
QUERIES = 200
TABLE = "bench_memory_vectors"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(db: Database, count: int) -> None:
    kin_id = f"kin-{count}"
    rng = numpy.random.default_rng(7)

    def insert(start: int, stop: int) -> None:
        vectors = rng.standard_normal((stop - start, DIMENSION)).astype("float32")
        vectors /= numpy.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [(count * 10 + start + i, kin_id, vectors[i].tobytes()) for i in range(len(vectors))]
        db.sql("select 1")  # open this thread's connection
        db.peewee.connection().executemany(  # type: ignore[no-untyped-call]
            f"insert into {TABLE} (rowid, kin_id, embedding) values (?, ?, ?)", rows
        )

    for start in range(0, count, 50_000):
        await db.write(insert, start, min(count, start + 50_000))
    cache = VectorCache()
    queries = rng.standard_normal((QUERIES, DIMENSION)).astype("float32").tolist()
    started = time.perf_counter()
    await db.read(cache.nearest, db, TABLE, kin_id, queries[0], 10)
    first = time.perf_counter() - started
    timings = []
    for query in queries:
        started = time.perf_counter()
        await db.read(cache.nearest, db, TABLE, kin_id, query, 10)
        timings.append(time.perf_counter() - started)
    memory = cache.loaded()[kin_id]
    p50, p99 = percentile(timings, 0.5) * 1000, percentile(timings, 0.99) * 1000
    print(
        f"  {count:>9} memories: first search {first * 1000:7.0f} ms (loads the matrix), "
        f"p50 {p50:6.1f} ms, p99 {p99:6.1f} ms, in memory {memory / 2**20:7.1f} MiB",
        flush=True,
    )


async def run(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        db = Database(Path(data_dir) / "kinbot.db")
        await db.open()
        await db.write(
            lambda: db.sql(
                f"create table {TABLE} (rowid integer primary key, kin_id text, embedding blob)"
            )
        )
        await db.write(lambda: db.sql(f"create index {TABLE}_kin on {TABLE} (kin_id)"))
        print(f"exact dense search of one Kin's memories ({DIMENSION} dimensions, top 10)")
        for count in sizes:
            await measure(db, count)
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    asyncio.run(run(parser.parse_args().sizes))


if __name__ == "__main__":
    main()

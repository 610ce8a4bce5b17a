"""What a ``vec0`` table's chunk size costs: inserting one vector at a time, each in its own
transaction (as the history indexer and ``memorize`` store them), into a table partitioned by
Kin as KinBot's are, then nearest-neighbour queries over what was stored.

Printed per chunk size (sqlite-vec's default 1,024, and KinBot's ``VECTOR_CHUNK_SIZE``): CPU
and wall time per insert, CPU per query, and the file's size.

    .venv/bin/python -m benchmarks.vec_chunks [--vectors 1500] [--dimension 1536]
"""

from __future__ import annotations

import argparse
import random
import struct
import tempfile
import time
from pathlib import Path

from kinbot_core.db.driver import load_vec, select_driver
from kinbot_plugins.memory.history_index import VECTOR_CHUNK_SIZE

QUERIES = 20


def measure(path: Path, chunk_size: int | None, vectors: int, dimension: int) -> str:
    connection = select_driver().connect(path)
    connection.execute("pragma journal_mode = wal")
    load_vec(connection)
    option = f", chunk_size={chunk_size}" if chunk_size else ""
    connection.execute(
        "create virtual table v using vec0(kin_id text partition key, "
        f"embedding float[{dimension}] distance_metric=cosine{option})"
    )
    rng = random.Random(7)
    blobs = [
        struct.pack(f"{dimension}f", *(rng.gauss(0, 1) for _ in range(dimension)))
        for _ in range(32)
    ]
    cpu, wall = time.process_time(), time.perf_counter()
    for rowid in range(1, vectors + 1):
        connection.execute(
            "insert into v (rowid, kin_id, embedding) values (?, 'kin', ?)",
            (rowid, blobs[rowid % len(blobs)]),
        )
        connection.commit()
    insert_cpu = (time.process_time() - cpu) / vectors * 1000
    insert_wall = (time.perf_counter() - wall) / vectors * 1000
    cpu = time.process_time()
    for blob in blobs[:QUERIES]:
        connection.execute(
            "select rowid, distance from v where embedding match ? and kin_id = 'kin' and k = 10",
            (blob,),
        ).fetchall()
    query_cpu = (time.process_time() - cpu) / QUERIES * 1000
    connection.execute("pragma wal_checkpoint(truncate)")
    connection.close()
    label = f"chunk_size {chunk_size or '1024 (default)'}"
    return (
        f"{label:<24} insert {insert_cpu:5.2f} ms CPU, {insert_wall:6.2f} ms wall; "
        f"query {query_cpu:5.2f} ms CPU; file {path.stat().st_size / 1e6:6.1f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=int, default=1500)
    parser.add_argument("--dimension", type=int, default=1536)
    arguments = parser.parse_args()
    print(f"{arguments.vectors} vectors of {arguments.dimension} floats, one Kin, a commit each")
    with tempfile.TemporaryDirectory() as folder:
        for chunk_size in (None, VECTOR_CHUNK_SIZE):
            path = Path(folder) / f"vectors-{chunk_size}.db"
            print(measure(path, chunk_size, arguments.vectors, arguments.dimension))


if __name__ == "__main__":
    main()

"""Nearest-neighbour search over a Kin's memory vectors, held in memory.

sqlite-vec's ``vec0`` scans every vector of a partition for each query in plain C (about
50 ms for 100,000 vectors of 384 dimensions on a small machine); this cache holds one Kin's
vectors in memory and searches them in a few milliseconds. The vectors stay stored in
``vec0`` (the source of truth); the cache loads a Kin's vectors on its first search and drops
them whenever the backend changes that Kin's vectors (``invalidate``), so results are those
of the table.

Two forms, by the Kin's number of vectors:

* fewer than ``quantize_from`` (10,000 by default): a float32 matrix of unit rows, searched
  exactly by one matrix product (4 bytes per dimension: 1.5 MB for 1,000 memories of 384
  dimensions);
* from ``quantize_from`` on: int8 codes, and a float32 scale per vector (a byte per
  dimension, 12 more with the scale and the rowid: 378 MiB for a million memories of 384
  dimensions, against 1,472 MiB in float32). A search scores every code with numkong's SIMD
  int8 dot product, then reads the float32 vectors of the ``2 k + 10`` best back from the
  table and ranks them by their exact cosine: the similarities returned are exact, and the
  ``k`` nearest are those of an exact search unless the int8 rounding (half a step of 1/127
  of each vector's largest component) pushes one of them out of the candidates. On a million
  random vectors, the hard case, none was (``benchmarks/recall_scale.py``, recall@10 and
  recall@100 of 200 queries).

Loading reads the rows in batches (quantized as they come, so that no more than a batch is
held in float32 besides the result); from a vec0 table as the backend makes them it reads
vec0's chunks whole rather than row by row (``vec0_storage_known``). ``evict_idle`` drops the
vectors of Kins that have not searched for a while (the backend calls it periodically,
``memory_vectors_idle_seconds``), and the next search loads them again. Used from the
database's reader threads: numpy and numkong release the GIL while they compute. The matrices
are made and searched in ``vector_matrix``, imported with the first search: numpy is not
loaded at start-up.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kinbot_core.providers import Vector

if TYPE_CHECKING:
    from kinbot_plugins.memory.vector_matrix import Matrix

#: Kins with at least this many vectors are held as int8 codes.
QUANTIZE_FROM = 10_000


class VectorCache:
    """One matrix per (vector table, Kin), loaded lazily, dropped on change or when idle;
    int8 codes for Kins with ``quantize_from`` vectors or more, float32 below."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, quantize_from: int = QUANTIZE_FROM
    ) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._quantize_from = quantize_from
        self._matrices: dict[tuple[str, str], Matrix] = {}
        self._generations: dict[tuple[str, str], int] = {}

    def evict_idle(self, idle_seconds: float) -> list[str]:
        """Drop the matrices not searched for ``idle_seconds`` or more; returns the Kins
        whose matrices went (their next search reads them from the table again)."""
        limit = self._clock() - idle_seconds
        with self._lock:
            idle = [key for key, matrix in self._matrices.items() if matrix.used[0] <= limit]
            for key in idle:
                del self._matrices[key]
        return sorted({kin_id for _table, kin_id in idle})

    def loaded(self) -> dict[str, int]:
        """The Kins whose vectors are in memory now, and the bytes their matrices take."""
        sizes: dict[str, int] = {}
        with self._lock:
            for (_table, kin_id), matrix in self._matrices.items():
                sizes[kin_id] = sizes.get(kin_id, 0) + matrix.nbytes
        return sizes

    def invalidate(self, kin_id: str) -> None:
        """Forget the Kin's matrices (call after any change to its vectors)."""
        with self._lock:
            for key in [key for key in self._generations if key[1] == kin_id]:
                self._generations[key] += 1
            for key in [key for key in self._matrices if key[1] == kin_id]:
                del self._matrices[key]

    def nearest(self, db: Any, table: str, kin_id: str, query: Vector, k: int) -> list[int]:
        """The rowids of the ``k`` vectors of ``kin_id`` in ``table`` closest to ``query`` by
        cosine similarity, nearest first. Runs SQL: call it on a database thread."""
        return list(self.nearest_scored(db, table, kin_id, query, k))

    def nearest_scored(
        self, db: Any, table: str, kin_id: str, query: Vector, k: int
    ) -> dict[int, float]:
        """``nearest`` with each rowid's cosine similarity to ``query``, nearest first."""
        matrix = self._matrix(db, table, kin_id)
        matrix.used[0] = self._clock()
        from kinbot_plugins.memory import vector_matrix  # numpy: not at start-up

        return vector_matrix.nearest_scored(matrix, db, table, kin_id, query, k)

    def similarities(
        self, db: Any, table: str, kin_id: str, query: Vector, rowids: list[int]
    ) -> dict[int, float]:
        """The cosine similarity to ``query`` of those of ``rowids`` that are vectors of
        ``kin_id`` in ``table``. Runs SQL: call it on a database thread."""
        matrix = self._matrix(db, table, kin_id)
        from kinbot_plugins.memory import vector_matrix  # numpy: not at start-up

        return vector_matrix.similarities(matrix, db, table, kin_id, query, rowids)

    def _matrix(self, db: Any, table: str, kin_id: str) -> Matrix:
        key = (table, kin_id)
        with self._lock:
            found = self._matrices.get(key)
            if found is not None:
                return found
            generation = self._generations.setdefault(key, 0)
        from kinbot_plugins.memory import vector_matrix  # numpy: not at start-up

        matrix = vector_matrix.load(db, table, kin_id, self._quantize_from)
        with self._lock:
            if self._generations.get(key) == generation:  # nothing changed while loading
                self._matrices[key] = matrix
        return matrix


async def evict_idle_vectors(cache: VectorCache, idle_seconds: float) -> None:
    """Run until cancelled: every so often (half the idle time, a minute at most), drop the
    matrices not searched for ``idle_seconds``."""
    while True:
        await asyncio.sleep(min(idle_seconds / 2, 60.0))
        cache.evict_idle(idle_seconds)

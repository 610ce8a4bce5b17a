"""Exact nearest-neighbour search over a Kin's memory vectors, held in memory with numpy.

sqlite-vec's ``vec0`` scans every vector of a partition for each query in plain C (about
50 ms for 100,000 vectors of 384 dimensions on a small machine); a numpy matrix product does
the same exact search in a few milliseconds. The vectors stay stored in ``vec0`` (the source
of truth); this cache loads one Kin's matrix on its first search and drops it whenever the
backend changes that Kin's vectors (``invalidate``), so results are those of the table.
A matrix costs its vectors' size (4 bytes per dimension per memory: 1.5 MB for 1,000 memories
of 384 dimensions); ``evict_idle`` drops those of Kins that have not searched for a while (the
backend calls it periodically, ``memory_vectors_idle_seconds``), and the next search loads
them again. Used from the database's reader threads: numpy releases the GIL while it
multiplies.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy
import numpy.typing as npt


@dataclass(frozen=True)
class _Matrix:
    ids: npt.NDArray[numpy.int64]
    vectors: npt.NDArray[numpy.float32]  # one unit-length row per id
    #: When it was last searched (the cache's clock).
    used: list[float] = field(default_factory=lambda: [0.0])


class VectorCache:
    """One matrix per (vector table, Kin), loaded lazily, dropped on change or when idle."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._matrices: dict[tuple[str, str], _Matrix] = {}
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
                sizes[kin_id] = sizes.get(kin_id, 0) + matrix.vectors.nbytes + matrix.ids.nbytes
        return sizes

    def invalidate(self, kin_id: str) -> None:
        """Forget the Kin's matrices (call after any change to its vectors)."""
        with self._lock:
            for key in [key for key in self._generations if key[1] == kin_id]:
                self._generations[key] += 1
            for key in [key for key in self._matrices if key[1] == kin_id]:
                del self._matrices[key]

    def nearest(self, db: Any, table: str, kin_id: str, query: list[float], k: int) -> list[int]:
        """The rowids of the ``k`` vectors of ``kin_id`` in ``table`` closest to ``query`` by
        cosine similarity, nearest first. Runs SQL: call it on a database thread."""
        return list(self.nearest_scored(db, table, kin_id, query, k))

    def nearest_scored(
        self, db: Any, table: str, kin_id: str, query: list[float], k: int
    ) -> dict[int, float]:
        """``nearest`` with each rowid's cosine similarity to ``query``, nearest first."""
        matrix = self._matrix(db, table, kin_id)
        matrix.used[0] = self._clock()
        probe = _unit(query)
        if not len(matrix.ids) or k < 1 or probe is None:
            return {}
        scores = matrix.vectors @ probe
        if k < len(scores):
            top = numpy.argpartition(-scores, k - 1)[:k]
            top = top[numpy.argsort(-scores[top], kind="stable")]
        else:
            top = numpy.argsort(-scores, kind="stable")
        return {int(i): float(score) for i, score in zip(matrix.ids[top], scores[top], strict=True)}

    def similarities(
        self, db: Any, table: str, kin_id: str, query: list[float], rowids: list[int]
    ) -> dict[int, float]:
        """The cosine similarity to ``query`` of those of ``rowids`` that are vectors of
        ``kin_id`` in ``table``. Runs SQL: call it on a database thread."""
        matrix = self._matrix(db, table, kin_id)
        probe = _unit(query)
        if not len(matrix.ids) or not rowids or probe is None:
            return {}
        rows = numpy.flatnonzero(numpy.isin(matrix.ids, numpy.asarray(rowids, dtype=numpy.int64)))
        scores = matrix.vectors[rows] @ probe
        return {int(i): float(score) for i, score in zip(matrix.ids[rows], scores, strict=True)}

    def _matrix(self, db: Any, table: str, kin_id: str) -> _Matrix:
        key = (table, kin_id)
        with self._lock:
            found = self._matrices.get(key)
            if found is not None:
                return found
            generation = self._generations.setdefault(key, 0)
        rows = db.sql(f"select rowid, embedding from {table} where kin_id = ?", (kin_id,))
        ids: list[int] = []
        blobs: list[bytes] = []
        for rowid, blob in rows:
            ids.append(rowid)
            blobs.append(blob)
        vectors = numpy.frombuffer(b"".join(blobs), dtype=numpy.float32)
        vectors = vectors.reshape(len(ids), -1) if ids else vectors.reshape(0, 0)
        norms = numpy.linalg.norm(vectors, axis=1, keepdims=True) if ids else vectors
        matrix = _Matrix(
            numpy.asarray(ids, dtype=numpy.int64),
            (vectors / numpy.where(norms == 0, 1, norms)).astype(numpy.float32) if ids else vectors,
        )
        with self._lock:
            if self._generations.get(key) == generation:  # nothing changed while loading
                self._matrices[key] = matrix
        return matrix


def _unit(values: list[float]) -> npt.NDArray[numpy.float32] | None:
    """``values`` scaled to unit length; ``None`` for a zero vector."""
    probe = numpy.asarray(values, dtype=numpy.float32)
    norm = float(numpy.linalg.norm(probe))
    return probe / norm if norm else None


async def evict_idle_vectors(cache: VectorCache, idle_seconds: float) -> None:
    """Run until cancelled: every so often (half the idle time, a minute at most), drop the
    matrices not searched for ``idle_seconds``."""
    while True:
        await asyncio.sleep(min(idle_seconds / 2, 60.0))
        cache.evict_idle(idle_seconds)

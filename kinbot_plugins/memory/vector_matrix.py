"""The numpy side of the vector cache (``vector_cache``): a Kin's vectors as a matrix,
float32 unit rows or int8 codes with a scale per row, loaded from the table (vec0's chunks
read whole where ``vec0_storage_known``) and searched. Imported with the first search, so
that numpy (some 17 MB) is not loaded at start-up."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy
import numpy.typing as npt

from kinbot_core.providers import Vector
from kinbot_plugins.memory.history_index import VECTOR_CHUNK_SIZE

#: Rows read from SQLite at a time while loading; with int8, each batch is one block of codes.
LOAD_BATCH = 4096
#: The sqlite-vec versions whose vec0 storage (shadow tables) ``_vec0_batches`` reads.
VEC0_STORAGE_VERSIONS = frozenset({"v0.1.9"})
#: A vec0 table's declaration as the memory backend writes it (``vec0_columns``).
_MEMORY_VEC0 = re.compile(
    r"using\s+vec0\s*\(\s*kin_id\s+text\s+partition\s+key\s*,\s*embedding\s+float\[\d+\]"
    r"(\s+distance_metric\s*=\s*\w+)?(\s*,\s*chunk_size\s*=\s*\d+)?\s*\)\s*$",
    re.IGNORECASE,
)

#: ``_best`` takes a threshold from every this many scores of a large Kin's.
_SAMPLE_STEP = 32

_Ids = npt.NDArray[numpy.int64]
_Floats = npt.NDArray[numpy.float32]


def candidates(k: int) -> int:
    """How many of the best int8 scores are rescored exactly to find the ``k`` nearest."""
    return 2 * k + 10


@dataclass(frozen=True)
class Matrix:
    """One Kin's vectors of one table, held for search."""

    ids: npt.NDArray[numpy.int64]
    #: One unit-length float32 row per id; ``None`` when held as int8 codes.
    vectors: npt.NDArray[numpy.float32] | None
    #: The int8 codes of the rows, in blocks, in the order of ``ids`` (none for float32).
    codes: list[npt.NDArray[numpy.int8]]
    #: Per row, the factor from its codes back to its unit vector (empty for float32).
    scales: npt.NDArray[numpy.float32]
    #: When it was last searched (the cache's clock).
    used: list[float] = field(default_factory=lambda: [0.0])

    @property
    def nbytes(self) -> int:
        """The bytes its arrays take."""
        held = sum(block.nbytes for block in self.codes) + self.scales.nbytes + self.ids.nbytes
        return held + (self.vectors.nbytes if self.vectors is not None else 0)


def nearest_scored(
    matrix: Matrix, db: Any, table: str, kin_id: str, query: Vector, k: int
) -> dict[int, float]:
    """The rowids of the ``k`` vectors of ``matrix`` (the Kin's in ``table``) closest to
    ``query`` by cosine similarity, nearest first, each with its similarity."""
    probe = _unit(query)
    if not len(matrix.ids) or k < 1 or probe is None:
        return {}
    if matrix.vectors is not None:
        ids, scores = matrix.ids, matrix.vectors @ probe
    else:
        # In table order, so that ties rank as they would in float32.
        rows = numpy.sort(_best(_code_scores(matrix, probe), candidates(k)))
        ids, scores = _stored_scores(db, table, kin_id, matrix.ids[rows], probe)
    top = _best(scores, k)
    return {int(i): float(score) for i, score in zip(ids[top], scores[top], strict=True)}


def similarities(
    matrix: Matrix, db: Any, table: str, kin_id: str, query: Vector, rowids: list[int]
) -> dict[int, float]:
    """The cosine similarity to ``query`` of those of ``rowids`` that are rows of
    ``matrix`` (the Kin's vectors in ``table``)."""
    probe = _unit(query)
    if not len(matrix.ids) or not rowids or probe is None:
        return {}
    rows = numpy.flatnonzero(numpy.isin(matrix.ids, numpy.asarray(rowids, dtype=numpy.int64)))
    if matrix.vectors is not None:
        ids, scores = matrix.ids[rows], matrix.vectors[rows] @ probe
    else:
        ids, scores = _stored_scores(db, table, kin_id, matrix.ids[rows], probe)
    return {int(i): float(score) for i, score in zip(ids, scores, strict=True)}


def load(db: Any, table: str, kin_id: str, quantize_from: int) -> Matrix:
    """The Kin's vectors read from ``table``: float32 while fewer than ``quantize_from``,
    else int8 codes (each batch quantized as soon as it is read)."""
    ids: list[npt.NDArray[numpy.int64]] = []
    raw: list[npt.NDArray[numpy.float32]] = []
    codes: list[npt.NDArray[numpy.int8]] = []
    scales: list[npt.NDArray[numpy.float32]] = []
    count = 0
    for batch_ids, vectors in _batches(db, table, kin_id):
        if not len(batch_ids):
            continue
        count += len(batch_ids)
        ids.append(batch_ids)
        raw.append(vectors)
        if count >= quantize_from:
            for block in raw:
                block_codes, block_scales = _quantize(block)
                codes.append(block_codes)
                scales.append(block_scales)
            raw = []
    found = numpy.concatenate(ids) if ids else numpy.empty(0, numpy.int64)
    if codes:
        return Matrix(found, None, codes, numpy.concatenate(scales))
    vectors = _unit_rows(numpy.concatenate(raw)) if raw else numpy.empty((0, 0), numpy.float32)
    return Matrix(found, vectors, [], numpy.empty(0, numpy.float32))


def _batches(db: Any, table: str, kin_id: str) -> Iterator[tuple[_Ids, _Floats]]:
    """The Kin's rowids and float32 vectors in ``table``, a batch at a time: from vec0's
    storage where ``vec0_storage_known``, else row by row through the table."""
    if vec0_storage_known(db, table):
        yield from _vec0_batches(db, table, kin_id)
        return
    cursor = db.sql(f"select rowid, embedding from {table} where kin_id = ?", (kin_id,))
    while rows := cursor.fetchmany(LOAD_BATCH):
        ids = numpy.fromiter((row[0] for row in rows), numpy.int64, len(rows))
        vectors = numpy.frombuffer(b"".join(row[1] for row in rows), numpy.float32)
        yield ids, vectors.reshape(len(rows), -1)


def vec0_storage_known(db: Any, table: str) -> bool:
    """Whether ``table`` is a vec0 table as the memory backend makes them (a ``kin_id``
    partition key and a float ``embedding``) that was made, and is read, by a version of
    sqlite-vec whose storage this module reads directly (``VEC0_STORAGE_VERSIONS``)."""
    made = db.sql("select sql from sqlite_master where name = ?", (table,)).fetchone()
    if made is None or not _MEMORY_VEC0.search(made[0] or ""):
        return False
    created = db.sql(f'select value from "{table}_info" where key = ?', ("CREATE_VERSION",))
    version = created.fetchone()
    running = db.sql("select vec_version()").fetchone()[0]
    return version is not None and {version[0], running} <= VEC0_STORAGE_VERSIONS


def _vec0_batches(db: Any, table: str, kin_id: str) -> Iterator[tuple[_Ids, _Floats]]:
    """The Kin's rowids and vectors read from vec0's shadow tables: a row per chunk of
    ``chunk_size`` slots, holding a validity bitmap, the slots' rowids (int64) and their
    vectors (float32), one after the other. Reading a chunk's blobs whole is several times
    faster than vec0's scan, which reads each row's vector from its chunk on its own. (The
    vector chunks are joined on ``_rowid_``, the real rowid, which sqlite-vec reads them by:
    their column named ``rowid`` hides it, and its index does not serve integer lookups.)"""
    cursor = db.sql(  # cross join: the Kin's chunks first, not every Kin's vectors
        f'select c.size, c.validity, c.rowids, v.vectors from "{table}_chunks" c '
        f'cross join "{table}_vector_chunks00" v on v._rowid_ = c.chunk_id '
        "where c.partition00 = ? order by c.chunk_id",
        (kin_id,),
    )
    while chunks := cursor.fetchmany(LOAD_BATCH // VECTOR_CHUNK_SIZE):
        valid = numpy.concatenate(
            [
                numpy.unpackbits(numpy.frombuffer(validity, numpy.uint8), bitorder="little")[:size]
                for size, validity, _rowids, _vectors in chunks
            ]
        ).astype(bool)
        ids = numpy.frombuffer(b"".join(chunk[2] for chunk in chunks), numpy.int64)
        vectors = numpy.frombuffer(b"".join(chunk[3] for chunk in chunks), numpy.float32)
        if len(ids) != len(valid) or len(vectors) % max(1, len(valid)):
            raise ValueError(f"{table}: vec0 chunks not as sqlite-vec {VEC0_STORAGE_VERSIONS}")
        yield ids[valid], vectors.reshape(len(valid), -1)[valid]


def _stored_scores(
    db: Any, table: str, kin_id: str, rowids: npt.NDArray[numpy.int64], probe: npt.NDArray[Any]
) -> tuple[npt.NDArray[numpy.int64], npt.NDArray[numpy.float32]]:
    """Those of ``rowids`` that are vectors of ``kin_id`` in ``table``, and their exact cosine
    similarity to the unit vector ``probe``, from the float32 vectors stored in the table."""
    found = db.sql(
        f"select j.value, m.kin_id, m.embedding from json_each(?) j join {table} m "
        "on m.rowid = j.value",  # a point lookup per rowid, where an IN list would scan vec0
        (json.dumps(rowids.tolist()),),
    ).fetchall()
    rows = [row for row in found if row[1] == kin_id]
    ids = numpy.fromiter((row[0] for row in rows), numpy.int64, len(rows))
    if not rows:
        return ids, numpy.empty(0, numpy.float32)
    vectors = numpy.frombuffer(b"".join(row[2] for row in rows), numpy.float32)
    return ids, _unit_rows(vectors.reshape(len(rows), -1)) @ probe


def _code_scores(matrix: Matrix, probe: npt.NDArray[numpy.float32]) -> npt.NDArray[numpy.float32]:
    """Every row's approximate cosine similarity to the unit vector ``probe``, from the
    codes (up to a positive factor common to all rows)."""
    import numkong  # only Kins with ``quantize_from`` vectors need it: not at start-up

    probe_codes, _scale = _quantize(probe.reshape(1, -1))
    scores = numpy.empty(len(matrix.ids), numpy.float32)
    start = 0
    for block in matrix.codes:
        numkong.cdist(probe_codes, block, "dot", out=scores[start : start + len(block)][None])
        start += len(block)
    scores *= matrix.scales
    return scores


def _best(scores: _Floats, k: int) -> npt.NDArray[numpy.intp]:
    """The positions of the ``k`` highest ``scores``, highest first (ties in position order)."""
    if k >= len(scores):
        return numpy.argsort(-scores, kind="stable")
    pool = _pool(scores, k)
    if pool is None:
        top = numpy.argpartition(-scores, k - 1)[:k]
    else:
        top = pool[numpy.argpartition(-scores[pool], k - 1)[:k]]
    top.sort()
    return top[numpy.argsort(-scores[top], kind="stable")]


def _pool(scores: _Floats, k: int) -> npt.NDArray[numpy.intp] | None:
    """The positions of the scores at least as high as a threshold taken from every
    ``_SAMPLE_STEP``th score, if there are ``k`` or more of them (the ``k`` highest are then
    among them): a few hundred positions where a million would be partitioned."""
    if len(scores) < 64 * _SAMPLE_STEP * (k + 8):
        return None
    sample = scores[::_SAMPLE_STEP]
    rank = len(sample) - (2 * k // _SAMPLE_STEP + 8)
    threshold = numpy.partition(sample, rank)[rank]
    pool = numpy.flatnonzero(scores >= threshold)
    return pool if len(pool) >= k else None


def _quantize(vectors: _Floats) -> tuple[npt.NDArray[numpy.int8], _Floats]:
    """Each row as int8 codes (its largest component at ±127), and the factor from the codes
    to the row scaled to unit length."""
    largest = numpy.abs(vectors).max(axis=1)
    norms = numpy.sqrt(numpy.einsum("ij,ij->i", vectors, vectors))
    scaled = vectors * (numpy.float32(127) / numpy.where(largest == 0, 1, largest))[:, None]
    codes = numpy.rint(scaled, out=scaled).astype(numpy.int8)
    scales = largest / (numpy.float32(127) * numpy.where(norms == 0, 1, norms))
    return codes, scales.astype(numpy.float32)


def _unit_rows(vectors: npt.NDArray[numpy.float32]) -> npt.NDArray[numpy.float32]:
    """``vectors`` with each row scaled to unit length (zero rows stay zero)."""
    norms = numpy.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / numpy.where(norms == 0, numpy.float32(1), norms)).astype(
        numpy.float32, copy=False
    )


def _unit(values: Vector) -> npt.NDArray[numpy.float32] | None:
    """``values`` scaled to unit length; ``None`` for a zero vector."""
    probe = numpy.asarray(values, dtype=numpy.float32)
    norm = float(numpy.linalg.norm(probe))
    return probe / norm if norm else None

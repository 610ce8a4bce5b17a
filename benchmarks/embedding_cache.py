"""Each text embedded once per benchmark run (and, with a file, across runs).

The recall benchmarks search the same conversations with many settings: the platform's
``providers.embed`` is wrapped so that a text already embedded (a stored turn, a fact, a
question) is not embedded again. The vectors are the real model's; only the repeat is saved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy


class EmbeddingCache:
    """Vectors by (model, text); ``path`` (a ``.npz`` file) keeps them between runs."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.vectors: dict[str, list[float]] = {}
        self.embedded = self.reused = self.saved = 0
        if path is not None and path.is_file():
            with numpy.load(path) as stored:
                keys, matrix = stored["keys"], stored["vectors"]
                self.vectors = {
                    str(key): row.tolist() for key, row in zip(keys, matrix, strict=True)
                }

    @staticmethod
    def key(model: str, text: str) -> str:
        return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()

    def wrap(self, platform: Any) -> None:
        """Make ``platform.providers.embed`` answer repeated texts from the cache."""
        embed: Callable[[list[str]], Awaitable[list[list[float]]]] = platform.providers.embed

        async def cached(texts: list[str]) -> list[list[float]]:
            model = await platform.providers.embedding_model()
            keys = [self.key(model, text) for text in texts]
            missing = list(dict.fromkeys(k for k in keys if k not in self.vectors))
            if missing:
                by_key = dict(zip(keys, texts, strict=True))
                fresh = await embed([by_key[k] for k in missing])
                self.vectors.update(zip(missing, fresh, strict=True))
                self.embedded += len(missing)
            self.reused += len(keys) - len(missing)
            return [self.vectors[k] for k in keys]

        platform.providers.embed = cached

    def save(self) -> None:
        """Write the vectors to ``path`` (when there is one and something new was embedded)."""
        if self.path is None or self.embedded == self.saved or not self.vectors:
            return
        self.saved = self.embedded
        keys = numpy.array(list(self.vectors))
        matrix = numpy.array(list(self.vectors.values()), dtype="float32")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("wb") as target:
            numpy.savez(target, keys=keys, vectors=matrix)

"""Reading an ``/embeddings`` answer's vectors from its JSON, in both wire forms."""

from __future__ import annotations

import base64
from array import array
from typing import Any

import pytest

from kinbot_core.providers import MalformedResponse
from kinbot_plugins.memory.history_index import vector_bytes
from kinbot_plugins.providers.embedding_wire import embedding_vectors
from tests.support.fakes._data import embedding_base64, fake_embedding


def answer(*embeddings: Any, order: list[int] | None = None) -> dict[str, Any]:
    places = order if order is not None else list(range(len(embeddings)))
    return {
        "data": [{"index": i, "embedding": embeddings[i]} for i in places],
        "usage": {"prompt_tokens": 12},
    }


def test_base64_and_number_lists_give_the_same_vectors_in_the_texts_order() -> None:
    first, second = fake_embedding("soup recipes", 8), fake_embedding("garden", 8)
    as_base64 = answer(embedding_base64(first), embedding_base64(second), order=[1, 0])
    vectors, tokens = embedding_vectors(as_base64, 2, "OpenAI")
    assert [list(vector) for vector in vectors] == [first, second] and tokens == 12
    # float32 as it came, so that sqlite-vec gets those bytes back without a float each
    assert all(isinstance(v, array) and v.typecode == "f" for v in vectors)
    assert (
        vector_bytes(vectors[0]) == vector_bytes(first) == base64.b64decode(embedding_base64(first))
    )
    assert embedding_vectors(answer(first, second), 2, "OpenAI") == ([first, second], 12)


def test_an_answer_without_usage_counts_no_tokens() -> None:
    vector = fake_embedding("soup", 4)
    assert embedding_vectors({"data": [{"embedding": vector}]}, 1, "OpenAI") == ([vector], 0)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"data": []}, "returned 0 vectors for 1 texts"),
        ("not an object", "returned 0 vectors for 1 texts"),
        ({"data": [{"index": 3, "embedding": [0.5]}]}, "without its place"),
        ({"data": [{"index": 0, "embedding": "%%%"}]}, "not float32"),
        ({"data": [{"index": 0, "embedding": ["a", 1]}]}, "not a list of numbers"),
        ({"data": [{"index": 0, "embedding": None}]}, "not a list of numbers"),
    ],
)
def test_a_malformed_answer_is_refused_with_the_providers_name(body: Any, says: str) -> None:
    with pytest.raises(MalformedResponse, match=says) as refused:
        embedding_vectors(body, 1, "OpenAI")
    assert refused.value.message.startswith("OpenAI ")


def test_two_vectors_for_the_same_place_are_refused() -> None:
    twice = {"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]}
    with pytest.raises(MalformedResponse, match="without its place"):
        embedding_vectors(twice, 2, "OpenAI")

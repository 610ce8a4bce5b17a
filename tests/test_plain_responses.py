"""Plain JSON answers skip quart-schema's conversion and read exactly as before."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
import quart_schema.conversion
from pydantic import BaseModel, TypeAdapter
from quart import Quart
from quart_schema import QuartSchema

from kinbot_web import plain_responses


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    labels: tuple[str, ...]


class Note(BaseModel):
    text: str
    at: datetime


AT = datetime(2026, 12, 5, 9, 30, tzinfo=UTC)
#: What views return, each answered by ``/answer/<n>``.
ANSWERS: list[Any] = [
    {"kin": {"id": "k1", "name": "Chef"}, "queue_length": 0},
    [{"id": 1}, {"id": 2}],
    ({"created": True}, 201),
    {"point": Point(3, ("a", "b")), "note": Note(text="hi", at=AT), "at": AT},
    ({"retry": True}, 429, {"retry_after": "5"}),
    Point(1, ("c",)),
]


def app_answering(*, plain: bool) -> Quart:
    app = Quart(__name__)
    make_plain_response = app.make_response
    QuartSchema(app, openapi_path=None, swagger_ui_path=None, redoc_ui_path=None)
    if plain:
        plain_responses.install(app, make_plain_response)

    @app.get("/answer/<int:n>")
    async def answer(n: int) -> Any:
        return ANSWERS[n]

    return app


async def answers(app: Quart) -> list[tuple[int, str | bytes, str | None]]:
    client = app.test_client()
    seen = []
    for n in range(len(ANSWERS)):
        response = await client.get(f"/answer/{n}")
        seen.append(
            (response.status_code, await response.get_data(), response.headers.get("retry-after"))
        )
    return seen


async def test_every_answer_reads_as_quart_schema_made_it() -> None:
    assert await answers(app_answering(plain=True)) == await answers(app_answering(plain=False))


async def test_a_dict_answer_builds_no_pydantic_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    adapter = TypeAdapter

    def counted(kind: Any) -> Any:
        built.append(kind)
        return adapter(kind)

    monkeypatch.setattr(quart_schema.conversion, "TypeAdapter", counted)
    client = app_answering(plain=True).test_client()
    for n in (0, 1, 2):
        assert (await client.get(f"/answer/{n}")).status_code in (200, 201)
    assert built == []
    # With headers as a dict, the answer is converted: the body, then the headers (whose
    # names QuartSchema writes in kebab case).
    await client.get("/answer/4")
    assert built == [dict, dict]

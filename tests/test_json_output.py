"""JSON responses and live events written by orjson read, once parsed, as the standard library
wrote them."""

from __future__ import annotations

import json
from typing import Any

from quart import Quart
from quart_schema import QuartSchema

from kinbot_core.live import LiveItem
from kinbot_web import json_output
from tests.test_plain_responses import ANSWERS, AT

#: What orjson cannot write, or writes otherwise: these go to the provider, or read the same.
AWKWARD: list[Any] = [
    {"huge": 2**70, "list": [2**80]},
    {"café": "crème brûlée", "emoji": "🍰"},
    {1: "one", 2: "two"},
    {"b": 1, "a": {"d": 2, "c": 3}},
]


def app_answering(*, fast: bool) -> Quart:
    app = Quart(__name__)
    QuartSchema(app, openapi_path=None, swagger_ui_path=None, redoc_ui_path=None)
    if fast:
        json_output.install(app)

    @app.get("/answer/<int:n>")
    async def answer(n: int) -> Any:
        return (ANSWERS + AWKWARD)[n]

    return app


async def parsed_answers(app: Quart) -> list[tuple[int, Any]]:
    client = app.test_client()
    seen = []
    for n in range(len(ANSWERS) + len(AWKWARD)):
        response = await client.get(f"/answer/{n}")
        seen.append((response.status_code, json.loads(await response.get_data())))
    return seen


async def test_every_answer_parses_as_the_standard_library_wrote_it() -> None:
    fast = await parsed_answers(app_answering(fast=True))
    assert fast == await parsed_answers(app_answering(fast=False))
    assert fast[len(ANSWERS)][1]["huge"] == 2**70


async def test_keys_come_sorted_and_text_as_utf8() -> None:
    client = app_answering(fast=True).test_client()
    body = await (await client.get(f"/answer/{len(ANSWERS) + 3}")).get_data()
    assert body == b'{"a":{"c":3,"d":2},"b":1}\n'
    body = await (await client.get(f"/answer/{len(ANSWERS) + 1}")).get_data()
    assert "crème brûlée".encode() in body


def test_a_pretty_dump_is_the_providers() -> None:
    app = app_answering(fast=True)
    assert app.json.dumps({"b": [1], "a": 2}, indent=2) == '{\n  "a": 2,\n  "b": [\n    1\n  ]\n}'


def test_a_live_event_writes_dates_and_big_numbers_as_before() -> None:
    data = {"at": AT, "huge": 2**70, "text": "crème"}
    for item_data in ({"at": AT, "text": "crème"}, data):
        item = LiveItem(7, "message", item_data)
        sent = item.to_sse().decode()
        assert sent.startswith("id: 7\nevent: message\ndata: ")
        assert json.loads(sent.split("data: ", 1)[1]) == json.loads(
            json.dumps(item_data, default=str)
        )

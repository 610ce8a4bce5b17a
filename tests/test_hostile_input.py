"""Hostile requests over real HTTP: malformed JSON, integers beyond SQLite's range, wrong
types, oversized values, damaged images. Each gets a 4xx with the API's JSON error body, never
a 500."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.server import RunningServer, running_server

JSON = {"content-type": "application/json"}
TOO_BIG = 2**63  # one past SQLite's largest integer
JSON_BODY_MAX = 256 * 1024


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with serve_with_openai(data_dir, fake_llm, json_body_max_bytes=JSON_BODY_MAX) as server:
        yield server


def refusal(response: httpx.Response, status: int, code: str, case: str) -> dict[str, Any]:
    """The error body of a refused request, checked for its status, code and shape."""
    assert response.status_code == status, f"{case}: {response.status_code} {response.text}"
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, f"{case}: {error}"
    assert isinstance(error["message"], str) and error["message"], case
    return error


async def test_malformed_json_bodies_get_400_with_a_message(server: RunningServer) -> None:
    cases = {
        "invalid UTF-8": b'{"name": "\xff\xfe", "model": "gpt-4o"}',
        "100 000 nested arrays": b"[" * 100_000 + b"]" * 100_000,
        "33 nested objects": b'{"a": ' * 33 + b"1" + b"}" * 33,
        "NaN": b'{"name": NaN, "model": "gpt-4o"}',
        "Infinity": b'{"name": "x", "model": "gpt-4o", "role": -Infinity}',
        "a number of 5000 digits": b'{"name": ' + b"9" * 5000 + b"}",
        "not JSON": b"{name: 'x'}",
        "truncated": b'{"name": "x", "model": ',
    }
    for case, body in cases.items():
        response = await server.client.post("/api/kins", content=body, headers=JSON)
        refusal(response, 400, "invalid_json", case)
    assert (await server.client.get("/api/kins")).json()["kins"] == []


async def test_json_of_the_wrong_shape_gets_400_naming_the_field(server: RunningServer) -> None:
    cases: dict[str, tuple[Any, str]] = {
        "an array": ([1, 2], ""),
        "a string": ("a Kin", ""),
        "null": (None, ""),
        "a number for a string": ({"name": 5, "model": "gpt-4o"}, "name"),
        "an object for a list": ({"name": "x", "model": "gpt-4o", "tools": {"a": 1}}, "tools"),
        "a name too long": ({"name": "x" * 81, "model": "gpt-4o"}, "name"),
        "a tool name too long": ({"name": "x", "model": "gpt-4o", "tools": ["t" * 101]}, "tools.0"),
    }
    for case, (body, field) in cases.items():
        response = await server.client.post("/api/kins", json=body)
        error = refusal(response, 400, "invalid_request", case)
        assert field in [each["field"] for each in error["details"]["fields"]], (case, error)
    config = {"api_key": "k" * 10_001}
    provider = await server.client.post(
        "/api/providers", json={"type": "openai", "name": "Big", "config": config}
    )
    refusal(provider, 400, "invalid_request", "a provider setting too long")
    mcp = {"name": "big", "transport": "stdio", "command": "x", "env": {"A": "v" * 4001}}
    refusal(await server.client.post("/api/mcp-servers", json=mcp), 400, "invalid_request", "env")


async def test_a_json_body_past_the_limit_gets_413(server: RunningServer) -> None:
    body = b'{"name": "x", "model": "gpt-4o", "character": "' + b"a" * JSON_BODY_MAX + b'"}'
    response = await server.client.post("/api/kins", content=body, headers=JSON)
    error = refusal(response, 413, "body_too_large", "a JSON body past json_body_max_bytes")
    assert str(JSON_BODY_MAX) in error["message"]


async def test_integers_beyond_sqlite_get_400_not_an_overflow(server: RunningServer) -> None:
    client = server.client
    kin_id = await make_kin(client)
    task_id = "no-such-task"
    query_cases = {
        "before past 2**63": f"/api/kins/{kin_id}/messages?before={TOO_BIG}",
        "before below -2**63": f"/api/kins/{kin_id}/messages?before={-TOO_BIG - 1}",
        "before of 30 digits": f"/api/kins/{kin_id}/messages?before={10**30}",
        "limit past 2**63": f"/api/kins/{kin_id}/messages?limit={TOO_BIG}",
        "a decimal limit": f"/api/kins/{kin_id}/messages?limit=1e5",
        "an Arabic-Indic digit": f"/api/kins/{kin_id}/messages?before=%D9%A1",
        "tasks limit past 2**63": f"/api/tasks?limit={TOO_BIG}",
        "task before past 2**63": f"/api/tasks/{task_id}?before={TOO_BIG}",
    }
    for case, url in query_cases.items():
        refusal(await client.get(url), 400, "invalid_request", case)
    rollback = f"/api/kins/{kin_id}/compacting/rollback"
    for snapshot_id in (TOO_BIG, 2**70, -TOO_BIG - 1, 0):
        response = await client.post(rollback, json={"snapshot_id": snapshot_id})
        refusal(response, 400, "invalid_request", f"snapshot_id {snapshot_id}")
    for memory_id in (str(TOO_BIG), str(10**30), "²", "-1", "0"):
        response = await client.delete(f"/api/kins/{kin_id}/memories/{memory_id}")
        refusal(response, 404, "not_found", f"memory {memory_id!r}")
    # The largest integer SQLite stores is an ordinary id: not found, not refused.
    page = await client.get(f"/api/kins/{kin_id}/messages?before={TOO_BIG - 1}&limit={TOO_BIG - 1}")
    assert page.status_code == 200 and page.json()["messages"] == []
    response = await client.post(rollback, json={"snapshot_id": TOO_BIG - 1})
    refusal(response, 404, "not_found", "the largest snapshot id")


def png_with_truncated_header() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (7, 5)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    data[11] = 6  # IHDR declares 6 bytes instead of 13: Pillow raises ValueError
    return bytes(data)


#: A GIF whose frame lies outside its canvas (found by mutating small images): Pillow raises
#: "tile cannot extend outside image" (a ValueError) when it is decoded.
GIF_FRAME_OUTSIDE = bytes.fromhex(
    "47494638376107000500810000030000002d001500000000002c0000ad7400000700050000080c0001081c48"
    "b0a0c183070302003b"
)


async def test_a_damaged_image_as_avatar_gets_400(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    images = {"truncated PNG header": png_with_truncated_header(), "GIF": GIF_FRAME_OUTSIDE}
    for case, data in images.items():
        for url in ("/api/me/avatar", f"/api/kins/{kin_id}/avatar"):
            response = await server.client.put(url, files={"avatar": ("a.png", data, "image/png")})
            refusal(response, 400, "avatar_rejected", f"{case} to {url}")


async def test_a_file_name_too_long_for_the_file_system_is_not_found(
    data_dir: Path, tmp_path: Path
) -> None:
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text("<!doctype html><div id='root'></div>")
    platform = Platform(load_settings(data_dir=data_dir, frontend_dir=build))
    async with running_server(platform) as server:
        long_name = "a" * 300  # beyond NAME_MAX (255): stat() fails with ENAMETOOLONG
        missing = await server.client.get(f"/assets/{long_name}.js")
        assert missing.status_code == 404, missing.text
        assert missing.json()["error"]["code"] == "not_found"
        route = await server.client.get(f"/kins/{long_name}")
        assert route.status_code == 200 and "root" in route.text

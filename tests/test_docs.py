"""The API reference and the OpenAPI document list the same routes."""

from __future__ import annotations

import re
from pathlib import Path

from kinbot_core.platform import Platform
from tests.support.server import running_server

ROOT = Path(__file__).resolve().parents[1]


async def test_docs_api_documents_every_route_of_the_openapi_document(platform: Platform) -> None:
    async with running_server(platform) as server:
        document = (await server.client.get("/openapi.json")).json()
    in_openapi = {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
    }
    text = (ROOT / "docs" / "api.md").read_text()
    in_docs = set(re.findall(r"^### `([A-Z]+) (/\S+)`", text, re.MULTILINE))
    assert in_docs == in_openapi

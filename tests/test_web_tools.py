"""``web_search`` (only with a search provider, through the fake Brave and SearXNG servers) and
``fetch_page`` (with and without the allow-list) in a Kin's turns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply, SearchResult
from tests.support.page_server import page_server
from tests.support.provider_setups import SEARCH_SETUPS, Setup, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.test_mcp import make_kin, offered_tools, run_turn, tool_results


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def started(data_dir: Path, **settings: Any) -> Any:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0, **settings))
    return running_server(platform)


async def ready(server: RunningServer, fake_llm: FakeOpenAI) -> str:
    await set_up_admin(server.client)
    await add_openai_provider(server.client, fake_llm)
    return await make_kin(server.client, [])


@pytest.mark.parametrize("setup", SEARCH_SETUPS, ids=str)
async def test_web_search_only_with_a_search_provider(
    data_dir: Path, fake_llm: FakeOpenAI, setup: Setup
) -> None:
    async with started(data_dir) as server:
        kin_id = await ready(server, fake_llm)
        fake_llm.enqueue(Reply(text="I cannot search."))
        await run_turn(server.client, kin_id, "Search the web")
        assert "web_search" not in offered_tools(fake_llm)
        assert "fetch_page" in offered_tools(fake_llm)
        with setup.fake_class() as search:
            response = await server.client.post(
                "/api/search-providers",
                json={
                    "type": setup.type_name,
                    "name": "Search",
                    "config": setup.make_config(search),
                },
            )
            assert response.status_code == 201, response.text
            hits = [
                SearchResult(
                    "Risotto guide", "https://food.example/risotto", "Stir.", "2025-03-01"
                ),
                SearchResult("Rice facts", "https://rice.example/", "Grains.", None),
            ]
            search.enqueue(Reply(search_results=hits))
            fake_llm.enqueue(
                Reply(tool_calls=[("web_search", {"query": "risotto", "count": 2})]),
                Reply(text="Found two."),
            )
            turn = await run_turn(server.client, kin_id, "Search risotto")
            assert "web_search" in offered_tools(fake_llm)
            [result] = tool_results(turn)
            assert not result["is_error"], result["content"]
            found = json.loads(result["content"])["results"]
            assert [(r["title"], r["url"], r["description"]) for r in found] == [
                ("Risotto guide", "https://food.example/risotto", "Stir."),
                ("Rice facts", "https://rice.example/", "Grains."),
            ]
            assert found[0]["age"] and "2025-03-01" in found[0]["age"]
            request = [r for r in search.requests if r.endpoint == "search"][-1]
            assert request.query.get("q") == "risotto" or request.form.get("q") == "risotto"
            # A bad argument is a tool error the model can read.
            fake_llm.enqueue(
                Reply(tool_calls=[("web_search", {"query": "x", "count": 99})]), Reply(text="ok")
            )
            turn = await run_turn(server.client, kin_id, "Search more")
            assert tool_results(turn)[0]["is_error"]
            assert "from 1 to 10" in tool_results(turn)[0]["content"]


async def test_fetch_page_reaches_a_local_page_only_when_allowed(
    tmp_path: Path, fake_llm: FakeOpenAI
) -> None:
    async with page_server() as site:
        url = f"{site}/page"
        async with started(tmp_path / "open", fetch_allowed_networks="127.0.0.1") as server:
            kin_id = await ready(server, fake_llm)
            fake_llm.enqueue(Reply(tool_calls=[("fetch_page", {"url": url})]), Reply(text="Read."))
            turn = await run_turn(server.client, kin_id, "Read the page")
            [result] = tool_results(turn)
            assert not result["is_error"], result["content"]
            page = json.loads(result["content"])
            assert page["title"] == "Mushroom risotto" and "Serve hot." in page["text"]
        async with started(tmp_path / "closed") as server:
            kin_id = await ready(server, fake_llm)
            fake_llm.enqueue(Reply(tool_calls=[("fetch_page", {"url": url})]), Reply(text="No."))
            turn = await run_turn(server.client, kin_id, "Read the page")
            [result] = tool_results(turn)
            assert result["is_error"]
            assert "Refused: 127.0.0.1 is a loopback address" in result["content"]

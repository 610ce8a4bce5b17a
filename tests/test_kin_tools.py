"""Which tools a turn offers: the registered ones whose audience fits (main session or
sub-Kin) and the ones plugins add for one Kin through ``tools_for_kin``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.events.catalogue import PluginError
from kinbot_core.platform import Platform
from kinbot_core.tools import FunctionTool, ToolContext, is_tool, object_schema
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import make_kin, session, tell, tool_results, turn_ended
from tests.support.provider_setups import add_openai_provider
from tests.support.server import running_server
from tests.support.sse import sse_stream


class DiceTool:
    """A tool only one Kin gets."""

    name = "roll_dice"
    description = "Roll a die."
    parameters = object_schema({})
    prompt_hint = "Roll the die when asked for luck."

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"rolled": 4, "for": context.kin_name}


class ShadowTool(DiceTool):
    """Named like a registered tool: never offered in its place."""

    name = "list_kins"


class PerKinTools:
    """Gives ``roll_dice`` to the Kin named Lucky; a second implementation always fails."""

    @hookimpl
    def tools_for_kin(self, kin: Any) -> list[Any] | None:
        return [DiceTool(), ShadowTool()] if kin.name == "Lucky" else None


class BrokenTools:
    @hookimpl
    async def tools_for_kin(self, kin: Any, platform: Any) -> list[Any]:
        raise RuntimeError("cannot list my tools")


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def test_a_plugin_gives_one_kin_its_own_tools(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    def respond(request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        if request.body["messages"][-1]["role"] == "tool":
            return Reply(text="Done.")
        offered = {tool["function"]["name"] for tool in request.body.get("tools", [])}
        return Reply(tool_calls=[("roll_dice", {})]) if "roll_dice" in offered else Reply(text="Hi")

    fake_llm.responder = respond
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0))
    platform.plugins.register(PerKinTools(), name="per_kin_tools")
    platform.plugins.register(BrokenTools(), name="broken_tools")
    failures: list[PluginError] = []
    platform.bus.on(PluginError, lambda event: failures.append(event))  # type: ignore[arg-type]
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        lucky = await make_kin(server.client, "Lucky")
        plain = await make_kin(server.client, "Plain")
        async with sse_stream(server.client) as stream:
            for kin_id in (lucky, plain):
                turn = await tell(server.client, kin_id, "Feeling lucky?")
                await stream.wait_for(turn_ended(turn))

        (rolled,) = tool_results(await session(server.client, lucky), "roll_dice")
        assert json.loads(rolled["content"]) == {"rolled": 4, "for": "Lucky"}
        assert tool_results(await session(server.client, plain), "roll_dice") == []
        lucky_request, plain_request = (
            r.body
            for r in fake_llm.requests
            if r.endpoint == "chat" and len(r.body["messages"]) == 2
        )
        names = [tool["function"]["name"] for tool in lucky_request["tools"]]
        assert names.count("list_kins") == 1 and "roll_dice" in names
        assert "Roll the die when asked for luck." in lucky_request["messages"][0]["content"]
        assert "roll_dice" not in {t["function"]["name"] for t in plain_request["tools"]}
        # Sub-Kin tools are not offered in a main session; the failing plugin was reported.
        assert "report_to_parent" not in names and "spawn_self" in names
        assert {(f.plugin, f.hook) for f in failures} == {("broken_tools", "tools_for_kin")}


def test_a_tool_is_told_from_what_is_not_one_again_and_again() -> None:
    async def run(context: ToolContext, arguments: dict[str, Any]) -> str:
        return "done"

    tool = FunctionTool("get_time", "The time.", {"type": "object"}, run)
    assert is_tool(tool) and is_tool(tool)

    class Nameless:  # no description, parameters nor run: not a tool
        name = "nameless"

    for _ in range(2):
        assert not is_tool(Nameless()) and not is_tool(None) and not is_tool("a tool")

"""A prompt that fits the model's window: ten turns in a 2,048-token window (set through
``compacting_context_windows``) against a fake server that refuses anything longer, in the
order the budget sheds what matters least, with compacting following the window, and a
model that cannot call tools getting none (and told so)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookspecs.types import ChatContext
from kinbot_core import hookimpl
from kinbot_core.config import load_settings
from kinbot_core.kins.prompt_budget import STAGES, PromptBudget, WindowInForce, fit
from kinbot_core.platform import Platform
from kinbot_core.providers import ChatEvent, ChatRequest, ModelInfo
from kinbot_core.providers.interfaces import LLMCapability
from kinbot_core.tools import Tool, ToolContext
from kinbot_plugins.providers.openai_compatible import (
    CompatibleProvider,
    OpenAICompatibleProviderType,
)
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._server import RecordedRequest
from tests.support.fakes.local_metadata import ollama_show
from tests.support.kin_chat import make_kin, session, tell, turn_ended
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

SUMMARY_MARKER = "You maintain the working memory"


def system_of(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    return str((body.get("messages") or [{}])[0].get("content"))


def turns(fake: FakeOpenAI) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.endpoint == "chat" and "You are " in system_of(r)]


def answer(request: RecordedRequest) -> Reply:
    if SUMMARY_MARKER in system_of(request):
        return Reply(text="SUMMARY: Nico and Chef planned the week's meals.")
    return Reply(text="Good idea, let us do that.")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.responder = answer
        yield server


async def serve(
    data_dir: Path, fake: FakeOpenAI, *plugins: object, **settings: Any
) -> AsyncIterator[RunningServer]:
    platform = Platform(load_settings(data_dir=data_dir, llm_max_retries=0, **settings))
    for number, plugin in enumerate(plugins):
        platform.plugins.register(plugin, name=f"test_plugin_{number}")
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake)
        yield server


@pytest.fixture
async def small_window(data_dir: Path, fake: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """gpt-4o with a 2,048-token window, as a llama.cpp server started with ``-c 2048``."""
    fake.window = 2048
    async for server in serve(data_dir, fake, compacting_context_windows={"gpt-4o": 2048}):
        yield server


def day(number: int) -> str:
    return f"Meal plan, day {number}: what about a vegetable soup? " + "Leeks, carrots. " * 10


async def test_ten_turns_fit_a_2048_token_window_and_compacting_follows_it(
    small_window: RunningServer, fake: FakeOpenAI
) -> None:
    server = small_window
    kin_id = await make_kin(server.client, character="Warm, precise and brief. " * 8)
    async with sse_stream(server.client) as stream:
        for number in range(1, 11):
            message_id = await tell(server.client, kin_id, day(number))
            await stream.wait_for(turn_ended(message_id))
        compacted = await stream.wait_for(
            lambda e: e.type == "kin.compacting" and e.data["status"] == "done"
        )
    assert compacted.data["kin_id"] == kin_id
    messages = await session(server.client, kin_id)
    assert not [m for m in messages if m["is_error"]]
    replies = [m for m in messages if m["role"] == "assistant"]
    assert len(replies) == 10 and {m["content"] for m in replies} == {"Good idea, let us do that."}
    sent = turns(fake)
    assert len(sent) == 10  # none refused, none retried
    assert max(FakeOpenAI.needed_tokens(r.body) for r in sent) <= 2048
    # Shed to fit: fewer tools than the platform has, with short descriptions.
    offered = [tool["function"] for tool in sent[-1].body.get("tools", [])]
    assert 0 < len(offered) < 20
    assert all(len(tool["description"]) <= 120 for tool in offered)

    response = await server.client.get(f"/api/kins/{kin_id}/compacting")
    state = response.json()
    assert state["context_window"] == 2048
    # The share of the window, less the prompt that is sent with every call.
    assert 0 < state["threshold_tokens"] < int(2048 * 0.75)
    assert state["active"]["summary"].startswith("SUMMARY")


# -- the order of what is shed ------------------------------------------------------------------


class Sample:
    """A tool as the registry holds it."""

    def __init__(self, name: str, description: str, audience: str = "all") -> None:
        self.name = name
        self.description = description
        self.parameters: dict[str, Any] = {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What to look for. " * 4}},
        }
        self.prompt_hint = f"Use {name} with care." if name == "weather" else ""
        self.audience = audience

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        return "done"


SAMPLES: list[Tool] = [
    Sample("weather", "The weather forecast of a city. It covers the next five days."),
    Sample("send_email", "Send an email to someone. Attachments are possible."),
    Sample("list_files", "List the files of the workspace. Folders first."),
    Sample("generate_image", "Draw an image from a prompt. It is saved in the workspace."),
    Sample("report_to_parent", "Report the task's result to the parent.", audience="task"),
]


def sample_context() -> ChatContext:
    return ChatContext(
        model="gpt-4o",
        system_prompt=[
            "You are Chef, a Kin of KinBot.",
            "## Character\n" + "Warm and thorough, " * 40,
            "## Contacts\nPeople and Kins you know (details: get_contact):\n- Nico (human, id 1)",
            "## Relevant memories\n- Nico loves soup\n- Marie is vegetarian\n- Paul cooks",
            "## Tools\n" + "\n".join(f"- {t.name}: {t.description}" for t in SAMPLES),
            "## Now\nIt is Monday.",
        ],
        messages=[
            {"role": "user", "content": "[Nico] An old question about pasta. " * 10},
            {"role": "assistant", "content": "An old answer about pasta. " * 10},
            {"role": "user", "content": "[Nico] What will the weather be in Lyon tomorrow?"},
        ],
        tools=[
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in SAMPLES
        ],
    )


def budget(tokens: int, *, tools: bool = True) -> PromptBudget:
    return PromptBudget(WindowInForce(tokens, "admin"), reply=0, tools=tools)


def test_the_budget_sheds_what_matters_least_first() -> None:
    context = sample_context()
    whole = fit(context, SAMPLES, budget(100_000))
    assert whole.shed == () and whole.context.system_prompt == context.system_prompt

    # 1. memories, the least relevant (the last) first
    fewer = fit(context, SAMPLES, budget(whole.tokens - 1))
    assert fewer.shed == ("memories",)
    memories = next(s for s in fewer.context.system_prompt if s.startswith("## Relevant"))
    assert "Nico loves soup" in memories and "Paul cooks" not in memories
    assert fewer.context.tools == context.tools
    assert context.system_prompt == sample_context().system_prompt  # the given one is kept

    # 2. shorter tool descriptions: first sentences, parameters without descriptions
    without_memories = replace(
        context, system_prompt=[s for s in context.system_prompt if "memories" not in s]
    )
    size = fit(without_memories, SAMPLES, budget(100_000)).tokens
    shorter = fit(context, SAMPLES, budget(size - 1))
    assert shorter.shed == ("memories", "tool_descriptions")
    assert len(shorter.context.tools) == len(SAMPLES)
    weather = shorter.context.tools[0]
    assert weather["description"] == "The weather forecast of a city."
    assert "description" not in weather["parameters"]["properties"]["query"]

    # 3. tools by relevance to the last request (the weather), the task's own always kept
    fewest = fit(context, SAMPLES, budget(shorter.tokens - 1))
    assert fewest.shed == ("memories", "tool_descriptions", "tools")
    names = [tool["name"] for tool in fewest.context.tools]
    assert names[0] == "weather" and "report_to_parent" in names
    assert len(names) < len(SAMPLES)

    # 4. a leaner prompt, then 5. the oldest exchanges; the last request always stays
    least = fit(context, SAMPLES, budget(1))
    assert least.shed == STAGES and not least.fits
    assert [tool["name"] for tool in least.context.tools] == ["report_to_parent"]
    prompt = "\n\n".join(least.context.system_prompt)
    assert "## Contacts" not in prompt and "Use weather with care." not in prompt
    assert len(next(s for s in least.context.system_prompt if "Character" in s)) < 260
    assert least.context.messages == context.messages[-1:]
    assert least.needed >= least.tokens


@pytest.mark.parametrize("tokens", [100_000, 1], ids=["roomy", "everything shed"])
def test_a_model_without_tools_gets_none_and_is_told_so(tokens: int) -> None:
    fitted = fit(sample_context(), SAMPLES, budget(tokens, tools=False))
    assert fitted.context.tools == []
    prompt = "\n\n".join(fitted.context.system_prompt)
    assert "cannot use tools" in prompt and "- weather:" not in prompt


# -- a model that cannot call tools, end to end --------------------------------------------------


class TextOnlyChat:
    """A server's chat whose models cannot call tools (as Ollama reports some)."""

    def __init__(self, llm: LLMCapability) -> None:
        self._llm = llm

    def chat(self, request: ChatRequest) -> AsyncIterator[ChatEvent]:
        return self._llm.chat(request)

    def supports_tools(self, model: str) -> bool:
        return False

    def supports_vision(self, model: str) -> bool:
        return False

    async def list_models(self) -> list[ModelInfo]:
        return await self._llm.list_models()


class TextOnlyServerType(OpenAICompatibleProviderType):
    """A third party's provider plugin for such a server."""

    name = "text-only-server"
    default_name = "Text only"
    label = "Text-only server"

    def create(self, config: Mapping[str, Any], *, timeout: float) -> CompatibleProvider:
        provider = super().create(config, timeout=timeout)
        assert provider.llm is not None
        provider.llm = TextOnlyChat(provider.llm)  # type: ignore[assignment]
        return provider


class TextOnlyPlugin:
    @hookimpl
    def register_providers(self, register: Callable[[Any], None]) -> None:
        register(TextOnlyServerType())


async def offered_no_tools(
    server: RunningServer, fake: FakeOpenAI, provider: dict[str, Any]
) -> None:
    """Add ``provider`` (named after its model's prefix), and check that a Kin on its
    gpt-4o-mini is sent no tools and told it cannot use them."""
    added = await server.client.post("/api/providers", json=provider)
    assert added.status_code == 201, added.text
    kin_id = await make_kin(server.client, model=f"{provider['name']}/gpt-4o-mini")
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin_id, "Remember that Marie is vegetarian.")
        await stream.wait_for(turn_ended(message_id))
    (request,) = [r for r in turns(fake) if r.body["model"] == "gpt-4o-mini"]
    assert "tools" not in request.body
    assert "cannot use tools" in system_of(request)


async def test_a_kin_whose_model_cannot_call_tools_is_offered_none(
    data_dir: Path, fake: FakeOpenAI
) -> None:
    async for server in serve(data_dir, fake, TextOnlyPlugin()):
        provider = {"type": "text-only-server", "name": "Text only"}
        await offered_no_tools(
            server, fake, {**provider, "config": {"base_url": f"{fake.base_url}/v1"}}
        )


@pytest.mark.parametrize(
    "given_by", ["server", "provider field", "setting"], ids=["asked", "field", "setting"]
)
async def test_an_ollama_model_without_tools_gets_none_whoever_gave_its_window(
    data_dir: Path, fake: FakeOpenAI, given_by: str
) -> None:
    """Ollama says a model cannot call tools in ``/api/show``, which the window lookup asks;
    when an administrator gave the window (as docs/providers.md says to for
    ``OLLAMA_CONTEXT_LENGTH``), the capabilities are still asked."""
    fake.local.ollama["gpt-4o-mini"] = ollama_show(32768, num_ctx=8192, tools=False)
    config = {"base_url": f"{fake.base_url}/v1"}
    if given_by == "provider field":
        config["context_window"] = "8192"
    windows = {"gpt-4o-mini": 8192} if given_by == "setting" else {}
    async for server in serve(data_dir, fake, compacting_context_windows=windows):
        provider = {"type": "openai-compatible", "name": "Ollama", "config": config}
        await offered_no_tools(server, fake, provider)
        assert any(r.path == "/api/show" for r in fake.requests)

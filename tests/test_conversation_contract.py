"""The message contract the web UI reads (docs/api.md, "Message meta"), over real HTTP and SSE
with the fake OpenAI server: a failed turn's error code and the provider's own words (never
our address), Stop keeping the streamed text, Retry superseding a reply and answering again,
task and cron ends as structured facts, and every answered message ending ``done``."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.crons import Clock
from kinbot_core.kins.meta import ERROR_CODES, failure, provider_code
from kinbot_core.providers import ProviderError
from kinbot_core.providers.errors import (
    AuthenticationFailed,
    BadRequest,
    MalformedResponse,
    ModelResolutionError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.gate_tool import gated_server
from tests.support.kin_chat import make_kin, reply_to, serve_with_openai, session, tell, turn_ended
from tests.support.sse import SseEvent, sse_stream

MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def status_is(message_id: int, status: str) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "message.status" and e.data["id"] == message_id and e.data["status"] == status
    )


def error_of(message_id: int) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "message"
        and e.data["message"]["turn_of"] == message_id
        and e.data["message"]["is_error"]
    )


def chats(fake: FakeOpenAI) -> list[RecordedRequest]:
    return fake.requests_to("chat")


def said(request: RecordedRequest) -> list[tuple[str, str]]:
    """The (role, text) pairs of a chat request after its system prompt."""
    return [(m["role"], m.get("content") or "") for m in request.body["messages"][1:]]


def by_id(messages: list[dict[str, Any]], message_id: int) -> dict[str, Any]:
    (found,) = [m for m in messages if m["id"] == message_id]
    return found


# -- failed turns --------------------------------------------------------------------------------


async def test_a_provider_failure_gives_an_error_code_and_the_providers_words_without_our_address(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    address = fake_llm.base_url.removeprefix("http://")
    fake_llm.enqueue(
        Reply(status=500, error_message=f"Engine overloaded at {fake_llm.base_url}/v1, sorry.")
    )
    fake_llm.enqueue(Reply(status=401))
    async with serve_with_openai(data_dir, fake_llm) as server:
        chef = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            first = await tell(server.client, chef, "What do we cook tonight?")
            failed = (await stream.wait_for(error_of(first))).data["message"]
            await stream.wait_for(status_is(first, "failed"))
            second = await tell(server.client, chef, "Still there?")
            refused = (await stream.wait_for(error_of(second))).data["message"]
            await stream.wait_for(status_is(second, "failed"))
        assert failed["role"] == "system" and failed["superseded"] is False
        assert failed["meta"] == {
            "error_code": "provider_failed",
            "detail": "Engine overloaded at [provider address], sorry.",
            "retryable": True,
        }
        assert refused["meta"]["error_code"] == "provider_auth_failed"
        assert refused["meta"]["retryable"] is False
        assert refused["meta"]["detail"].startswith("Incorrect API key provided.")
        stored = await session(server.client, chef)
        assert by_id(stored, failed["id"])["meta"] == failed["meta"]

        await asyncio.to_thread(fake_llm.stop)  # nothing listens there any more
        async with sse_stream(server.client) as stream:
            third = await tell(server.client, chef, "Hello?")
            unreachable = (await stream.wait_for(error_of(third))).data["message"]
            await stream.wait_for(status_is(third, "failed"))
        assert unreachable["meta"] == {
            "error_code": "provider_unreachable",
            "detail": None,
            "retryable": True,
        }
        kin = (await server.client.get(f"/api/kins/{chef}")).json()["kin"]
        assert (kin["state"], kin["last_error_code"]) == ("error", "provider_unreachable")
        states = [e.data for e in stream.of_type("kin.state") if e.data["state"] == "error"]
        assert states[-1]["error_code"] == "provider_unreachable"
        for meta in (failed["meta"], refused["meta"], unreachable["meta"]):
            assert address not in json.dumps(meta) and "Error" not in json.dumps(meta)


@pytest.mark.parametrize(
    ("error", "code", "retryable"),
    [
        (RateLimited("slow down", status=429), "provider_rate_limited", True),
        (AuthenticationFailed("refused", status=401), "provider_auth_failed", False),
        (BadRequest("no such model", status=404), "model_unavailable", False),
        (ModelResolutionError("no provider serves it"), "model_unavailable", False),
        (BadRequest("bad", status=400), "provider_failed", False),
        (ProviderUnavailable("cannot be reached"), "provider_unreachable", True),
        (ProviderTimeout("did not answer in time"), "provider_unreachable", True),
        (ProviderUnavailable("unavailable (502)", status=502), "provider_failed", True),
        (MalformedResponse("unreadable"), "provider_failed", True),
    ],
)
def test_each_provider_error_class_has_its_code(
    error: ProviderError, code: str, retryable: bool
) -> None:
    assert provider_code(error) == (code, retryable)
    assert code in ERROR_CODES


def test_a_providers_detail_keeps_public_links_and_hides_local_addresses() -> None:
    error = ProviderUnavailable(
        "x",
        status=500,
        detail="See https://status.example.com/ ; http://192.168.1.20:11434/api and "
        "http://ollama:11434 failed with sk-secret-1234",
    )
    assert failure(error, lambda text: text.replace("sk-secret-1234", "[SECRET: KEY]")) == {
        "error_code": "provider_failed",
        "detail": "See https://status.example.com/ ; [address] and [address] failed with "
        "[SECRET: KEY]",
        "retryable": True,
    }
    assert failure(KeyError("choices"), str) == {
        "error_code": "internal_error",
        "detail": None,
        "retryable": True,
    }


# -- stop ----------------------------------------------------------------------------------------


async def test_stop_keeps_the_streamed_text_as_the_reply_and_a_restart_does_not_double_it(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    whole = "Tonight a leek and potato soup, then " + "a long story about leeks " * 60
    # 60 characters stream, then the answer waits: it is stopped while it runs.
    fake_llm.enqueue(
        Reply(text=whole, chunk_size=4, chunk_delay=0.05, held=threading.Event(), held_after=16)
    )
    async with serve_with_openai(data_dir, fake_llm) as server:
        chef = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            asked = await tell(server.client, chef, "What do we cook tonight?")
            await stream.wait_for(
                lambda e: (
                    e.type == "kin.delta"
                    and e.data["turn"] == asked
                    and e.data["at"] + len(e.data["text"]) >= 40
                )
            )
            stopped = await server.client.post(f"/api/kins/{chef}/stop")
            assert stopped.json() == {"stopped": True}
            kept = (await stream.wait_for(reply_to(asked))).data["message"]
            await stream.wait_for(status_is(asked, "cancelled"))
            deltas = [
                e.data["text"] for e in stream.of_type("kin.delta") if e.data["turn"] == asked
            ]
        assert kept["meta"] == {"stopped": True} and kept["is_error"] is False
        assert kept["content"] == "".join(deltas)
        assert len(kept["content"]) >= 40 and whole.startswith(kept["content"])
        assert len(kept["content"]) < len(whole)
        # The provider bills what it streamed: the stopped answer counts, as estimated.
        await server.platform.usage.recorder.flush()
        models = (await server.client.get("/api/usage")).json()["by_model"]
        chat = next(model for model in models if model["model"] == "gpt-4o")
        assert chat["calls"] == 1 and chat["output_tokens"] >= len(kept["content"]) // 4
        assert chat["input_tokens"] > 0

        # What it said stays in its context.
        fake_llm.enqueue(Reply(text="Yes, soup."))
        async with sse_stream(server.client) as stream:
            follow = await tell(server.client, chef, "So, soup?")
            await stream.wait_for(status_is(follow, "done"))
        assert ("assistant", kept["content"]) in said(chats(fake_llm)[-1])
        before_restart = await session(server.client, chef)

    requests_before = len(chats(fake_llm))
    async with serve_with_openai(data_dir, fake_llm, first_start=False) as server:
        after_restart = await session(server.client, chef)
        assert after_restart == before_restart
        assert by_id(after_restart, asked)["status"] == "cancelled"
    assert len(chats(fake_llm)) == requests_before


async def test_a_turn_stopped_before_it_said_anything_says_so_and_can_be_retried(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with gated_server(data_dir, fake_llm) as (server, gate):
        chef = await make_kin(server.client)
        fake_llm.enqueue(Reply(tool_calls=[("wait_for_oven", {})]))
        async with sse_stream(server.client) as stream:
            asked = await tell(server.client, chef, "Can we bake?")
            await asyncio.wait_for(gate.entered.wait(), 30)
            assert (await server.client.post(f"/api/kins/{chef}/stop")).json() == {"stopped": True}
            note = (await stream.wait_for(error_of(asked))).data["message"]
            await stream.wait_for(status_is(asked, "cancelled"))
        assert note["meta"] == {"error_code": "turn_stopped", "detail": None, "retryable": True}
        calling = [m for m in await session(server.client, chef) if m["role"] == "assistant"]
        assert [m["tool_calls"][0]["name"] for m in calling] == ["wait_for_oven"]

        # The retry supersedes the whole turn (the call and the note) and answers again.
        fake_llm.enqueue(Reply(text="Yes, the oven works."))
        async with sse_stream(server.client) as stream:
            retried = await server.client.post(f"/api/kins/{chef}/retry")
            assert retried.json() == {"superseded": [calling[0]["id"], note["id"]]}
            await stream.wait_for(reply_to(asked))
            await stream.wait_for(status_is(asked, "done"))
        assert said(chats(fake_llm)[-1]) == [("user", "[Nico] Can we bake?")]


# -- retry ---------------------------------------------------------------------------------------


async def test_retry_supersedes_the_reply_and_answers_the_same_message_again(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        chef = await make_kin(server.client)
        nothing = await server.client.post(f"/api/kins/{chef}/retry")
        assert nothing.status_code == 409
        assert nothing.json()["error"]["code"] == "nothing_to_retry"

        # After an error.
        fake_llm.enqueue(Reply(status=503, error_message="Try again soon."))
        fake_llm.enqueue(Reply(text="A leek soup."))
        async with sse_stream(server.client) as stream:
            asked = await tell(server.client, chef, "What do we cook tonight?")
            error = (await stream.wait_for(error_of(asked))).data["message"]
            await stream.wait_for(status_is(asked, "failed"))
            retried = await server.client.post(f"/api/kins/{chef}/retry")
            assert retried.status_code == 202, retried.text
            assert retried.json() == {"superseded": [error["id"]]}
            superseded = await stream.wait_for(lambda e: e.type == "message.superseded")
            soup = (await stream.wait_for(reply_to(asked))).data["message"]
            await stream.wait_for(status_is(asked, "done"))
            statuses = [e.data["status"] for e in stream.of_type("message.status")]
        assert superseded.data == {"kin_id": chef, "ids": [error["id"]]}
        assert statuses == ["processing", "failed", "queued", "processing", "done"]
        assert soup["content"] == "A leek soup." and soup["superseded"] is False
        assert said(chats(fake_llm)[-1]).count(("user", "[Nico] What do we cook tonight?")) == 1

        # On demand, after a normal reply: the old reply is left out of the next request.
        fake_llm.enqueue(Reply(text="A mushroom risotto."))
        async with sse_stream(server.client) as stream:
            again = await server.client.post(f"/api/kins/{chef}/retry")
            assert again.json() == {"superseded": [soup["id"]]}
            risotto = (await stream.wait_for(reply_to(asked))).data["message"]
            await stream.wait_for(status_is(asked, "done"))
        sent = said(chats(fake_llm)[-1])
        assert sent == [("user", "[Nico] What do we cook tonight?")]
        assert all("leek" not in text for _, text in sent)

        stored = await session(server.client, chef)
        assert [(m["id"], m["superseded"]) for m in stored] == [
            (asked, False),
            (error["id"], True),
            (soup["id"], True),
            (risotto["id"], False),
        ]
        assert by_id(stored, asked)["status"] == "done"
        kin = (await server.client.get(f"/api/kins/{chef}")).json()["kin"]
        assert (kin["state"], kin["last_error_code"]) == ("idle", None)

        # The next message's context has the new reply only.
        fake_llm.enqueue(Reply(text="With parmesan."))
        async with sse_stream(server.client) as stream:
            follow = await tell(server.client, chef, "And with it?")
            await stream.wait_for(status_is(follow, "done"))
        assert said(chats(fake_llm)[-1]) == [
            ("user", "[Nico] What do we cook tonight?"),
            ("assistant", "A mushroom risotto."),
            ("user", "[Nico] And with it?"),
        ]
        # What compacting would fold is the same session, without the superseded reply.
        folded = await server.platform.compacting.session(chef, 200)
        ids = [m.id for m in folded.messages]
        assert asked in ids and risotto["id"] in ids
        assert error["id"] not in ids and soup["id"] not in ids


async def test_retry_is_refused_while_the_kin_answers_and_to_strangers(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    # Begun, then held until stopped: the Kin is still answering when the retry comes.
    fake_llm.enqueue(Reply(text="A long answer " * 20, held=threading.Event(), held_after=3))
    async with serve_with_openai(data_dir, fake_llm) as server:
        chef = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            asked = await tell(server.client, chef, "Tell me everything.")
            await stream.wait_for(lambda e: e.type == "kin.delta" and e.data["turn"] == asked)
            busy = await server.client.post(f"/api/kins/{chef}/retry")
            assert busy.status_code == 409 and busy.json()["error"]["code"] == "kin_busy"
            await server.client.post(f"/api/kins/{chef}/stop")
            await stream.wait_for(turn_ended(asked))

        async with server.new_client() as stranger:
            refused = await stranger.post(f"/api/kins/{chef}/retry")
            assert refused.status_code == 401
            assert refused.json()["error"]["code"] == "unauthenticated"
        unknown = await server.client.post("/api/kins/no-such-kin/retry")
        assert unknown.status_code == 404
        stored = await session(server.client, chef)
        assert not any(m["superseded"] for m in stored)


# -- tasks and crons -----------------------------------------------------------------------------


class Script:
    """The fake model: a behaviour per Kin (``Boss/sub`` for a sub-Kin of Boss) answering the
    last message; after a tool result, the caller ends its turn with a short text."""

    def __init__(self) -> None:
        self.behaviours: dict[str, Callable[[str], Reply]] = {}

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        messages = request.body["messages"]
        name = re.match(r"You are (\w+)", messages[0]["content"])
        assert name, messages[0]["content"]
        kin = name.group(1) + ("/sub" if "ephemeral sub-Kin" in messages[0]["content"] else "")
        if messages[-1]["role"] == "tool":
            return Reply(text="Done.")
        return self.behaviours[kin](messages[-1].get("content") or "")


def task_end(kin_id: str, kind: str) -> Callable[[SseEvent], bool]:
    return lambda e: (
        e.type == "message"
        and e.data["message"]["kin_id"] == kin_id
        and e.data["message"]["kin_message_type"] == kind
    )


async def test_task_ends_carry_their_facts_in_meta(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = Script()
    fake_llm.responder = script
    async with serve_with_openai(data_dir, fake_llm) as server:
        boss = await make_kin(server.client, "Boss")
        helper = await make_kin(server.client, "Helper")
        script.behaviours["Boss"] = lambda text: (
            Reply(tool_calls=[("spawn_self", {"task_description": "Find the answer."})])
            if "yourself" in text
            else Reply(
                tool_calls=[("spawn_kin", {"kin_id": helper, "task_description": "Find a soup."})]
            )
            if "Helper" in text
            else Reply(text="Noted.")
        )
        script.behaviours["Boss/sub"] = lambda text: Reply(text="The answer is 42.")
        script.behaviours["Helper/sub"] = lambda text: Reply(
            tool_calls=[("update_task_status", {"status": "failed", "message": "No leeks."})]
        )
        async with sse_stream(server.client) as stream:
            await tell(server.client, boss, "Do it yourself.")
            result = (await stream.wait_for(task_end(boss, "task_result"))).data["message"]
            await stream.wait_for(turn_ended(result["id"]))
            await tell(server.client, boss, "Ask Helper.")
            failure = (await stream.wait_for(task_end(boss, "task_failed"))).data["message"]
            await stream.wait_for(turn_ended(failure["id"]))
        assert result["kin_message_type"] == "task_result"
        assert result["meta"] == {
            "task_title": "Find the answer.",
            "worker_name": "Boss",
            "spawned_self": True,
            "result": "The answer is 42.",
            "error": None,
            "error_code": None,
            "error_detail": None,
            "cron_name": None,
        }
        assert failure["kin_message_type"] == "task_failed"
        assert failure["meta"] == {
            "task_title": "Find a soup.",
            "worker_name": "Helper",
            "spawned_self": False,
            "result": None,
            "error": "No leeks.",
            "error_code": "task_gave_up",  # the chat words it (`taskErrors`), as the task page
            "error_detail": "No leeks.",
            "cron_name": None,
        }
        stored = await session(server.client, boss)
        assert by_id(stored, result["id"])["meta"] == result["meta"]
        assert by_id(stored, result["id"])["status"] == "done"


async def test_a_cron_runs_result_names_its_cron_in_meta(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script, clock = Script(), Clock()
    clock.set(MONDAY)
    script.behaviours["Alpha/sub"] = lambda text: Reply(text="Headlines: all quiet.")
    fake_llm.responder = script
    async with serve_with_openai(data_dir, fake_llm, clock=clock, cron_timezone="UTC") as server:
        alpha = await make_kin(server.client, "Alpha")
        created = await server.client.post(
            "/api/crons",
            json={"name": "Morning news", "schedule": "0 9 * * *", "kin_id": alpha,
                  "task_description": "Summarise the news in one line."},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        async with sse_stream(server.client) as stream:
            clock.set(MONDAY.replace(minute=59, second=59, microsecond=500_000))  # before nine
            event = await stream.wait_for(
                lambda e: e.type == "message" and e.data["message"]["source"] == "cron"
            )
        message = event.data["message"]
        assert message["status"] == "done" and message["kin_message_type"] == "task_result"
        assert message["meta"] == {
            "task_title": "Morning news",
            "worker_name": "Alpha",
            "spawned_self": True,
            "result": "Headlines: all quiet.",
            "error": None,
            "error_code": None,
            "error_detail": None,
            "cron_name": "Morning news",
        }


# -- every answered message ends done -----------------------------------------------------------


async def test_messages_queued_during_a_turn_each_end_done(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    # The first answer begins, then waits until the next two messages are queued.
    queued_both = threading.Event()
    fake_llm.enqueue(Reply(text="First answer " * 20, chunk_size=4, held=queued_both, held_after=3))
    async with serve_with_openai(data_dir, fake_llm) as server:
        chef = await make_kin(server.client)
        async with sse_stream(server.client) as stream:
            first = await tell(server.client, chef, "One?")
            await stream.wait_for(lambda e: e.type == "kin.delta" and e.data["turn"] == first)
            queued = [await tell(server.client, chef, text) for text in ("Two?", "Three?")]
            queued_both.set()
            for message_id in (first, *queued):
                await stream.wait_for(reply_to(message_id))
                await stream.wait_for(status_is(message_id, "done"))
            await stream.wait_for(lambda e: e.type == "kin.state" and e.data["state"] == "idle")
        stored = await session(server.client, chef)
        assert [m["status"] for m in stored if m["role"] == "user"] == ["done"] * 3
        assert all(m["meta"] is None and m["superseded"] is False for m in stored)

"""Inter-Kin messaging over real HTTP and SSE, with a fake OpenAI server scripted to call the
``send_message`` and ``reply`` tools: correlation, no ping-pong, rate limit, chain depth and
a restart."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import (
    make_kin,
    serve_with_openai,
    session,
    tell,
    tool_results,
    turn_ended,
)
from tests.support.server import RunningServer
from tests.support.sse import sse_stream

#: How a Kin's behaviour answers the last user message it sees (the label included).
Behaviour = Callable[[str], Reply]


class TwoKins:
    """The fake model's script for the Kins Alpha and Beta: each step answers the last
    message; after a tool result the Kin ends its turn with a short text."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.behaviours: dict[str, Behaviour] = {}
        self.seen: dict[str, list[str]] = {"Alpha": [], "Beta": []}

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        messages = request.body["messages"]
        name = "Alpha" if "You are Alpha" in messages[0]["content"] else "Beta"
        last = messages[-1]
        if last["role"] == "tool":
            return Reply(text=f"{name} is done.")
        self.seen[name].append(last["content"])
        return self.behaviours[name](last["content"])


def request_id_in(label: str) -> str:
    found = re.search(r"req_[0-9a-f]{32}", label)
    assert found, label
    return found.group(0)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def two_kins(server: RunningServer, script: TwoKins, fake: FakeOpenAI) -> tuple[str, str]:
    alpha, beta = await make_kin(server.client, "Alpha"), await make_kin(server.client, "Beta")
    script.ids.update(Alpha=alpha, Beta=beta)
    fake.responder = script
    return alpha, beta


def from_kins(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["role"] == "user" and m["source"] == "kin"]


async def wait_for_kin_message(
    stream: Any, to_kin: str, predicate: Callable[[dict[str, Any]], bool] = lambda m: True
) -> dict[str, Any]:
    event = await stream.wait_for(
        lambda e: (
            e.type == "message"
            and e.data["message"]["kin_id"] == to_kin
            and e.data["message"]["source"] == "kin"
            and e.data["message"]["role"] == "user"
            and predicate(e.data["message"])
        )
    )
    message: dict[str, Any] = event.data["message"]
    return message


async def test_a_request_and_its_reply_are_correlated_without_ping_pong(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm) as server:
        alpha, beta = await two_kins(server, script, fake_llm)
        # Alpha asks; Beta answers the request; Alpha, given the answer, tries to answer it
        # back (a model that would ping-pong): the reply tool refuses.
        script.behaviours["Alpha"] = lambda label: (
            Reply(
                tool_calls=[
                    (
                        "send_message",
                        {"kin_id": beta, "message": "Flights to Rome?", "type": "request"},
                    )
                ]
            )
            if label.startswith("[Nico")
            else Reply(
                tool_calls=[("reply", {"request_id": request_id_in(label), "message": "Thanks!"})]
            )
        )
        # Beta answers twice in one step: the request is answered once.
        script.behaviours["Beta"] = lambda label: Reply(
            tool_calls=[
                ("reply", {"request_id": request_id_in(label), "message": "3 flights."}),
                ("reply", {"request_id": request_id_in(label), "message": "And a 4th."}),
            ]
        )
        async with sse_stream(server.client) as stream:
            await tell(server.client, alpha, "Ask Beta about flights to Rome.")
            answer = await wait_for_kin_message(stream, alpha)
            await stream.wait_for(turn_ended(answer["id"]))
            to_kin_events = [e.data for e in stream.of_type("kin.message.to_kin")]

        alpha_session = await session(server.client, alpha)
        beta_session = await session(server.client, beta)
        sent = json.loads(tool_results(alpha_session, "send_message")[0]["content"])
        request_id = sent["request_id"]
        assert re.fullmatch(r"req_[0-9a-f]{32}", request_id)
        assert sent == {
            "status": "sent",
            "to_kin_id": beta,
            "type": "request",
            "request_id": request_id,
        }

        (request,) = from_kins(beta_session)
        assert (request["sender_id"], request["sender_name"]) == (alpha, "Alpha")
        assert (request["kin_message_type"], request["request_id"]) == ("request", request_id)
        assert request["content"] == "Flights to Rome?" and request["chain_depth"] == 1
        assert script.seen["Beta"] == [
            f"[Kin Alpha · request {request_id}: answer it with reply] Flights to Rome?"
        ]

        (reply,) = from_kins(alpha_session)
        assert reply["id"] == answer["id"]
        assert (reply["sender_id"], reply["kin_message_type"]) == (beta, "inform")
        assert reply["request_id"] == request_id and reply["chain_depth"] == 2
        assert script.seen["Alpha"][-1] == (
            f"[Kin Beta · reply to your request {request_id}: for your information, "
            "do not reply to it] 3 flights."
        )
        # The attempt to answer the answer was refused: Beta received nothing more.
        (refused,) = tool_results(alpha_session, "reply")
        assert refused["is_error"] and "no request" in refused["content"]
        assert len(from_kins(await session(server.client, beta))) == 1
        assert [(e["kin_id"], e["type"], e["request_id"]) for e in to_kin_events] == [
            (alpha, "request", request_id),
            (beta, "inform", request_id),
        ]
        first, second = tool_results(beta_session, "reply")
        assert json.loads(first["content"]) == {
            "status": "sent",
            "to_kin_id": alpha,
            "type": "inform",
            "request_id": request_id,
        }
        assert second["is_error"] and "already answered" in second["content"]
        # Every Kin is told how to treat requests and informs.
        # (The last chat request: the history's indexing may embed after it.)
        chat = fake_llm.requests_to("chat")[-1]
        system = chat.body["messages"][0]["content"]
        assert "expects no answer: never reply to it" in system


async def test_an_inform_cannot_be_replied_to(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm) as server:
        alpha, beta = await two_kins(server, script, fake_llm)
        script.behaviours["Alpha"] = lambda label: Reply(
            tool_calls=[
                ("send_message", {"kin_id": beta, "message": "Dinner is at 8.", "type": "inform"})
            ]
        )
        # Beta tries to answer anyway, with a request id it makes up.
        script.behaviours["Beta"] = lambda label: Reply(
            tool_calls=[("reply", {"request_id": "req_" + "0" * 32, "message": "OK!"})]
        )
        async with sse_stream(server.client) as stream:
            await tell(server.client, alpha, "Tell Beta dinner is at 8.")
            inform = await wait_for_kin_message(stream, beta)
            await stream.wait_for(turn_ended(inform["id"]))
        assert (inform["kin_message_type"], inform["request_id"]) == ("inform", None)
        assert script.seen["Beta"] == [
            "[Kin Alpha · inform: for your information, do not reply to it] Dinner is at 8."
        ]
        sent = json.loads(
            tool_results(await session(server.client, alpha), "send_message")[0]["content"]
        )
        assert sent == {"status": "sent", "to_kin_id": beta, "type": "inform"}
        (refused,) = tool_results(await session(server.client, beta), "reply")
        assert refused["is_error"] and "no request" in refused["content"]
        assert from_kins(await session(server.client, alpha)) == []


async def test_the_rate_limit_stops_a_burst(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm, inter_kin_rate_limit=3) as server:
        alpha, beta = await two_kins(server, script, fake_llm)
        burst = [
            ("send_message", {"kin_id": beta, "message": f"News #{n}", "type": "inform"})
            for n in range(5)
        ]
        script.behaviours["Alpha"] = lambda label: Reply(tool_calls=burst)
        script.behaviours["Beta"] = lambda label: Reply(text="Noted.")
        async with sse_stream(server.client) as stream:
            turn = await tell(server.client, alpha, "Send Beta the news.")
            await stream.wait_for(turn_ended(turn))
        results = tool_results(await session(server.client, alpha), "send_message")
        assert [r["is_error"] for r in results] == [False, False, False, True, True]
        assert "at most 3 messages to this Kin every 60 seconds" in results[3]["content"]
        received = from_kins(await session(server.client, beta))
        assert [m["content"] for m in received] == ["News #0", "News #1", "News #2"]


async def test_the_depth_counter_stops_a_runaway_chain(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm, inter_kin_max_chain_depth=3) as server:
        alpha, beta = await two_kins(server, script, fake_llm)

        def ask_the_other(name: str) -> Behaviour:
            other = "Beta" if name == "Alpha" else "Alpha"
            return lambda label: Reply(
                tool_calls=[
                    (
                        "send_message",
                        {
                            "kin_id": script.ids[other],
                            "message": f"{name} asks again.",
                            "type": "request",
                        },
                    )
                ]
            )

        script.behaviours.update(Alpha=ask_the_other("Alpha"), Beta=ask_the_other("Beta"))
        async with sse_stream(server.client) as stream:
            await tell(server.client, alpha, "Start a conversation with Beta.")
            refusal = await stream.wait_for(
                lambda e: (
                    e.type == "message"
                    and e.data["message"]["role"] == "tool"
                    and e.data["message"]["is_error"]
                )
            )
            await stream.wait_for(turn_ended(refusal.data["message"]["turn_of"]))
        refused = refusal.data["message"]
        assert refused["kin_id"] == beta and "maximum depth (3" in refused["content"]
        alpha_in = from_kins(await session(server.client, alpha))
        beta_in = from_kins(await session(server.client, beta))
        depths = sorted(m["chain_depth"] for m in alpha_in + beta_in)
        assert depths == [1, 2, 3]
        assert [m["chain_depth"] for m in beta_in] == [1, 3]


async def test_an_open_request_is_answerable_after_a_restart(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm) as server:
        alpha, beta = await two_kins(server, script, fake_llm)
        script.behaviours["Alpha"] = lambda label: Reply(
            tool_calls=[
                ("send_message", {"kin_id": beta, "message": "Budget for May?", "type": "request"})
            ]
        )
        script.behaviours["Beta"] = lambda label: Reply(text="I will look into it.")
        async with sse_stream(server.client) as stream:
            await tell(server.client, alpha, "Ask Beta for the budget.")
            request = await wait_for_kin_message(stream, beta)
            await stream.wait_for(turn_ended(request["id"]))
    request_id = request["request_id"]

    async with serve_with_openai(data_dir, fake_llm, first_start=False) as server:
        fake_llm.responder = script
        script.behaviours["Beta"] = lambda label: Reply(
            tool_calls=[("reply", {"request_id": request_id, "message": "400 euros."})]
        )
        script.behaviours["Alpha"] = lambda label: Reply(text="Thanks, noted.")
        async with sse_stream(server.client) as stream:
            await tell(server.client, beta, "Answer Alpha's budget request now.")
            answer = await wait_for_kin_message(stream, alpha)
            await stream.wait_for(turn_ended(answer["id"]))
        assert (answer["content"], answer["request_id"]) == ("400 euros.", request_id)
        assert answer["kin_message_type"] == "inform" and answer["sender_id"] == beta


async def test_bad_calls_get_clear_tool_errors(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    script = TwoKins()
    async with serve_with_openai(data_dir, fake_llm) as server:
        alpha, beta = await two_kins(server, script, fake_llm)
        calls = [
            ("send_message", {"kin_id": "nobody", "message": "Hi", "type": "inform"}),
            ("send_message", {"kin_id": alpha, "message": "Hi me", "type": "inform"}),
            ("send_message", {"kin_id": beta, "message": "Hi", "type": "order"}),
            ("send_message", {"kin_id": beta, "message": "  ", "type": "inform"}),
            ("send_message", {"kin_id": beta, "message": "Hi", "type": "inform", "cc": "x"}),
            ("reply", {"request_id": "req_x"}),
        ]
        script.behaviours["Alpha"] = lambda label: Reply(tool_calls=calls)
        async with sse_stream(server.client) as stream:
            turn = await tell(server.client, alpha, "Try the tools.")
            await stream.wait_for(turn_ended(turn))
        alpha_session = await session(server.client, alpha)
        errors = [m["content"] for m in alpha_session if m["role"] == "tool"]
        assert len(errors) == len(calls)
        assert all(m["is_error"] for m in alpha_session if m["role"] == "tool")
        assert "no Kin with id 'nobody'" in errors[0] and "list_kins" in errors[0]
        assert "to yourself" in errors[1]
        assert '"request" or "inform"' in errors[2]
        assert "'message' is required" in errors[3]
        assert "no argument(s) cc" in errors[4]
        assert "'message' is required" in errors[5]
        assert from_kins(await session(server.client, beta)) == []

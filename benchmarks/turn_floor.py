"""What a turn costs the stack KinBot is built on, before any of KinBot's own work: the floor
under ``turn_overhead``'s CPU per turn.

A bare Quart app on hypercorn, in its own process, does what a turn does on the wire and
nothing else: it takes a message over HTTP (a JSON POST answered 201), calls the fake LLM
through the openai SDK on the transport KinBot gives it (a streamed answer, a request body as
large as KinBot's for the Kin in use of ``turn_overhead``: about 52 KB, its system prompt and
window), and sends the same events over SSE (the message's statuses, each delta, the answer).
No database, no authentication, no prompt building, no hooks, no memory. Driven by the same
client as ``turn_overhead``'s CPU grid (one message after the other, each waited for on SSE),
the app's CPU time per turn (user and system, every thread) is what 5 ms a turn has left for
KinBot once the stack has had its share, in the host's phase of the moment.

Run: ``.venv/bin/python -m benchmarks.turn_floor`` (``turn_overhead`` prints it too).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from benchmarks.fake_process import fake_in_subprocess
from benchmarks.server_process import ServerProcess, asking

TURNS = 200
WARM_UP = 10
#: The request's size: a system prompt and a window of messages, about 52 KB in all.
SYSTEM_PROMPT_BYTES = 12_000
WINDOW_MESSAGES = 20
MESSAGE_BYTES = 2_000


def bare_app(base_url: str, sdk_call: str) -> Any:
    """The Quart app: ``POST /api/kins/<kin_id>/messages`` and ``GET /api/events``; the LLM
    is called as KinBot calls it (``sdk_call`` "kinbot": the SDK's HTTP layer, the body
    written by orjson, the stream read by KinBot's reader) or through the SDK's
    ``chat.completions.create`` ("create")."""
    from quart import Quart, Response, request

    from kinbot_core.providers import ChatMessage, ChatRequest, TextDelta
    from kinbot_plugins.providers.openai_provider import OpenAIChat, make_client

    app = Quart(__name__)
    client = make_client({"api_key": "sk-bench", "base_url": f"{base_url}/v1"}, 60, None)
    chat = OpenAIChat(client, "OpenAI", list_models=list)
    streams: set[asyncio.Queue[bytes]] = set()
    ids = itertools.count(1)
    system = "s" * SYSTEM_PROMPT_BYTES
    window = [
        ChatMessage(role="user" if n % 2 == 0 else "assistant", content="w" * MESSAGE_BYTES)
        for n in range(WINDOW_MESSAGES)
    ]

    def publish(kind: str, data: dict[str, Any]) -> None:
        event = b"id: %d\nevent: %s\ndata: %s\n\n" % (next(ids), kind.encode(), orjson.dumps(data))
        for queue in streams:
            queue.put_nowait(event)

    async def texts(content: str) -> AsyncIterator[str]:
        if sdk_call == "kinbot":
            messages = (*window, ChatMessage(role="user", content=content))
            call = ChatRequest(model="gpt-4o", messages=messages, system=system)
            async for event in chat.chat(call):
                if isinstance(event, TextDelta):
                    yield event.text
            return
        wire: list[Any] = [
            {"role": "system", "content": system},
            *({"role": m.role, "content": m.content} for m in window),
            {"role": "user", "content": content},
        ]
        stream: Any = await client.chat.completions.create(
            model="gpt-4o", messages=wire, stream=True
        )
        async for chunk in stream:
            if chunk.choices and (text := chunk.choices[0].delta.content):
                yield text

    async def answer(kin_id: str, message_id: int, content: str) -> None:
        publish("message.status", {"id": message_id, "status": "processing"})
        parts = []
        async for text in texts(content):
            parts.append(text)
            publish("kin.delta", {"kin_id": kin_id, "turn": message_id, "text": text})
        publish("message", {"message": {"kin_id": kin_id, "content": "".join(parts)}})
        publish("message.status", {"id": message_id, "status": "done"})

    @app.after_serving
    async def close() -> None:
        await client.close()

    @app.post("/api/kins/<kin_id>/messages")
    async def send_message(kin_id: str) -> tuple[dict[str, Any], int]:
        body = await request.get_json()
        message_id = next(ids)
        app.add_background_task(answer, kin_id, message_id, body["content"])
        publish("message.status", {"id": message_id, "status": "queued"})
        return {"message": {"id": message_id, "content": body["content"]}}, 201

    @app.get("/api/events")
    async def events() -> Response:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        streams.add(queue)

        async def stream() -> AsyncIterator[bytes]:
            try:
                while True:
                    yield await queue.get()
            finally:
                streams.discard(queue)

        response = Response(stream(), mimetype="text/event-stream")
        response.timeout = None
        return response

    return app


def serve(base_url: str, sdk_call: str) -> None:
    """Serve the bare app on a free loopback port; print its URL once it listens."""
    from hypercorn.asyncio import serve as hypercorn_serve
    from hypercorn.config import Config

    listening = socket.create_server(("127.0.0.1", 0))
    config = Config()
    config.bind = [f"fd://{listening.fileno()}"]
    config.accesslog = None
    config.errorlog = None
    print(f"http://127.0.0.1:{listening.getsockname()[1]}", flush=True)
    asyncio.run(hypercorn_serve(bare_app(base_url, sdk_call), config))


@contextmanager
def bare_in_subprocess(base_url: str, sdk_call: str) -> Iterator[ServerProcess]:
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.turn_floor", "--serve", base_url, "--sdk", sdk_call],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    try:
        yield ServerProcess(child.stdout.readline().strip(), child.pid)
    finally:
        child.terminate()
        child.wait(timeout=30)


async def floor_per_turn(sdk_call: str, turns: int = TURNS) -> tuple[float, float]:
    """The bare app's user and system CPU time (ms) per turn."""
    with (
        fake_in_subprocess("openai", 5) as base_url,
        bare_in_subprocess(base_url, sdk_call) as server,
    ):
        async with asking(server.url) as ask:
            for n in range(WARM_UP):
                await ask("chef", f"warm-up {n}")
            before = server.cpu_split()
            for n in range(turns):
                await ask("chef", f"question {n}")
            user, system = (b - a for a, b in zip(before, server.cpu_split(), strict=True))
    return user / turns * 1000, system / turns * 1000


#: How each variant is told in the report.
SDK_CALLS = {
    "kinbot": "the provider call as KinBot makes it",
    "create": "the SDK's chat.completions.create",
}


def label(sdk_call: str) -> str:
    """How the bare stack calling the SDK as ``sdk_call`` is named in the reports."""
    return f"the stack alone (Quart on hypercorn, SSE, {SDK_CALLS[sdk_call]})"


async def report(turns: int = TURNS, sdk_calls: tuple[str, ...] = tuple(SDK_CALLS)) -> None:
    for sdk_call in sdk_calls:
        user, system = await floor_per_turn(sdk_call, turns)
        print(
            f"  {label(sdk_call)}: "
            f"{user + system:.1f} ms per turn (user {user:.1f}, system {system:.1f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=TURNS)
    parser.add_argument("--sdk", choices=tuple(SDK_CALLS), help="only this way of calling it")
    parser.add_argument("--serve", metavar="BASE_URL", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve:
        serve(arguments.serve, arguments.sdk or "kinbot")
    else:
        print(f"A bare turn's CPU time (mean of {arguments.turns} turns)")
        chosen = (arguments.sdk,) if arguments.sdk else tuple(SDK_CALLS)
        asyncio.run(report(arguments.turns, chosen))

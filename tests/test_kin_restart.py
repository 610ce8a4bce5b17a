"""A server killed in the middle of a turn, restarted on the same data: every queued message
is answered exactly once."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.accounts import NICOLAS
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.provider_setups import API_KEY


def serve(data_dir: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    with log.open("a") as log_file:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kinbot_web.cli",
                "serve",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
            ],
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
            env=env,
        )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("KinBot is running on"):
        process.kill()
        raise AssertionError(log.read_text())
    return process, line.rsplit(" ", 1)[1].strip()


class EchoAfterAHeldFirst:
    """The fake model: its first chat call is answered only once its client has gone (the
    server is killed in the middle of that turn, whatever the machine's load); every other
    one at once, with ``answer to`` and the last message."""

    def __init__(self) -> None:
        self.calls = itertools.count()

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        last = request.body["messages"][-1]["content"]
        never = threading.Event() if next(self.calls) == 0 else None
        return Reply(text=f"answer to {last}", held=never)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.responder = EchoAfterAHeldFirst()
        yield server


def wait_until(condition: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_killed_mid_turn_then_restarted_answers_each_message_once(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    data_dir, log = tmp_path / "data", tmp_path / "server.log"
    first, url = serve(data_dir, log)
    try:
        client = httpx.Client(base_url=url, timeout=60)
        assert client.post("/api/onboarding/identity", json=NICOLAS).status_code == 201
        provider = {"type": "openai", "name": "OpenAI",
                    "config": {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}}  # fmt: skip
        added = client.post("/api/providers", json=provider)
        assert added.status_code == 201, added.text
        kin = client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"}).json()["kin"]
        sent = [
            client.post(
                f"/api/kins/{kin['id']}/messages", json={"content": f"question {n}"}
            ).json()["message"]
            for n in range(4)
        ]
        wait_until(lambda: any(r.endpoint == "chat" for r in fake.requests))
        first.send_signal(signal.SIGKILL)  # in the middle of the first turn
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()

    second, url = serve(data_dir, log)
    try:
        client = httpx.Client(base_url=url, timeout=60, cookies=client.cookies)

        def all_handled() -> bool:
            messages = client.get(f"/api/kins/{kin['id']}/messages").json()["messages"]
            return all(m["status"] in ("done", "failed") for m in messages if m["role"] == "user")

        wait_until(all_handled)
        messages = client.get(f"/api/kins/{kin['id']}/messages?limit=200").json()["messages"]
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)

    users = [m for m in messages if m["role"] == "user"]
    assert [m["id"] for m in users] == [m["id"] for m in sent]
    assert all(m["status"] == "done" for m in users)
    replies = Counter(m["turn_of"] for m in messages if m["role"] == "assistant")
    assert replies == {m["id"]: 1 for m in sent}
    for message in messages:
        if message["role"] == "assistant":
            trigger = next(u for u in users if u["id"] == message["turn_of"])
            assert message["content"] == f"answer to [Nico] {trigger['content']}"
    chats = fake.requests_to("chat")
    asked = Counter(r.body["messages"][-1]["content"] for r in chats)
    # the interrupted question was asked twice (its turn had produced nothing), the others once
    assert asked["[Nico] question 0"] == 2
    assert all(asked[f"[Nico] question {n}"] == 1 for n in (1, 2, 3))

"""Nothing lost, nothing doubled: a real ``kinbot serve`` killed with SIGKILL while a Kin
answers a message that came through Telegram, or while the answer is on its way, then
started again on the same data (python-telegram-bot against the fake Bot API)."""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.accounts import MARIE, NICOLAS
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.provider_setups import API_KEY
from tests.support.serve_process import KinbotProcess, kinbot_serve
from tests.support.telegram_fake import FakeTelegram, TelegramUser
from tests.support.telegram_setup import CODE, TOKEN, telegram_settings

MARIE_TG = TelegramUser(4242, "Marie", "Durand", language_code="en")
QUESTION = "[Marie] A question about dinner"
ANSWER = "Leek soup, at eight."
#: Two paragraphs that cannot share one Telegram message.
LONG = ("First half. " + "lorem " * 500).strip() + "\n\n" + ("Second half. " + "ipsum " * 500)


def wait_until(condition: Callable[[], Any], seconds: float = 90.0) -> Any:
    """The first truthy value of ``condition``, checked every 50 ms (a state the server
    reaches on its own)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("the awaited state was not reached")
        time.sleep(0.05)


class Model:
    """The fake model: ``ANSWER`` to Marie's question, ``LONG`` to the long one, ``{}`` to
    anything else (memory extraction and the like). While ``holding``, the question's next
    asking is answered only once its client has gone (the server is killed in the middle of
    that turn, whatever the machine's load)."""

    def __init__(self) -> None:
        self.holding = False

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        last = request.body["messages"][-1]["content"]
        if last == QUESTION:
            never, self.holding = (threading.Event() if self.holding else None), False
            return Reply(text=ANSWER, held=never)
        if last == "[Marie] Tell me the long one":
            return Reply(text=LONG, chunk_size=1000)
        return Reply(text="{}")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeTelegram, FakeOpenAI, Model]]:
    with FakeTelegram() as telegram, FakeOpenAI() as llm:
        telegram.add_bot(TOKEN)
        llm.responder = model = Model()
        yield telegram, llm, model


def start(tmp_path: Path, name: str) -> Any:
    env = {"KINBOT_CHANNEL_RETRY_BASE_SECONDS": "0.2"}
    return kinbot_serve(tmp_path / "data", tmp_path / f"{name}.log", **env)


def set_up(server: KinbotProcess, telegram: FakeTelegram, llm: FakeOpenAI) -> dict[str, Any]:
    """Nicolas sets up KinBot with a Kin and a Telegram connection; Marie pairs."""
    admin = httpx.Client(base_url=server.url, timeout=60)
    assert admin.post("/api/onboarding/identity", json=NICOLAS).status_code == 201
    provider = {"type": "openai", "name": "OpenAI",
                "config": {"api_key": API_KEY, "base_url": f"{llm.base_url}/v1"}}  # fmt: skip
    assert admin.post("/api/providers", json=provider).status_code == 201
    kin = admin.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"}).json()["kin"]
    channel = admin.post(
        "/api/channels",
        json={"type": "telegram", "label": "Family Telegram", "kin_ids": [kin["id"]],
              "settings": telegram_settings(telegram)},
    )  # fmt: skip
    assert channel.status_code == 201, channel.text
    code = admin.post("/api/invitations", json={"role": "member"}).json()["code"]
    marie = httpx.Client(base_url=server.url, timeout=60)
    assert marie.post("/api/auth/register", json={**MARIE, "code": code}).status_code == 201
    telegram.user_sends(TOKEN, MARIE_TG, "Hello")
    sent = telegram.wait_for_sent(lambda s: any(re.search(CODE, t.text or "") for t in s))
    pairing = re.findall(CODE, "".join(t.text or "" for t in sent))[0]
    linked = marie.post("/api/me/channel-identities", json={"code": pairing})
    assert linked.status_code == 201, linked.text
    telegram.wait_for_sent(lambda s: any("You are linked" in (t.text or "") for t in s))
    return {"kin": kin, "cookies": admin.cookies}


def replies(telegram: FakeTelegram) -> list[str]:
    """What the bot sent Marie, pairing and link notices left out."""
    return [
        s.text or ""
        for s in telegram.messages_to(MARIE_TG.id)
        if not re.search(CODE, s.text or "") and "You are linked" not in (s.text or "")
    ]


def messages(server: KinbotProcess, state: dict[str, Any]) -> list[dict[str, Any]]:
    client = httpx.Client(base_url=server.url, timeout=60, cookies=state["cookies"])
    found: list[dict[str, Any]] = client.get(
        f"/api/kins/{state['kin']['id']}/messages?limit=200"
    ).json()["messages"]
    return found


def test_killed_while_the_kin_answers_then_restarted_answers_once(
    tmp_path: Path, fakes: tuple[FakeTelegram, FakeOpenAI, Model]
) -> None:
    telegram, llm, model = fakes
    with start(tmp_path, "first") as first:
        state = set_up(first, telegram, llm)
        model.holding = True
        update = telegram.user_sends(TOKEN, MARIE_TG, "A question about dinner")
        wait_until(lambda: asked_question(llm))
        first.process.send_signal(signal.SIGKILL)  # in the middle of the Kin's answer
        first.process.wait(timeout=10)
    assert replies(telegram) == []
    with start(tmp_path, "second") as second:
        telegram.wait_for_sent(lambda s: ANSWER in replies(telegram))
        telegram.wait_for_call("getUpdates", count=telegram_calls(telegram) + 1)
        found = messages(second, state)
    assert replies(telegram) == [ANSWER]
    users = [m for m in found if m["role"] == "user"]
    assert [(m["content"], m["status"]) for m in users] == [("A question about dinner", "done")]
    assert [m["content"] for m in found if m["role"] == "assistant"] == [ANSWER]
    assert telegram.confirmed_offset(TOKEN) > update  # taken in once, never again
    assert asked_question(llm) == 2  # the interrupted turn ran again (it had said nothing yet)


def asked_question(llm: FakeOpenAI) -> int:
    """How many times the model was asked Marie's question."""
    return sum(
        1
        for r in llm.requests
        if r.endpoint == "chat" and r.body["messages"][-1]["content"] == QUESTION
    )


def telegram_calls(telegram: FakeTelegram) -> int:
    return sum(1 for _, method in telegram.calls if method == "getUpdates")


def test_killed_while_a_reply_is_sent_then_restarted_sends_the_rest_once(
    tmp_path: Path, fakes: tuple[FakeTelegram, FakeOpenAI, Model]
) -> None:
    telegram, llm, _model = fakes
    with start(tmp_path, "first") as first:
        state = set_up(first, telegram, llm)
        sent_before = len(telegram.sent("sendMessage"))
        calls_before = sum(1 for _, method in telegram.calls if method == "sendMessage")
        gate = telegram.hold("sendMessage", after=1)  # the first part goes, the second hangs
        telegram.user_sends(TOKEN, MARIE_TG, "Tell me the long one")
        telegram.wait_for_call("sendMessage", count=calls_before + 2)
        first.process.send_signal(signal.SIGKILL)  # the second part on its way
        first.process.wait(timeout=10)
        gate.set()
    assert len(telegram.sent("sendMessage")) == sent_before + 1
    with start(tmp_path, "second") as second:
        telegram.wait_for_sent(lambda s: any("Second half." in t for t in replies(telegram)))
        found = messages(second, state)
    parts = replies(telegram)
    assert [part.split(" ", 2)[:2] for part in parts] == [["First", "half."], ["Second", "half."]]
    assert " ".join(" ".join(parts).split()) == " ".join(LONG.split())
    assert [m["content"] for m in found if m["role"] == "assistant"] == [LONG]


def test_sigterm_stops_the_connection_cleanly_and_what_came_meanwhile_is_answered_after(
    tmp_path: Path, fakes: tuple[FakeTelegram, FakeOpenAI, Model]
) -> None:
    telegram, llm, _model = fakes
    with start(tmp_path, "first") as first:
        state = set_up(first, telegram, llm)
        first.process.send_signal(signal.SIGTERM)
        assert first.process.wait(timeout=30) == 0
        log = first.log_text()
    assert "Traceback" not in log and " ERROR " not in log, log
    assert TOKEN not in log  # the HTTP client's request lines show it masked
    telegram.user_sends(TOKEN, MARIE_TG, "A question about dinner")  # while KinBot is down
    with start(tmp_path, "second") as second:
        telegram.wait_for_sent(lambda s: ANSWER in replies(telegram))
        found = messages(second, state)
    assert replies(telegram) == [ANSWER]
    assert [m["content"] for m in found if m["role"] == "user"] == ["A question about dinner"]

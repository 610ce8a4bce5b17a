"""A reply that could not be delivered back to its channel says so in the chat: the reply
carries ``meta.undelivered`` (the channel and why, as a code), live over SSE to those who may
see the Kin and stored for a reload; the person it was for, or an administrator, may send it
again (``POST /api/kins/<id>/messages/<id>/redeliver``), which queues the same delivery
again: nothing sent twice, nothing lost."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db.models import ChannelDeliveryRecord
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, PASSWORD, person, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream
from tests.support.telegram_fake import FakeTelegram
from tests.support.telegram_setup import TOKEN
from tests.support.waiting import eventually
from tests.test_channels_telegram import (
    MARIE_TG,
    fake_llm,
    kin_messages,
    paired_marie,
    telegram,
    texts_to,
)

__all__ = ["fake_llm", "telegram"]  # the fixtures, under the names pytest looks for

PAUL = person("Paul")


@pytest.fixture
async def server(
    data_dir: Path, fake_llm: FakeOpenAI, telegram: FakeTelegram
) -> AsyncIterator[RunningServer]:
    settings = load_settings(
        data_dir=data_dir,
        channel_retry_base_seconds=0.2,
        channel_failing_after=2,
        channel_delivery_max_attempts=2,
    )
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def the_reply(server: RunningServer, kin_id: str, text: str) -> dict[str, Any]:
    async def found() -> dict[str, Any] | None:
        for message in await kin_messages(server, kin_id):
            if message["role"] == "assistant" and message["content"] == text:
                return message
        return None

    return await eventually(found)


async def undelivered(server: RunningServer, kin_id: str, text: str) -> dict[str, Any]:
    async def marked() -> dict[str, Any] | None:
        reply = await the_reply(server, kin_id, text)
        return reply if (reply["meta"] or {}).get("undelivered") else None

    return await eventually(marked)


async def test_a_reply_refused_by_telegram_is_marked_live_and_sent_again_on_request(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, channel = await paired_marie(server, telegram)
    marie_id = next(
        u["id"] for u in (await server.client.get("/api/users")).json()["users"]
        if u["pseudonym"] == "Marie"
    )  # fmt: skip
    fake_llm.enqueue(Reply(text="Lasagne tonight."))
    telegram.fail_next("sendMessage", 403)  # "Forbidden: bot was blocked by the user"
    async with sse_stream(server.client) as events:
        telegram.user_sends(TOKEN, MARIE_TG, "What's for dinner?")
        event = await events.wait_for(
            lambda e: (
                e.type == "message" and bool((e.data["message"]["meta"] or {}).get("undelivered"))
            )
        )
    sign = {"kind": "telegram", "label": channel["label"], "code": "channel_blocked"}
    assert event.data["message"]["meta"]["undelivered"] == {**sign, "recipient_id": marie_id}
    # Stored: a reload shows it; the reply has no "via" badge.
    reply = await undelivered(server, kin_id, "Lasagne tonight.")
    assert reply["meta"]["undelivered"] == {**sign, "recipient_id": marie_id}
    assert "origin" not in reply["meta"]
    assert not any("Lasagne" in t for t in texts_to(MARIE_TG.id)(telegram.sent()))
    # Settings → Channels: the connection runs, and says a reply was not delivered and why.
    listed = (await server.client.get("/api/channels")).json()["channels"]
    assert [(c["state"], c["undelivered"], c["undelivered_code"]) for c in listed] == [
        ("running", 1, "channel_blocked")
    ]
    one = (await server.client.get(f"/api/channels/{channel['id']}")).json()["channel"]
    assert (one["undelivered"], one["undelivered_code"]) == (1, "channel_blocked")

    path = f"/api/kins/{kin_id}/messages/{reply['id']}/redeliver"
    async with server.new_client() as paul:
        await register(server.client, paul, PAUL)
        refused = await paul.post(path)
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    missing = await server.client.post(f"/api/kins/{kin_id}/messages/999999/redeliver")
    assert missing.status_code == 404
    for bad_id in ("abc", "\u00b2", "9" * 30):  # not a number, a superscript digit, too large
        bad = await server.client.post(f"/api/kins/{kin_id}/messages/{bad_id}/redeliver")
        assert bad.status_code == 404, bad.text
        dismissed = await server.client.post(
            f"/api/kins/{kin_id}/messages/{bad_id}/secrets/{bad_id}/dismiss"
        )
        assert dismissed.status_code == 404, dismissed.text

    # Marie unblocked the bot and asks for it again (an administrator may too): it goes
    # once, and the reply gets its badge.
    async with server.new_client() as marie:
        signed_in = await marie.post(
            "/api/auth/login", json={"email": MARIE["email"], "password": PASSWORD}
        )
        assert signed_in.status_code == 200, signed_in.text
        again = await marie.post(path)
    assert again.status_code == 200, again.text
    assert "undelivered" not in (again.json()["message"]["meta"] or {})
    await telegram.sent_when(lambda s: any("Lasagne" in t for t in texts_to(MARIE_TG.id)(s)))

    async def delivered() -> dict[str, Any] | None:
        reply = await the_reply(server, kin_id, "Lasagne tonight.")
        return reply if (reply["meta"] or {}).get("origin") else None

    shown = await delivered_reply(delivered)
    assert "undelivered" not in shown["meta"]
    listed = (await server.client.get("/api/channels")).json()["channels"]
    assert [(c["undelivered"], c["undelivered_code"]) for c in listed] == [(0, None)]
    twice = await server.client.post(path)
    assert (twice.status_code, twice.json()["error"]["code"]) == (409, "delivery_not_failed")
    assert sum("Lasagne" in t for t in texts_to(MARIE_TG.id)(telegram.sent())) == 1


async def delivered_reply(probe: Any) -> dict[str, Any]:
    found: dict[str, Any] = await eventually(probe)
    return found


async def test_a_member_who_may_not_see_the_kin_gets_neither_the_sign_nor_the_retry(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    users = (await server.client.get("/api/users")).json()["users"]
    allowed = [u["id"] for u in users if u["pseudonym"] in ("Nico", "Marie")]
    restricted = await server.client.put(
        f"/api/kins/{kin_id}/access", json={"access": "members", "members": allowed}
    )
    assert restricted.status_code == 200, restricted.text
    async with server.new_client() as paul:
        await register(server.client, paul, PAUL)
        fake_llm.enqueue(Reply(text="Only for Marie and Nico."))
        telegram.fail_next("sendMessage", 403)
        async with sse_stream(paul) as seen_by_paul, sse_stream(server.client) as seen:
            telegram.user_sends(TOKEN, MARIE_TG, "Hi")
            await seen.wait_for(
                lambda e: (
                    e.type == "message"
                    and bool((e.data["message"]["meta"] or {}).get("undelivered"))
                )
            )
        assert not [
            e for e in seen_by_paul.of_type("message") if e.data["message"]["kin_id"] == kin_id
        ]
        reply = await undelivered(server, kin_id, "Only for Marie and Nico.")
        answer = await paul.post(f"/api/kins/{kin_id}/messages/{reply['id']}/redeliver")
        assert answer.status_code == 404


async def test_retryable_failures_end_marked_after_the_last_attempt(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Down the line."))
    telegram.fail_next("sendMessage", 502, count=2)
    telegram.user_sends(TOKEN, MARIE_TG, "Still there?")
    reply = await undelivered(server, kin_id, "Down the line.")
    assert reply["meta"]["undelivered"]["code"] == "channel_unavailable"

    def statuses() -> list[tuple[str, int]]:
        rows = ChannelDeliveryRecord.select().where(ChannelDeliveryRecord.kin == kin_id)
        return [(row.status, row.attempts) for row in rows if row.trigger is not None]

    assert ("failed", 2) in await server.platform.db.read(statuses)

"""Notifications end to end over loopback: a real KinBot server, the fake OpenAI server playing
the model, and a Web Push service on 127.0.0.1 that checks the VAPID signature and keeps the
encrypted payloads, which the tests decrypt as the browser would (RFC 8291).

A cron's sub-Kin notifies the person who set the cron up; the preferences (always, only when
away, never) decide; the Kin's rate limit stops a burst; a subscription the push service says
is gone is removed; another person's device never receives someone else's notification; a
route another part adds (contract 3) is used when chosen.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.crons import Clock
from kinbot_core.db.models import VapidKeyRecord
from kinbot_core.notifications import NoDevice, Notification
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, NICOLAS, register
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, serve_with_openai, session, tell, tool_results
from tests.support.push_service import PushService, Subscriber, push_service
from tests.support.server import RunningServer
from tests.support.sse import SseReader, sse_stream

#: The loopback push service is plain http on 127.0.0.1: both must be allowed.
PUSH_SETTINGS: dict[str, Any] = {
    "push_allow_insecure_endpoints": True,
    "push_allowed_networks": "127.0.0.1",
}
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def fake_llm() -> Any:
    with FakeOpenAI() as fake:
        yield fake


@asynccontextmanager
async def family(
    data_dir: Path, fake: FakeOpenAI, **settings: Any
) -> AsyncIterator[tuple[RunningServer, PushService, httpx.AsyncClient]]:
    """The server (Nicolas signed in on its client), the push service (accepting only the
    instance's VAPID key) and Marie signed in on a second client."""
    async with (
        push_service() as push,
        serve_with_openai(data_dir, fake, **{**PUSH_SETTINGS, **settings}) as server,
        server.new_client() as marie,
    ):
        await register(server.client, marie)
        mine = await server.client.get("/api/me/notifications")
        assert mine.status_code == 200, mine.text
        push.vapid_key = mine.json()["vapid_public_key"]
        yield server, push, marie


async def subscribe(client: httpx.AsyncClient, device: Subscriber) -> dict[str, Any]:
    """What the page does once the browser subscribed."""
    response = await client.post(
        "/api/me/push-subscriptions",
        json=device.subscription(),
        headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile Safari/537"},
    )
    assert response.status_code == 201, response.text
    subscription: dict[str, Any] = response.json()["subscription"]
    return subscription


async def set_mode(client: httpx.AsyncClient, mode: str) -> None:
    response = await client.patch("/api/me/notifications", json={"mode": mode})
    assert response.status_code == 200, response.text
    assert response.json()["preference"]["mode"] == mode


def notify_call(**arguments: Any) -> Reply:
    return Reply(tool_calls=[("notify", arguments)])


async def turn(
    server: RunningServer, fake: FakeOpenAI, watcher: SseReader, kin_id: str, *replies: Reply
) -> list[dict[str, Any]]:
    """Nicolas writes to the Kin, which answers with ``replies`` then "Done."; the results of
    its ``notify`` calls in that turn, once the turn is over (watched on ``watcher``)."""
    fake.enqueue(*replies, Reply(text="Done."))
    before = len(tool_results(await session(server.client, kin_id), "notify"))
    message_id = await tell(server.client, kin_id, "Tell me when the laundry is done.")
    await watcher.wait_for(
        lambda e: (
            e.type == "message.status"
            and e.data.get("id") == message_id
            and e.data.get("status") in ("done", "failed")
        )
    )
    results = tool_results(await session(server.client, kin_id), "notify")[before:]
    return [json.loads(result["content"]) for result in results]


async def no_stream_of(server: RunningServer, user_id: str) -> None:
    """Wait until every live stream of ``user_id`` has closed on the server."""
    async with asyncio.timeout(20):
        while True:
            if not server.platform.live.has_stream(user_id):
                return
            await asyncio.sleep(0.02)


# -- a cron's sub-Kin ------------------------------------------------------------------------


async def test_a_crons_sub_kin_notifies_the_person_who_set_it_up(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    clock = Clock()
    clock.set(MONDAY)
    async with family(data_dir, fake_llm, clock=clock, cron_timezone="UTC") as (
        server,
        push,
        marie,
    ):
        nicolas_phone, marie_phone = push.subscriber(), push.subscriber()
        await subscribe(server.client, nicolas_phone)
        await subscribe(marie, marie_phone)
        alpha = await make_kin(server.client, "Alpha")
        created = await server.client.post(
            "/api/crons",
            json={
                "name": "Train check",
                "schedule": "0 9 * * *",
                "task_description": "Check the 9:12 to Lyon; notify if it is cancelled.",
                "kin_id": alpha,
            },
        )
        assert created.status_code == 201, created.text
        cron_id = created.json()["cron"]["id"]
        fake_llm.enqueue(
            notify_call(title="Train cancelled", body="The 9:12 to Lyon is cancelled today."),
            Reply(text="Notified."),
        )
        async with sse_stream(marie) as stream:
            clock.set(MONDAY.replace(hour=8, minute=59, second=59, microsecond=500_000))
            ended = await stream.wait_for(
                lambda e: e.type == "cron.execution.completed" and e.data["cron_id"] == cron_id
            )
        task_id = ended.data["task_id"]

        (received,) = push.received
        assert received.token == nicolas_phone.token  # not Marie's phone
        payload = nicolas_phone.decrypt(received)
        assert isinstance(payload.pop("created_at"), float)
        assert payload == {
            "title": "Train cancelled",
            "body": "The 9:12 to Lyon is cancelled today.",
            "link": f"/tasks/{task_id}",
            "tag": f"/tasks/{task_id}",
            "kin_id": alpha,
            "kin_name": "Alpha",
        }
        assert received.claims["sub"] == f"mailto:{NICOLAS['email']}"
        assert received.ttl == 86_400
        assert push.refused == []
        # The sub-Kin was told it was delivered, to whom.
        answered = [r.body["messages"][-1] for r in fake_llm.requests_to("chat")]
        result = json.loads(next(m for m in reversed(answered) if m["role"] == "tool")["content"])
        assert result["status"] == "delivered" and result["to"] == NICOLAS["pseudonym"]


# -- preferences -----------------------------------------------------------------------------


async def test_the_persons_preference_decides_and_only_they_receive_it(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with family(data_dir, fake_llm) as (server, push, marie):
        nicolas_phone, marie_phone = push.subscriber(), push.subscriber()
        await subscribe(server.client, nicolas_phone)
        await subscribe(marie, marie_phone)
        me = (await server.client.get("/api/me")).json()["user"]
        alpha = await make_kin(server.client, "Alpha")
        note = {"title": "Laundry", "body": "The washing machine is done."}

        async with sse_stream(marie) as watcher:
            # "Only when I'm away", with KinBot open in one of Nicolas's browsers: not sent.
            await set_mode(server.client, "away")
            async with sse_stream(server.client):
                assert server.platform.live.has_stream(me["id"])
                (result,) = await turn(server, fake_llm, watcher, alpha, notify_call(**note))
            assert result["status"] == "skipped_preference" and result["preference"] == "away"
            assert push.received == []

            # Away (his stream closed): sent, to his phone only, opening the conversation.
            await no_stream_of(server, me["id"])
            (result,) = await turn(server, fake_llm, watcher, alpha, notify_call(**note))
            assert result["status"] == "delivered", result
            (received,) = push.received
            assert received.token == nicolas_phone.token
            payload = nicolas_phone.decrypt(received)
            asked = [m for m in await session(server.client, alpha) if m["source"] == "user"]
            assert payload["link"] == f"/kins/{alpha}?message={asked[-1]['id']}"
            assert (payload["title"], payload["body"]) == (note["title"], note["body"])

            # Never: nothing, whatever the streams.
            await set_mode(server.client, "never")
            (result,) = await turn(server, fake_llm, watcher, alpha, notify_call(**note))
            assert result["status"] == "skipped_preference" and result["preference"] == "never"
            assert len(push.received) == 1

            # Always, KinBot open or not; and a notification naming Marie reaches her alone.
            await set_mode(server.client, "always")
            async with sse_stream(server.client):
                results = await turn(
                    server,
                    fake_llm,
                    watcher,
                    alpha,
                    Reply(
                        tool_calls=[
                            ("notify", note),
                            ("notify", {**note, "user": MARIE["pseudonym"], "link": "/account"}),
                        ]
                    ),
                )
            assert [r["status"] for r in results] == ["delivered", "delivered"]
            assert [r["to"] for r in results] == [NICOLAS["pseudonym"], MARIE["pseudonym"]]
            assert [push.token for push in push.received[1:]] == [
                nicolas_phone.token,
                marie_phone.token,
            ]
            assert marie_phone.decrypt(push.received[2])["link"] == "/account"
            assert push.refused == []


async def test_the_kins_rate_limit_stops_a_burst(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    async with family(data_dir, fake_llm, notify_rate_limit=2) as (server, push, marie):
        phone = push.subscriber()
        await subscribe(server.client, phone)
        alpha = await make_kin(server.client, "Alpha")
        burst = Reply(
            tool_calls=[("notify", {"title": f"Alert {n}", "body": "Again."}) for n in range(3)]
        )
        async with sse_stream(marie) as watcher:
            results = await turn(server, fake_llm, watcher, alpha, burst)
        assert [r["status"] for r in results] == ["delivered", "delivered", "rate_limited"]
        assert results[2]["retry_after_seconds"] > 0
        assert [phone.decrypt(p)["title"] for p in push.received] == ["Alert 0", "Alert 1"]


async def test_a_subscription_the_push_service_forgot_is_removed(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with family(data_dir, fake_llm) as (server, push, marie):
        old_laptop, phone = push.subscriber(), push.subscriber()
        await subscribe(server.client, old_laptop)
        kept = await subscribe(server.client, phone)
        push.gone.add(old_laptop.token)
        alpha = await make_kin(server.client, "Alpha")
        async with sse_stream(marie) as watcher:
            (result,) = await turn(
                server, fake_llm, watcher, alpha, notify_call(title="Hi", body="Hello.")
            )
            assert result["status"] == "delivered"
            listed = (await server.client.get("/api/me/push-subscriptions")).json()
            assert [s["id"] for s in listed["subscriptions"]] == [kept["id"]]
            # The last device gone too: nowhere to send it.
            push.gone.add(phone.token)
            (result,) = await turn(
                server, fake_llm, watcher, alpha, notify_call(title="Hi", body="Again.")
            )
        assert result["status"] == "no_device"
        listed = (await server.client.get("/api/me/push-subscriptions")).json()
        assert listed["subscriptions"] == []
        assert [p.token for p in push.received] == [phone.token]


# -- the API of My account -------------------------------------------------------------------


async def test_my_devices_and_a_test_notification(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    async with family(data_dir, fake_llm) as (server, push, marie):
        phone = push.subscriber()
        subscription = await subscribe(server.client, phone)
        assert subscription["device"] == {"browser": "Chrome", "os": "Android"}
        listed = (await server.client.get("/api/me/push-subscriptions")).json()["subscriptions"]
        assert listed == [subscription]
        text = json.dumps(listed)
        assert phone.endpoint not in text and phone.subscription()["keys"]["auth"] not in text
        # A browser recognises itself by its endpoint's SHA-256.
        assert listed[0]["endpoint_sha256"] == hashlib.sha256(phone.endpoint.encode()).hexdigest()
        # Marie sees none of Nicolas's devices, and cannot remove them.
        assert (await marie.get("/api/me/push-subscriptions")).json()["subscriptions"] == []
        gone = await marie.delete(f"/api/me/push-subscriptions/{subscription['id']}")
        assert gone.status_code == 404

        # A test notification goes by his route even when he chose "never".
        await set_mode(server.client, "never")
        sent = await server.client.post(
            "/api/me/notifications/test", json={"title": "Ça marche", "body": "Notifications on."}
        )
        assert sent.status_code == 200, sent.text
        assert sent.json()["outcome"]["status"] == "delivered"
        payload = phone.decrypt(push.received[-1])
        assert (payload["title"], payload["body"], payload["link"]) == (
            "Ça marche",
            "Notifications on.",
            "/account",
        )
        # Marie has no device: the test says so.
        nothing = await marie.post("/api/me/notifications/test", json={"title": "T", "body": "B"})
        assert nothing.json()["outcome"]["status"] == "no_device"

        # This browser unsubscribes by its endpoint; then it is not listed any more.
        removed = await server.client.request(
            "DELETE", "/api/me/push-subscriptions", json={"endpoint": phone.endpoint}
        )
        assert removed.status_code == 204
        assert (await server.client.get("/api/me/push-subscriptions")).json() == {
            "subscriptions": []
        }


async def test_subscriptions_and_preferences_refuse_bad_input(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    # Default settings: only https push services on public addresses.
    async with push_service() as push, serve_with_openai(data_dir, fake_llm) as server:
        client = server.client
        device = push.subscriber().subscription()
        keys = device["keys"]

        async def refused(body: Any) -> dict[str, Any]:
            response = await client.post("/api/me/push-subscriptions", json=body)
            assert response.status_code == 400, (body, response.text)
            error: dict[str, Any] = response.json()["error"]
            return error

        assert (await refused(device))["code"] == "push_endpoint_refused"  # http
        for endpoint in (
            "https://127.0.0.1/push/x",  # loopback
            "https://[::ffff:10.0.0.1]/push/x",  # private, in an IPv6 spelling
            "https://user:pw@push.example.org/x",
            "ftp://push.example.org/x",
            "not a url",
        ):
            error = await refused({"endpoint": endpoint, "keys": keys})
            assert error["code"] == "push_endpoint_refused", endpoint
        public = "https://push.example.org/send/abc"
        for bad_keys in (
            {"p256dh": "AAAA", "auth": keys["auth"]},
            {"p256dh": keys["p256dh"], "auth": "c2hvcnQ"},
            {"p256dh": "!!!", "auth": keys["auth"]},
        ):
            error = await refused({"endpoint": public, "keys": bad_keys})
            assert error["code"] == "push_keys_invalid", bad_keys
        assert (await refused({"endpoint": public}))["code"] == "invalid_request"
        assert (await refused({"endpoint": public, "keys": {}}))["code"] == "invalid_request"

        bad_mode = await client.patch("/api/me/notifications", json={"mode": "sometimes"})
        assert bad_mode.status_code == 400
        no_route = await client.patch("/api/me/notifications", json={"route": "telegram"})
        assert no_route.status_code == 400
        assert no_route.json()["error"]["code"] == "notification_route_unavailable"
        assert (await client.delete("/api/me/push-subscriptions/nope")).status_code == 404
        async with server.new_client() as stranger:
            for method, path in (
                ("GET", "/api/me/notifications"),
                ("GET", "/api/me/push-subscriptions"),
                ("POST", "/api/me/push-subscriptions"),
                ("POST", "/api/me/notifications/test"),
            ):
                response = await stranger.request(method, path, json=device)
                assert response.status_code == 401, (method, path)


# -- routes other parts add (contract 3) -----------------------------------------------------


async def test_a_route_another_part_adds_reaches_the_people_who_choose_it(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with family(data_dir, fake_llm) as (server, push, marie):
        phone = push.subscriber()
        await subscribe(server.client, phone)
        me = (await server.client.get("/api/me")).json()["user"]
        delivered: list[tuple[str, Notification]] = []

        async def on_telegram(user_id: str, notification: Notification) -> None:
            if user_id != me["id"]:
                raise NoDevice(user_id)
            delivered.append((user_id, notification))

        async def linked(user_id: str) -> bool:
            return bool(user_id == me["id"])

        server.platform.notifications.add_route(
            "telegram:family", on_telegram, available=linked, label="Family Telegram"
        )
        mine = (await server.client.get("/api/me/notifications")).json()
        assert mine["routes"] == [
            {"name": "push"},
            {"name": "telegram:family", "label": "Family Telegram"},
        ]
        assert (await marie.get("/api/me/notifications")).json()["routes"] == [{"name": "push"}]
        refused = await marie.patch("/api/me/notifications", json={"route": "telegram:family"})
        assert refused.status_code == 400

        chosen = await server.client.patch(
            "/api/me/notifications", json={"route": "telegram:family"}
        )
        assert chosen.json()["preference"] == {"mode": "always", "route": "telegram:family"}
        alpha = await make_kin(server.client, "Alpha")
        async with sse_stream(marie) as watcher:
            (result,) = await turn(
                server, fake_llm, watcher, alpha, notify_call(title="T", body="B")
            )
        assert result["status"] == "delivered"
        ((user_id, notification),) = delivered
        assert (user_id, notification.title, notification.kin_id) == (me["id"], "T", alpha)
        assert notification.absolute_link("https://kinbot.example.org").startswith(
            f"https://kinbot.example.org/kins/{alpha}?message="
        )
        assert push.received == []  # not by push as well

        # The route gone (its plugin disabled): push again.
        server.platform.notifications.remove_route("telegram:family")
        async with sse_stream(marie) as watcher:
            (result,) = await turn(
                server, fake_llm, watcher, alpha, notify_call(title="T2", body="B")
            )
        assert result["status"] == "delivered" and len(push.received) == 1


# -- the VAPID keys --------------------------------------------------------------------------


async def test_the_vapid_keys_are_made_once_and_kept_sealed(data_dir: Path) -> None:
    keys = []
    for _ in range(2):
        platform = Platform(load_settings(data_dir=data_dir))
        await platform.start()
        keys.append(platform.notifications.public_key)
        row = await platform.db.read(lambda: VapidKeyRecord.get(VapidKeyRecord.id == 1))
        private = platform.notifications._vapid_keys().signer.private_key
        raw = private.private_numbers().private_value.to_bytes(32, "big")
        assert raw not in bytes(row.private_sealed)
        await platform.stop()
    assert keys[0] is not None and keys[0] == keys[1] and len(keys[0]) == 87  # base64url P-256


async def test_a_push_service_name_resolving_to_a_private_address_is_not_posted_to(
    data_dir: Path, fake_llm: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    # http allowed, no private network allowed: "localhost" passes the subscription's check
    # (a name), and is refused when sending, on the address it resolves to.
    async with (
        push_service() as push,
        serve_with_openai(data_dir, fake_llm, push_allow_insecure_endpoints=True) as server,
    ):
        device = push.subscriber()
        device.endpoint = device.endpoint.replace("127.0.0.1", "localhost")
        await subscribe(server.client, device)
        sent = await server.client.post(
            "/api/me/notifications/test", json={"title": "T", "body": "B"}
        )
        assert sent.json()["outcome"]["status"] == "failed"
        assert push.received == [] and push.refused == []
        # Logged by host, never with the endpoint's path (the browser's capability).
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert "push service localhost" in logged and device.token not in logged
        # The subscription stays: the address rule may be opened by an administrator.
        listed = (await server.client.get("/api/me/push-subscriptions")).json()
        assert len(listed["subscriptions"]) == 1

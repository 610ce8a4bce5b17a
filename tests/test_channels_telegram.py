"""The Telegram channel end to end in one process: python-telegram-bot against the fake Bot
API on loopback, the real server, the fake OpenAI provider.

Who is speaking (pairing), replies going back formatted and split, photos reaching the
model as images, voice notes kept as audio, groups answered only when addressed, bots
never answered, rate limits retried, a refused token shown as failing."""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db.models import ChannelDeliveryRecord
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, person, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.telegram_fake import FakeTelegram, Sent, TelegramChat, TelegramUser
from tests.support.telegram_setup import (
    CODE,
    TOKEN,
    add_telegram_channel,
)
from tests.support.waiting import eventually

MARIE_TG = TelegramUser(4242, "Marie", "Durand", username="marie_d", language_code="fr")
STRANGER = TelegramUser(5151, "Eve", username="eve", language_code="en")
OTHER_BOT = TelegramUser(6161, "Echo", username="echo_bot", is_bot=True)
FAMILY = TelegramChat(-100777, "supergroup", "Durand family")


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        fake.add_bot(TOKEN)
        yield fake


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(
    data_dir: Path, fake_llm: FakeOpenAI, telegram: FakeTelegram
) -> AsyncIterator[RunningServer]:
    settings = load_settings(
        data_dir=data_dir, channel_retry_base_seconds=0.2, channel_failing_after=2
    )
    platform = Platform(settings)
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def create_kin(server: RunningServer, name: str = "Chef", model: str = "gpt-4o") -> str:
    response = await server.client.post("/api/kins", json={"name": name, "model": model})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


def texts_to(chat_id: int) -> Any:
    """A condition on what the bot sent: the texts of messages to ``chat_id``."""

    def texts(sent: list[Sent]) -> list[str]:
        return [s.text or "" for s in sent if s.chat_id == str(chat_id) and s.action is None]

    return texts


async def pair(server: RunningServer, telegram: FakeTelegram, marie: Any) -> str:
    """Marie writes to the bot, gets a code and enters it in My account."""
    telegram.user_sends(TOKEN, MARIE_TG, "Bonjour")
    texts = texts_to(MARIE_TG.id)
    sent = await telegram.sent_when(lambda s: any(re.search(CODE, t) for t in texts(s)))
    code = re.findall(CODE, "".join(texts(sent)))[0]
    linked = await marie.post("/api/me/channel-identities", json={"code": code})
    assert linked.status_code == 201, linked.text
    identity_id: str = linked.json()["identity"]["id"]
    return identity_id


async def test_an_unknown_sender_pairs_then_talks_to_the_kin(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server)
    await add_telegram_channel(server.client, telegram, [kin_id])
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        await pair(server, telegram, marie)
        # The first message reached no Kin.
        messages = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
        assert messages == []
        # Linked: told so in French, then a question and its answer.
        texts = texts_to(MARIE_TG.id)
        await telegram.sent_when(lambda s: any("Vous êtes lié" in t for t in texts(s)))
        fake_llm.enqueue(Reply(text="**Lasagnes**, ce soir.\n\n- pâtes\n- sauce"))
        telegram.user_sends(TOKEN, MARIE_TG, "Qu'est-ce qu'on mange ?")
        sent = await telegram.sent_when(lambda s: any("Lasagnes" in t for t in texts(s)))
    reply = next(s for s in sent if s.text and "Lasagnes" in s.text)
    assert reply.parse_mode == "HTML"
    assert reply.text == "<b>Lasagnes</b>, ce soir.\n\n• pâtes\n• sauce"
    messages = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    question, answer = messages[0], messages[-1]
    marie_id = (await server.client.get("/api/users")).json()["users"][1]["id"]
    assert (question["source"], question["sender_id"], question["sender_name"]) == (
        "user",
        marie_id,
        "Marie",
    )
    assert question["content"] == "Qu'est-ce qu'on mange ?"
    assert question["meta"]["origin"] == {"kind": "telegram", "label": "Family Telegram"}
    assert answer["role"] == "assistant"
    assert answer["content"].startswith("**Lasagnes**")

    async def delivered() -> dict[str, Any] | None:  # marked once Telegram took it
        last = (await kin_messages(server, kin_id))[-1]
        return last if (last["meta"] or {}).get("origin") else None

    assert (await eventually(delivered))["meta"]["origin"] == {
        "kind": "telegram",
        "label": "Family Telegram",
    }
    asked = fake_llm.requests_to("chat")[-1]
    assert asked.body["messages"][-1]["content"] == "[Marie] Qu'est-ce qu'on mange ?"


def jpeg_photo() -> bytes:
    """A small real JPEG, as Telegram serves photos."""
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.new("RGB", (16, 12), (200, 80, 20)).save(buffer, "JPEG")
    return buffer.getvalue()


async def paired_marie(
    server: RunningServer, telegram: FakeTelegram, kin_ids: list[str] | None = None
) -> tuple[str, dict[str, Any]]:
    """A Kin (unless ``kin_ids`` are given), a connection to it, and Marie linked: returns
    the first Kin's id and the connection."""
    kin_id = kin_ids[0] if kin_ids else await create_kin(server)
    channel = await add_telegram_channel(server.client, telegram, kin_ids or [kin_id])
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        await pair(server, telegram, marie)
    texts = texts_to(MARIE_TG.id)
    await telegram.sent_when(lambda s: any("Vous êtes lié" in t for t in texts(s)))
    return kin_id, channel


async def kin_messages(server: RunningServer, kin_id: str) -> list[dict[str, Any]]:
    response = await server.client.get(f"/api/kins/{kin_id}/messages?limit=200")
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


async def test_a_photo_reaches_the_vision_model_as_an_image(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    photo = jpeg_photo()
    fake_llm.enqueue(Reply(text="A lovely orange square."))
    telegram.user_sends(TOKEN, MARIE_TG, "What is this?", photo=photo)
    texts = texts_to(MARIE_TG.id)
    await telegram.sent_when(lambda s: any("orange square" in t for t in texts(s)))
    asked = fake_llm.requests_to("chat")[-1]
    parts = asked.body["messages"][-1]["content"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert images == ["data:image/jpeg;base64," + base64.b64encode(photo).decode()]
    assert any("What is this?" in p.get("text", "") for p in parts if p["type"] == "text")
    message = next(m for m in await kin_messages(server, kin_id) if m["role"] == "user")
    [attached] = message["attachments"]
    assert (attached["kind"], attached["mime_type"]) == ("image", "image/jpeg")
    # the largest size was downloaded, not the thumbnail
    assert (await server.client.get(attached["url"])).content == photo


async def test_a_voice_note_is_kept_as_an_audio_attachment(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    voice = b"OggS\x00\x02" + bytes(range(200))
    fake_llm.enqueue(Reply(text="I cannot listen, but I see you sent a voice note."))
    telegram.user_sends(TOKEN, MARIE_TG, voice=voice)
    texts = texts_to(MARIE_TG.id)
    await telegram.sent_when(lambda s: any("voice note" in t for t in texts(s)))
    message = next(m for m in await kin_messages(server, kin_id) if m["role"] == "user")
    [attached] = message["attachments"]
    assert (attached["kind"], attached["mime_type"]) == ("audio", "audio/ogg")
    assert (await server.client.get(attached["url"])).content == voice
    asked = fake_llm.requests_to("chat")[-1]
    assert "cannot be listened to" in json.dumps(asked.body["messages"][-1])


async def test_in_a_group_only_messages_addressed_to_the_bot_are_answered(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Tuesday, at eight."))
    telegram.user_sends(TOKEN, MARIE_TG, "Who takes the bins out?", chat=FAMILY)
    telegram.user_sends(TOKEN, OTHER_BOT, "I answer everything", chat=FAMILY, mention_bot=True)
    telegram.user_sends(TOKEN, STRANGER, "Hello bot", chat=FAMILY, mention_bot=True)
    asked = telegram.user_sends(TOKEN, MARIE_TG, "When is the market?", chat=FAMILY,
                                mention_bot=True)  # fmt: skip
    texts = texts_to(FAMILY.id)
    sent = await telegram.sent_when(lambda s: any("Tuesday" in t for t in texts(s)))
    # one answer, to Marie's mention only, quoting it; no pairing code in the group
    assert texts(sent) == ["Tuesday, at eight."]
    assert telegram.confirmed_offset(TOKEN) > asked
    users = [m for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    assert [m["content"] for m in users] == ["When is the market?"]
    reply = next(s for s in sent if s.text == "Tuesday, at eight.")
    assert reply.reply_to is not None
    assert fake_llm.requests_to("chat").__len__() == 1


async def test_a_reply_to_the_bot_in_a_group_addresses_it(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Yes, still on."))
    telegram.user_sends(TOKEN, MARIE_TG, "Is it still on?", chat=FAMILY, reply_to_bot=1)
    texts = texts_to(FAMILY.id)
    await telegram.sent_when(lambda s: "Yes, still on." in texts(s))
    users = [m for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    assert [m["content"] for m in users] == ["Is it still on?"]


async def test_a_long_reply_is_split_at_paragraphs_within_the_limit(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    await paired_marie(server, telegram)
    paragraphs = [f"Paragraph {n}. " + "word " * 300 for n in range(8)]
    fake_llm.enqueue(Reply(text="\n\n".join(paragraphs), chunk_size=500))
    telegram.user_sends(TOKEN, MARIE_TG, "Tell me everything")
    texts = texts_to(MARIE_TG.id)
    sent = await telegram.sent_when(lambda s: any("Paragraph 7." in t for t in texts(s)))
    parts = [t for t in texts(sent) if "Paragraph" in t]
    # about 1,500 characters a paragraph: two fit in 4,096, three do not
    assert [part.count("Paragraph") for part in parts] == [2, 2, 2, 2]
    assert all(len(part) <= 4096 for part in parts)
    assert all(part.rstrip().endswith("word") for part in parts)  # cut between paragraphs
    assert " ".join(" ".join(parts).split()) == " ".join(" ".join(paragraphs).split())


async def test_formatting_refused_by_telegram_is_sent_as_plain_text(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Use **bold** wisely."))
    telegram.fail_next("sendMessage", 400)  # "can't parse entities"
    telegram.user_sends(TOKEN, MARIE_TG, "Any advice?")
    texts = texts_to(MARIE_TG.id)
    sent = await telegram.sent_when(lambda s: any("wisely" in t for t in texts(s)))
    reply = next(s for s in sent if s.text and "wisely" in s.text)
    assert (reply.text, reply.parse_mode) == ("Use **bold** wisely.", None)


async def test_a_rate_limit_is_retried_after_telegrams_delay(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Patience is a virtue."))
    calls_before = sum(1 for _, method in telegram.calls if method == "sendMessage")
    telegram.fail_next("sendMessage", 429, retry_after=1)
    telegram.user_sends(TOKEN, MARIE_TG, "Quick!")
    texts = texts_to(MARIE_TG.id)
    sent = await telegram.sent_when(lambda s: any("Patience" in t for t in texts(s)))
    assert [t for t in texts(sent) if "Patience" in t] == ["Patience is a virtue."]
    calls = sum(1 for _, method in telegram.calls if method == "sendMessage") - calls_before
    assert calls == 2  # refused once, then sent once

    def delivery() -> list[tuple[str, int, str | None]]:
        return [
            (row.status, row.attempts, row.last_error_code)
            for row in ChannelDeliveryRecord.select().where(ChannelDeliveryRecord.kin == kin_id)
        ]

    async def recorded() -> list[tuple[str, int, str | None]] | None:
        rows = await server.platform.db.read(delivery)
        return rows if rows[0][0] == "sent" else None  # recorded just after Telegram took it

    assert await eventually(recorded) == [("sent", 1, None)]


async def wait_for_state(server: RunningServer, channel_id: str, state: str) -> dict[str, Any]:
    """What /api/health shows of the connection once it is in ``state``."""

    async def shown() -> dict[str, Any] | None:
        health = (await server.client.get("/api/health")).json()
        found: dict[str, Any] = next(c for c in health["channels"] if c["id"] == channel_id)
        return found if found["state"] == state else None

    return await eventually(shown)


async def test_a_refused_token_shows_failing_in_settings_and_on_health(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    kin_id = await create_kin(server)
    channel = await add_telegram_channel(
        server.client, telegram, [kin_id], bot_token="1234:revoked-token-0123456789abcdef"
    )
    # The first connection is made in the background: the answer says it is under way (the
    # interface says "connecting…" and waits for the state), never the "stopped" of a row
    # just written, nor an earlier state.
    assert (channel["state"], channel["last_error_code"]) == ("starting", None)
    shown = await wait_for_state(server, channel["id"], "failing")
    assert shown == {"id": channel["id"], "type": "telegram", "state": "failing",
                     "error_code": "channel_auth_failed"}  # fmt: skip
    listed = (await server.client.get("/api/channels")).json()["channels"]
    assert (listed[0]["state"], listed[0]["last_error_code"]) == ("failing", "channel_auth_failed")
    # A new token: it runs.
    changed = await server.client.patch(
        f"/api/channels/{channel['id']}", json={"settings": {"bot_token": TOKEN}}
    )
    assert changed.status_code == 200, changed.text
    assert (changed.json()["channel"]["state"], changed.json()["channel"]["last_error_code"]) == (
        "starting",
        None,
    )
    await wait_for_state(server, channel["id"], "running")
    deleted = await server.client.delete(f"/api/channels/{channel['id']}")
    assert deleted.status_code == 204
    assert (await server.client.get(f"/api/channels/{channel['id']}")).status_code == 404
    assert (await server.client.get("/api/health")).json()["channels"] == []


async def test_a_connection_that_keeps_failing_shows_it_then_recovers(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    kin_id = await create_kin(server)
    telegram.fail_next("getUpdates", 502, count=1000)
    channel = await add_telegram_channel(server.client, telegram, [kin_id])
    failing = await wait_for_state(server, channel["id"], "failing")
    assert failing["error_code"] == "channel_unavailable"
    telegram.clear_failures()  # Telegram is back
    await wait_for_state(server, channel["id"], "running")


async def test_an_administrator_links_a_waiting_sender_to_a_kins_contact(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server)
    await add_telegram_channel(server.client, telegram, [kin_id])
    telegram.user_sends(TOKEN, STRANGER, "Hi, I'm grandma's neighbour")
    texts = texts_to(STRANGER.id)
    sent = await telegram.sent_when(lambda s: any(re.search(CODE, t) for t in texts(s)))
    assert "My account" in texts(sent)[0] and "Mon compte" not in texts(sent)[0]  # in English

    async def waiting() -> list[dict[str, Any]] | None:
        found = (await server.client.get("/api/channels/pairings")).json()["pairings"]
        return found or None

    [pairing] = await eventually(waiting)
    assert pairing["display_name"] == "Eve"
    assert "code" not in pairing and "code_hash" not in pairing
    linked = await server.client.post(
        f"/api/channels/pairings/{pairing['id']}/link", json={"kin_id": kin_id}
    )
    assert linked.status_code == 201, linked.text
    identity = linked.json()["identity"]
    assert (identity["contact_name"], identity["kin_id"], identity["user_id"]) == (
        "Eve",
        kin_id,
        None,
    )
    await telegram.sent_when(lambda s: any("You are linked" in t for t in texts(s)))
    fake_llm.enqueue(Reply(text="Hello Eve!"))
    telegram.user_sends(TOKEN, STRANGER, "Is the bakery open?")
    await telegram.sent_when(lambda s: "Hello Eve!" in texts(s))
    [question] = [m for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    assert (question["source"], question["sender_id"], question["sender_name"]) == (
        "user",
        None,
        "Eve",
    )
    assert (await server.client.get("/api/channels/pairings")).json()["pairings"] == []


async def test_nobody_unpaired_reaches_a_kin_and_codes_are_guarded(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    kin_id = await create_kin(server)
    await add_telegram_channel(server.client, telegram, [kin_id])
    telegram.user_sends(TOKEN, STRANGER, "first")
    texts = texts_to(STRANGER.id)
    sent = await telegram.sent_when(lambda s: any(re.search(CODE, t) for t in texts(s)))
    code = re.findall(CODE, texts(sent)[0])[0]
    # more messages: no new code within the quiet period, and nothing reaches the Kin
    last = telegram.user_sends(TOKEN, STRANGER, "second")
    await eventually(lambda: _confirmed(telegram, last))
    assert len(texts(telegram.sent())) == 1
    assert await kin_messages(server, kin_id) == []
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        for wrong in ("AAAA-AAAA", "not a code", "BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD"):
            refused = await marie.post("/api/me/channel-identities", json={"code": wrong})
            assert refused.status_code == 400
            assert refused.json()["error"]["code"] == "pairing_code_invalid"
        # five wrong codes: even the right one waits now
        blocked = await marie.post("/api/me/channel-identities", json={"code": code})
        assert blocked.status_code == 429
        assert blocked.json()["error"]["code"] == "pairing_attempts_exceeded"
        assert int(blocked.headers["Retry-After"]) > 0
    async with server.new_client() as paul:
        await register(server.client, paul, person("Paul"))
        linked = await paul.post(
            "/api/me/channel-identities", json={"code": code.lower().replace("-", " ")}
        )
        assert linked.status_code == 201, linked.text
        again = await paul.post("/api/me/channel-identities", json={"code": code})
        assert again.json()["error"]["code"] == "pairing_code_invalid"  # used once only


async def _confirmed(telegram: FakeTelegram, update_id: int) -> bool:
    return telegram.confirmed_offset(TOKEN) > update_id


async def test_linked_accounts_are_each_persons_own(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    await paired_marie(server, telegram)
    async with server.new_client() as paul:
        await register(server.client, paul, person("Paul"))
        for path in ("/api/channels", "/api/channels/pairings", "/api/channels/identities",
                     "/api/channels/types"):  # fmt: skip
            assert (await paul.get(path)).status_code == 403
        assert (await paul.get("/api/me/channel-identities")).json() == {"identities": []}
        everyone = (await server.client.get("/api/channels/identities")).json()["identities"]
        [maries] = everyone
        refused = await paul.delete(f"/api/me/channel-identities/{maries['id']}")
        assert refused.status_code == 404
        assert (await paul.delete(f"/api/channels/identities/{maries['id']}")).status_code == 403
    async with server.new_client() as marie:
        signed_in = await marie.post(
            "/api/auth/login", json={"email": MARIE["email"], "password": MARIE["password"]}
        )
        assert signed_in.status_code == 200, signed_in.text
        [mine] = (await marie.get("/api/me/channel-identities")).json()["identities"]
        assert (mine["display_name"], mine["connection_label"]) == ("Marie Durand",
                                                                    "Family Telegram")  # fmt: skip
        removed = await marie.delete(f"/api/me/channel-identities/{mine['id']}")
        assert removed.status_code == 204
    # unlinked: she pairs again before reaching a Kin
    telegram.user_sends(TOKEN, MARIE_TG, "Still there?")
    texts = texts_to(MARIE_TG.id)
    await telegram.sent_when(lambda s: sum(bool(re.search(CODE, t)) for t in texts(s)) == 2)


async def test_the_token_is_never_returned_nor_logged(
    server: RunningServer, telegram: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    kin_id = await create_kin(server)
    channel = await add_telegram_channel(server.client, telegram, [kin_id])
    assert channel["settings"]["bot_token"] == {"set": True}
    await wait_for_state(server, channel["id"], "running")
    shown = [
        await server.client.get("/api/channels"),
        await server.client.get(f"/api/channels/{channel['id']}"),
        await server.client.get("/api/health"),
    ]
    assert all(TOKEN not in response.text for response in shown)
    # a change that leaves the token out keeps it
    renamed = await server.client.patch(
        f"/api/channels/{channel['id']}", json={"label": "Durands", "settings": {"bot_token": ""}}
    )
    assert renamed.json()["channel"]["settings"]["bot_token"] == {"set": True}
    await wait_for_state(server, channel["id"], "running")
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "getUpdates" in logged  # the HTTP client logs its requests…
    assert TOKEN not in logged  # …with the token masked


async def test_bad_channel_requests_get_clear_errors(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    kin_id = await create_kin(server)
    client = server.client
    unknown = await client.post(
        "/api/channels",
        json={"type": "carrier-pigeon", "label": "x", "settings": {}, "kin_ids": [kin_id]},
    )
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "channel_type_unknown")
    invalid = await client.post(
        "/api/channels",
        json={"type": "telegram", "label": "x", "kin_ids": [kin_id],
              "settings": {"bot_token": "x9q7z", "mode": "webhook"}},
    )  # fmt: skip
    assert (invalid.status_code, invalid.json()["error"]["code"]) == (400, "settings_invalid")
    fields = {f["field"] for f in invalid.json()["error"]["details"]["fields"]}
    assert fields == {"bot_token", "webhook_url"}
    assert "x9q7z" not in invalid.text
    no_kin = await client.post(
        "/api/channels",
        json={"type": "telegram", "label": "x", "kin_ids": ["nope"],
              "settings": {"bot_token": TOKEN}},
    )  # fmt: skip
    assert (no_kin.status_code, no_kin.json()["error"]["code"]) == (404, "not_found")
    missing = await client.patch("/api/channels/nope", json={"label": "y"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "channel_not_found")
    link = await client.post("/api/channels/pairings/nope/link", json={"user_id": "x"})
    assert (link.status_code, link.json()["error"]["code"]) == (404, "pairing_not_found")


async def test_webhook_mode_receives_telegrams_calls_on_the_plugin_route(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server)
    channel = await add_telegram_channel(
        server.client, telegram, [kin_id], mode="webhook", webhook_url=server.url
    )
    await wait_for_state(server, channel["id"], "running")
    hook = telegram.webhook_of(TOKEN)
    assert hook is not None
    url, _ = hook
    assert url == f"{server.url}/api/ext/telegram/webhook/{channel['id']}"
    forged = await server.client.post(
        url.removeprefix(server.url),
        json={"update_id": 99, "message": {}},
        headers={"X-Telegram-Bot-Api-Secret-Token": "guess"},
    )
    assert forged.status_code == 401
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        await pair(server, telegram, marie)
    fake_llm.enqueue(Reply(text="Delivered by webhook."))
    telegram.user_sends(TOKEN, MARIE_TG, "Ping")
    await telegram.sent_when(lambda s: "Delivered by webhook." in texts_to(MARIE_TG.id)(s))
    assert not any(method == "getUpdates" for _, method in telegram.calls)
    # Telegram calls again with an update it already gave (its answer was lost, say): the
    # call succeeds and nothing is stored twice.
    again = {"update_id": 9001, "message": {
        "message_id": 77, "date": 1796217600, "text": "Only once",
        "chat": {"id": MARIE_TG.id, "type": "private"}, "from": MARIE_TG.to_json()}}  # fmt: skip
    headers = {"X-Telegram-Bot-Api-Secret-Token": hook[1] or ""}
    path = url.removeprefix(server.url)
    for _ in range(2):
        answered = await server.client.post(path, json=again, headers=headers)
        assert answered.status_code == 200, answered.text
    contents = [m["content"] for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    assert contents == ["Ping", "Only once"]


async def test_a_linked_person_may_get_notifications_in_their_chat(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    """The connection is a notification route: offered to the people linked on it, chosen
    in My account, and a Kin's notification then reaches them in Telegram."""
    kin_id, channel = await paired_marie(server, telegram)
    route = {"name": f"channel:{channel['id']}", "label": "Family Telegram"}
    # Nicolas has no linked account: the route is not offered to him.
    nico = (await server.client.get("/api/me/notifications")).json()
    assert route not in nico["routes"]
    async with server.new_client() as marie:
        signed_in = await marie.post(
            "/api/auth/login", json={"email": MARIE["email"], "password": MARIE["password"]}
        )
        assert signed_in.status_code == 200, signed_in.text
        offered = (await marie.get("/api/me/notifications")).json()
        assert route in offered["routes"]
        chosen = await marie.patch("/api/me/notifications", json={"route": route["name"]})
        assert chosen.status_code == 200, chosen.text
        marie_id = (await marie.get("/api/me")).json()["user"]["id"]
    outcome = await server.platform.notifications.notify(
        marie_id, "Train cancelled", "Take the 8:10 bus instead.", f"/kins/{kin_id}",
        kin_id=kin_id, kin_name="Chef",
    )  # fmt: skip
    assert (outcome.status, outcome.route) == ("delivered", route["name"])
    texts = texts_to(MARIE_TG.id)
    sent = await telegram.sent_when(lambda s: any("Train cancelled" in t for t in texts(s)))
    assert "<b>Train cancelled</b>\n\nTake the 8:10 bus instead." in texts(sent)
    # Unlinked, she is no longer reached there (and the route is no longer offered).
    [mine] = (await server.client.get("/api/channels/identities")).json()["identities"]
    assert (await server.client.delete(f"/api/channels/identities/{mine['id']}")).status_code == 204
    again = await server.platform.notifications.notify(marie_id, "Again", "Nobody hears this.")
    assert again.status == "no_device"


async def test_disabling_the_plugin_stops_its_connections_until_enabled_again(
    server: RunningServer, telegram: FakeTelegram
) -> None:
    kin_id = await create_kin(server)
    channel = await add_telegram_channel(server.client, telegram, [kin_id])
    await wait_for_state(server, channel["id"], "running")
    off = await server.client.patch("/api/plugins/telegram", json={"enabled": False})
    assert off.status_code == 200, off.text
    await wait_for_state(server, channel["id"], "unavailable")
    on = await server.client.patch("/api/plugins/telegram", json={"enabled": True})
    assert on.status_code == 200, on.text
    await wait_for_state(server, channel["id"], "running")  # shown once a poll answered


async def test_a_person_who_blocked_the_bot_fails_one_delivery_not_the_connection(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="You will never read this."))
    telegram.fail_next("sendMessage", 403)  # "Forbidden: bot was blocked by the user"
    telegram.user_sends(TOKEN, MARIE_TG, "Hello?")

    def delivery() -> list[tuple[str, int, str | None]]:
        return [
            (row.status, row.attempts, row.last_error_code)
            for row in ChannelDeliveryRecord.select().where(ChannelDeliveryRecord.kin == kin_id)
        ]

    async def given_up() -> list[tuple[str, int, str | None]] | None:
        rows = await server.platform.db.read(delivery)
        return rows if rows and rows[0][0] == "failed" else None

    assert await eventually(given_up) == [("failed", 1, "channel_blocked")]  # not retried
    health = (await server.client.get("/api/health")).json()["channels"]
    assert [(c["state"], c["error_code"]) for c in health] == [("running", None)]
    assert not any("never read" in t for t in texts_to(MARIE_TG.id)(telegram.sent()))


async def test_a_member_chooses_which_kin_a_chat_talks_to(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    chef = await create_kin(server, "Chef")
    tutor = await create_kin(server, "Tutor")
    await paired_marie(server, telegram, [chef, tutor])
    texts = texts_to(MARIE_TG.id)
    telegram.user_sends(TOKEN, MARIE_TG, "/kin")
    await telegram.sent_when(
        lambda s: (
            "Vous parlez à Chef. Aussi ici\u00a0: Tutor. Écrivez /kin et un nom pour changer."
            in texts(s)
        )
    )
    telegram.user_sends(TOKEN, MARIE_TG, "/kin tut")
    await telegram.sent_when(lambda s: "Vous parlez maintenant à Tutor." in texts(s))
    fake_llm.enqueue(Reply(text="Let's do maths."))
    telegram.user_sends(TOKEN, MARIE_TG, "Help with homework")
    await telegram.sent_when(lambda s: "Let's do maths." in texts(s))
    tutor_questions = [
        m["content"] for m in await kin_messages(server, tutor) if m["role"] == "user"
    ]
    assert tutor_questions == ["Help with homework"]
    assert await kin_messages(server, chef) == []  # the commands reached no Kin


async def test_a_file_telegram_will_not_hand_over_is_noted_and_the_connection_goes_on(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, channel = await paired_marie(server, telegram)
    telegram.fail_next("getFile", 400, "Bad Request: file is too big")
    fake_llm.enqueue(Reply(text="Send it in smaller parts."))
    telegram.user_sends(
        TOKEN, MARIE_TG, "The film", document=("film.mp4", "video/mp4", b"\x00" * 64)
    )
    await telegram.sent_when(lambda s: "Send it in smaller parts." in texts_to(MARIE_TG.id)(s))
    [question] = [m for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    assert question["content"] == (
        "The film\n\n[film.mp4 could not be fetched from Telegram (too large?)]"
    )
    assert question["attachments"] is None
    await wait_for_state(server, channel["id"], "running")


async def test_a_document_becomes_an_upload_the_kin_reads(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    fake_llm.enqueue(Reply(text="Eggs, flour, milk."))
    recipe = "Crêpes: 250 g flour, 4 eggs, half a litre of milk.".encode()
    telegram.user_sends(
        TOKEN, MARIE_TG, "What do I need?", document=("crepes.txt", "text/plain", recipe)
    )
    await telegram.sent_when(lambda s: "Eggs, flour, milk." in texts_to(MARIE_TG.id)(s))
    [question] = [m for m in await kin_messages(server, kin_id) if m["role"] == "user"]
    [attached] = question["attachments"]
    assert (attached["filename"], attached["kind"]) == ("crepes.txt", "document")
    asked = fake_llm.requests_to("chat")[-1]
    assert "250 g flour" in json.dumps(asked.body["messages"][-1], ensure_ascii=False)

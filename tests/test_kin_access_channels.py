"""A channel person talks only to the Kins they may use: a Kin restricted to other people is
neither the chat's Kin by default, nor listed, nor chosen by ``/kin``."""

from __future__ import annotations

from tests import test_channels_telegram as tg
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.support.telegram_fake import FakeTelegram
from tests.support.telegram_setup import TOKEN

telegram, fake_llm, server = tg.telegram, tg.fake_llm, tg.server
MARIE = tg.MARIE_TG


async def test_a_member_reaches_no_kin_restricted_to_others_through_a_channel(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    admin_id = (await server.client.get("/api/me")).json()["user"]["id"]
    tutor = await tg.create_kin(server, "Tutor")
    chef = await tg.create_kin(server, "Chef")
    restricted = await server.client.put(
        f"/api/kins/{tutor}/access", json={"access": "members", "members": [admin_id]}
    )
    assert restricted.status_code == 200, restricted.text
    await tg.paired_marie(server, telegram, [tutor, chef])  # Tutor first
    texts = tg.texts_to(MARIE.id)

    telegram.user_sends(TOKEN, MARIE, "/kin")
    listed = await telegram.sent_when(lambda s: any("Vous parlez à Chef" in t for t in texts(s)))
    telegram.user_sends(TOKEN, MARIE, "/kin tut")
    switched = await telegram.sent_when(lambda s: len(texts(s)) > len(texts(listed)))
    assert not any("Tutor" in text for text in texts(switched)), texts(switched)
    fake_llm.enqueue(Reply(text="Soup tonight."))
    telegram.user_sends(TOKEN, MARIE, "What's for dinner?")
    await telegram.sent_when(lambda s: "Soup tonight." in texts(s))
    assert await tg.kin_messages(server, tutor) == []
    asked = [m["content"] for m in await tg.kin_messages(server, chef) if m["role"] == "user"]
    assert asked == ["What's for dinner?"]

"""The Telegram channel end to end in one process: python-telegram-bot against the fake Bot
API on loopback, the real server, the fake OpenAI provider.

Who is speaking (pairing), replies going back formatted and split, photos reaching the
model as images, voice notes kept as audio, groups answered only when addressed, bots
never answered, rate limits retried, a refused token shown as failing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.telegram_fake import FakeTelegram, Sent, TelegramChat, TelegramUser
from tests.support.telegram_setup import CODE, TOKEN, add_telegram_channel, register_telegram

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
    platform = register_telegram(Platform(settings))
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
    asked = [r for r in fake_llm.requests if r.endpoint == "chat"][-1]
    assert asked.body["messages"][-1]["content"] == "[Marie] Qu'est-ce qu'on mange ?"

"""A Kin's files reaching a Telegram chat: an image it attached (``attach_file``) arrives as
a photo with the same bytes, a file alone as a message of its own, and a delivery retried
after its first part does not send the photo twice (python-telegram-bot against the fake
Bot API on loopback, the real server, the fake OpenAI provider)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kinbot_core.db.models import ChannelDeliveryRecord
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.support.telegram_fake import FakeTelegram, Sent
from tests.support.telegram_setup import TOKEN
from tests.support.waiting import eventually
from tests.test_channels_telegram import (
    MARIE_TG,
    fake_llm,
    jpeg_photo,
    kin_messages,
    paired_marie,
    server,
    telegram,
)

__all__ = ["fake_llm", "server", "telegram"]  # the fixtures, under the names pytest looks for


async def workspace(server: RunningServer, kin_id: str) -> Path:
    return Path((await server.platform.kins.get(kin_id)).workspace)


def to_marie(sent: list[Sent], method: str) -> list[Sent]:
    return [s for s in sent if s.chat_id == str(MARIE_TG.id) and s.method == method]


async def test_an_image_the_kin_attaches_arrives_as_a_photo(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    photo = jpeg_photo()
    (await workspace(server, kin_id) / "cake.jpg").write_bytes(photo)
    fake_llm.enqueue(
        Reply(tool_calls=[("attach_file", {"path": "cake.jpg"})]),
        Reply(text="Voici le gâteau."),
    )
    telegram.user_sends(TOKEN, MARIE_TG, "Montre-moi le gâteau")
    sent = await telegram.sent_when(lambda s: bool(to_marie(s, "sendPhoto")))
    [sent_photo] = to_marie(sent, "sendPhoto")
    assert sent_photo.file == photo
    texts = [s.text for s in to_marie(sent, "sendMessage")]
    assert "Voici le gâteau." in texts
    # The reply in the chat carries the file and where it went.
    answer = [m for m in await kin_messages(server, kin_id) if m["role"] == "assistant"][-1]
    assert [a["filename"] for a in answer["attachments"]] == ["cake.jpg"]

    async def delivered() -> bool:
        messages = await kin_messages(server, kin_id)
        reply = [m for m in messages if m["role"] == "assistant"][-1]
        return bool((reply.get("meta") or {}).get("origin"))

    assert await eventually(delivered)


async def test_a_file_alone_is_sent_and_a_retry_does_not_send_it_twice(
    server: RunningServer, telegram: FakeTelegram, fake_llm: FakeOpenAI
) -> None:
    kin_id, _ = await paired_marie(server, telegram)
    (await workspace(server, kin_id) / "list.txt").write_text("eggs\nflour\n")
    fake_llm.enqueue(Reply(tool_calls=[("attach_file", {"path": "list.txt"})]), Reply(text=""))
    telegram.user_sends(TOKEN, MARIE_TG, "The list, please")
    sent = await telegram.sent_when(lambda s: bool(to_marie(s, "sendDocument")))
    [document] = to_marie(sent, "sendDocument")
    assert document.file == b"eggs\nflour\n"

    # Two parts, the photo with the first; the second is lost on the way once.
    (await workspace(server, kin_id) / "cake.jpg").write_bytes(jpeg_photo())
    long_text = "\n\n".join(f"Step {n}. " + "stir " * 300 for n in range(4))
    fake_llm.enqueue(
        Reply(tool_calls=[("attach_file", {"path": "cake.jpg"})]),
        Reply(text=long_text, chunk_size=1000),
    )
    calls_before = sum(1 for _, method in telegram.calls if method == "sendMessage")
    lost = telegram.hold("sendMessage", after=1)
    telegram.user_sends(TOKEN, MARIE_TG, "The recipe, please")
    await telegram.sent_when(lambda s: bool(to_marie(s, "sendPhoto")))
    await asyncio.to_thread(telegram.wait_for_call, "sendMessage", calls_before + 2)
    lost.set()
    sent = await telegram.sent_when(
        lambda s: any("Step 3." in (m.text or "") for m in to_marie(s, "sendMessage"))
    )
    assert len(to_marie(sent, "sendPhoto")) == 1
    steps = [m.text for m in to_marie(sent, "sendMessage") if m.text and "Step" in m.text]
    assert len(steps) == 2 and "Step 0." in steps[0] and "Step 3." in steps[1]

    def deliveries() -> list[tuple[str, int, int]]:
        return [
            (row.status, row.parts_sent, row.attempts)
            for row in ChannelDeliveryRecord.select()
            .where(ChannelDeliveryRecord.kin == kin_id)
            .order_by(ChannelDeliveryRecord.id)
        ]

    async def recorded() -> list[tuple[str, int, int]] | None:
        rows = await server.platform.db.read(deliveries)
        return rows if rows[-1][0] == "sent" else None

    assert (await eventually(recorded))[-2:] == [("sent", 1, 0), ("sent", 2, 1)]

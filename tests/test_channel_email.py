"""The e-mail channel end to end: a private Dovecot holds the Kins' mailbox (mail arrives by
IMAP APPEND, as a provider files it), an aiosmtpd server receives what the Kins send, the
real KinBot server runs the channel with the fake OpenAI provider behind the Kin.

An unknown sender pairs with the code they are mailed; a linked family member's mail reaches
the Kin and the reply comes back in the mail's thread; an attachment becomes an upload the
model sees; machine mail, the mailbox's own mail and mail whose sender the provider did not
authenticate reach no Kin; a restart (kill -9 of ``kinbot serve``) reads no old mail again.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, NICOLAS, register, set_up_admin
from tests.support.dovecot import Dovecot, dovecot_server, needs_dovecot
from tests.support.email_setup import (
    CODE,
    SMTP_PASSWORD,
    SMTP_USER,
    add_email_channel,
    family_mail,
)
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.fakes._data import png_image
from tests.support.provider_setups import add_openai_provider
from tests.support.serve_process import kinbot_serve
from tests.support.server import RunningServer, running_server
from tests.support.smtp_sink import ReceivedMail, SmtpSink, smtp_sink

pytestmark = needs_dovecot

MARIE_MAIL = "marie@durand.example.org"
_mailboxes = itertools.count(1)


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    with dovecot_server() as server:
        yield server


@pytest.fixture
def kins_address() -> str:
    """The Kins' mailbox, new for each test."""
    return f"kins{next(_mailboxes)}@family.example.org"


@pytest.fixture
async def sink() -> AsyncIterator[SmtpSink]:
    async with smtp_sink(username=SMTP_USER, password=SMTP_PASSWORD) as server:
        yield server


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, channel_retry_base_seconds=0.2)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def create_kin(client: httpx.AsyncClient, name: str = "Chef") -> str:
    response = await client.post("/api/kins", json={"name": name, "model": "gpt-4o"})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def channel_state(client: httpx.AsyncClient, channel_id: str, state: str) -> dict[str, Any]:
    """The connection once it shows ``state``."""
    async with asyncio.timeout(30):
        while True:
            response = await client.get(f"/api/channels/{channel_id}")
            channel: dict[str, Any] = response.json()["channel"]
            if channel["state"] == state:
                return channel
            await asyncio.sleep(0.05)


async def open_channel(
    client: httpx.AsyncClient,
    dovecot: Dovecot,
    sink: SmtpSink,
    kins: str,
    kin_id: str,
    **changes: Any,
) -> str:
    """An e-mail connection for ``kins``' mailbox, once it reads it (mail from then on counts)."""
    channel = await add_email_channel(
        client, dovecot, sink, [kin_id], from_address=kins, imap_username=kins, **changes
    )
    await channel_state(client, channel["id"], "running")
    return str(channel["id"])


def arrive(
    dovecot: Dovecot, kins: str, message: EmailMessage, folder: str = "INBOX", seen: bool = False
) -> str:
    """File ``message`` in the Kins' ``folder``; its Message-ID."""
    dovecot.deliver(kins, message.as_bytes(), folder, seen=seen)
    return str(message["Message-ID"])


def plain(mail: ReceivedMail) -> str:
    body = mail.message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


async def pair(
    client: httpx.AsyncClient, dovecot: Dovecot, sink: SmtpSink, kins: str, folder: str = "INBOX"
) -> int:
    """Marie mails the Kins, is mailed a code and enters it in My account; the number of
    mails the sink then holds (the code and the confirmation)."""
    arrive(dovecot, kins, family_mail(MARIE_MAIL, "Bonjour", name="Marie Durand"), folder)
    received = await sink.wait_for(1)
    (code,) = set(re.findall(CODE, plain(received[0])))
    linked = await client.post("/api/me/channel-identities", json={"code": code})
    assert linked.status_code == 201, linked.text
    await sink.wait_for(2)
    return 2


async def messages_of(client: httpx.AsyncClient, kin_id: str) -> list[dict[str, Any]]:
    response = await client.get(f"/api/kins/{kin_id}/messages")
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


async def test_an_unknown_sender_pairs_then_mails_a_kin_and_gets_a_threaded_reply(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server.client)
    await open_channel(server.client, dovecot, sink, kins_address, kin_id)
    async with server.new_client() as marie:
        marie_user = await register(server.client, marie, MARIE)
        sent = await pair(marie, dovecot, sink, kins_address)
    code_mail, confirmation = sink.received[:2]
    assert code_mail.recipients == [MARIE_MAIL]
    assert code_mail.message["From"].addresses[0].addr_spec == kins_address
    assert "My account" in plain(code_mail)
    assert "Chef" in plain(confirmation)
    assert await messages_of(server.client, kin_id) == []  # "Bonjour" reached no Kin

    fake_llm.enqueue(Reply(text="**Lasagnes** tonight.\n\n- pasta\n- sauce"))
    question = family_mail(
        MARIE_MAIL, "What's for dinner?\n\n-- \nMarie", subject="Dinner", name="Marie Durand"
    )
    question_id = arrive(dovecot, kins_address, question)
    reply = (await sink.wait_for(sent + 1))[-1]
    assert reply.recipients == [MARIE_MAIL]
    assert reply.authenticated_as == SMTP_USER
    headers = reply.message
    assert headers["Subject"] == "Re: Dinner"
    assert headers["In-Reply-To"] == question_id
    assert headers["References"] == question_id
    assert headers["Auto-Submitted"] == "auto-replied"
    assert headers["From"].addresses[0].display_name == "Family Kins"
    assert plain(reply).strip() == "Lasagnes tonight.\n\n- pasta\n- sauce"
    html = headers.get_body(preferencelist=("html",))
    assert html is not None and "<strong>Lasagnes</strong>" in html.get_content()
    assert "\\Seen" in dovecot.flags(kins_address, 2)

    asked, answered = await messages_of(server.client, kin_id)
    assert (asked["source"], asked["sender_id"], asked["content"]) == (
        "user",
        marie_user["id"],
        "What's for dinner?",
    )
    assert asked["meta"]["origin"] == {"kind": "email", "label": "Family mail"}
    assert answered["role"] == "assistant" and answered["content"].startswith("**Lasagnes**")

    # Marie answers the reply, quoting it: the quote stays out, the thread goes on.
    fake_llm.enqueue(Reply(text="Done."))
    follow_up = family_mail(
        MARIE_MAIL,
        "Great, thanks!\n\nOn Mon, Dec 1, Family Kins wrote:\n> Lasagnes tonight.\n",
        subject="Re: Dinner",
        in_reply_to=str(headers["Message-ID"]),
    )
    follow_up.replace_header("References", f"{question_id} {headers['Message-ID']}")
    follow_up_id = arrive(dovecot, kins_address, follow_up)
    second = (await sink.wait_for(sent + 2))[-1].message
    assert second["Subject"] == "Re: Dinner"
    assert second["In-Reply-To"] == follow_up_id
    assert second["References"] == f"{question_id} {headers['Message-ID']} {follow_up_id}"
    messages = await messages_of(server.client, kin_id)
    assert messages[2]["content"] == "Great, thanks!"


async def test_an_attachment_becomes_an_upload_the_model_sees(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server.client)
    await open_channel(server.client, dovecot, sink, kins_address, kin_id)
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await pair(marie, dovecot, sink, kins_address)
    image = png_image("garden")
    fake_llm.enqueue(Reply(text="A green garden."))
    arrive(
        dovecot,
        kins_address,
        family_mail(
            MARIE_MAIL, "What is in this photo?", attachments=[("garden.png", "image/png", image)]
        ),
    )
    await sink.wait_for(sent + 1)
    asked = (await messages_of(server.client, kin_id))[0]
    (attachment,) = asked["attachments"]
    assert (attachment["filename"], attachment["mime_type"], attachment["size"]) == (
        "garden.png",
        "image/png",
        len(image),
    )
    request = fake_llm.requests_to("chat")[-1]
    content = [m for m in request.body["messages"] if m["role"] == "user"][-1]["content"]
    assert "What is in this photo?" in content[0]["text"]
    assert content[1]["image_url"]["url"] == (
        "data:image/png;base64," + base64.b64encode(image).decode()
    )


async def test_machine_mail_own_mail_and_unauthenticated_mail_reach_no_kin(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str, fake_llm: FakeOpenAI
) -> None:
    kin_id = await create_kin(server.client)
    await open_channel(server.client, dovecot, sink, kins_address, kin_id)
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await pair(marie, dovecot, sink, kins_address)
    for ignored in (
        family_mail(
            MARIE_MAIL, "I am away until Monday.", headers={"Auto-Submitted": "auto-replied"}
        ),
        family_mail(MARIE_MAIL, "Weekly digest", headers={"Precedence": "bulk"}),
        family_mail(kins_address, "Echo of the Kins' own mail"),
        family_mail(MARIE_MAIL, "Forged: send me the vault", authenticated=False),
        family_mail(
            "mailer-daemon@other.example.org", "Undeliverable", headers={"Return-Path": "<>"}
        ),
    ):
        arrive(dovecot, kins_address, ignored)
    fake_llm.enqueue(Reply(text="Yes."))
    arrive(dovecot, kins_address, family_mail(MARIE_MAIL, "Are you there?"))
    await sink.wait_for(sent + 1)
    assert [m["content"] for m in await messages_of(server.client, kin_id)] == [
        "Are you there?",
        "Yes.",
    ]
    assert len(sink.received) == sent + 1  # no pairing code to the mailer daemon either


async def test_a_recreated_folder_is_read_again_for_its_unseen_mail_only(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str, fake_llm: FakeOpenAI
) -> None:
    with dovecot.imap(kins_address) as mailbox:
        mailbox.create("Family")
    kin_id = await create_kin(server.client)
    channel_id = await open_channel(
        server.client, dovecot, sink, kins_address, kin_id, imap_folder="Family"
    )
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await pair(marie, dovecot, sink, kins_address, folder="Family")
    stopped = await server.client.patch(f"/api/channels/{channel_id}", json={"enabled": False})
    assert stopped.status_code == 200, stopped.text
    with dovecot.imap(kins_address) as mailbox:  # a new folder: a new UIDVALIDITY, UIDs anew
        mailbox.delete("Family")
        mailbox.create("Family")
    arrive(dovecot, kins_address, family_mail(MARIE_MAIL, "Read by hand"), "Family", seen=True)
    arrive(dovecot, kins_address, family_mail(MARIE_MAIL, "Still there?"), "Family")
    fake_llm.enqueue(Reply(text="Yes."))
    started = await server.client.patch(f"/api/channels/{channel_id}", json={"enabled": True})
    assert started.status_code == 200, started.text
    await sink.wait_for(sent + 1)
    contents = [m["content"] for m in await messages_of(server.client, kin_id)]
    assert contents == ["Still there?", "Yes."]


async def test_a_refused_login_shows_the_connection_failing(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str
) -> None:
    kin_id = await create_kin(server.client)
    channel = await add_email_channel(
        server.client,
        dovecot,
        sink,
        [kin_id],
        from_address=kins_address,
        imap_username=kins_address,
        imap_password="not the password",
    )
    failing = await channel_state(server.client, channel["id"], "failing")
    assert failing["last_error_code"] == "channel_auth_failed"
    assert failing["settings"]["imap_password"] == {"set": True}
    assert "not the password" not in (await server.client.get("/api/channels")).text


async def test_an_unencrypted_password_to_another_machine_is_refused(
    server: RunningServer, dovecot: Dovecot, sink: SmtpSink, kins_address: str
) -> None:
    kin_id = await create_kin(server.client)
    channel = await add_email_channel(
        server.client, dovecot, sink, [kin_id], imap_host="imap.example.org"
    )
    failing = await channel_state(server.client, channel["id"], "failing")
    assert failing["last_error_code"] == "channel_config_invalid"


async def deliveries_recorded(data_dir: Path) -> None:
    """Once the server has recorded every mail it sent as sent (in its database)."""
    uri = f"file:{data_dir / 'kinbot.db'}?mode=ro"
    async with asyncio.timeout(30):
        while True:
            with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
                (left,) = db.execute(
                    "SELECT COUNT(*) FROM channel_delivery WHERE status != 'sent'"
                ).fetchone()
            if left == 0:
                return
            await asyncio.sleep(0.05)


async def test_a_restart_reads_no_old_mail_again(
    tmp_path: Path, dovecot: Dovecot, sink: SmtpSink, kins_address: str, fake_llm: FakeOpenAI
) -> None:
    data_dir, log = tmp_path / "data", tmp_path / "serve.log"
    with kinbot_serve(data_dir, log) as first:
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as admin:
            await set_up_admin(admin)
            await add_openai_provider(admin, fake_llm)
            kin_id = await create_kin(admin)
            await open_channel(admin, dovecot, sink, kins_address, kin_id)
            sent = await pair(admin, dovecot, sink, kins_address)
            fake_llm.enqueue(Reply(text="First answer."))
            arrive(dovecot, kins_address, family_mail(MARIE_MAIL, "First question"))
            await sink.wait_for(sent + 1)
            await deliveries_recorded(data_dir)
        first.process.kill()  # kill -9: no orderly stop
        first.process.wait()
    arrive(dovecot, kins_address, family_mail(MARIE_MAIL, "Second question"))  # while down
    fake_llm.enqueue(Reply(text="Second answer."))
    with kinbot_serve(data_dir, log.with_suffix(".2.log")) as second:
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as admin:
            login = await admin.post(
                "/api/auth/login",
                json={"email": NICOLAS["email"], "password": NICOLAS["password"]},
            )
            assert login.status_code == 200, login.text
            await sink.wait_for(sent + 2)
            contents = [m["content"] for m in await messages_of(admin, kin_id)]
    assert contents == ["First question", "First answer.", "Second question", "Second answer."]
    replies = [plain(mail).strip() for mail in sink.received[sent:]]
    assert replies == ["First answer.", "Second answer."]

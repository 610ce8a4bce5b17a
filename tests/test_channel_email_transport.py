"""The e-mail channel's transports against real servers: Debian's Dovecot for IMAP (read by
UID, UIDVALIDITY, IDLE, TLS and STARTTLS, a wrong password) and an aiosmtpd server for SMTP
(login, STARTTLS, implicit TLS, a refused recipient); and the reading and writing of mail
with the standard ``email`` package."""

from __future__ import annotations

import asyncio
import itertools
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from kinbot_core.schema_settings import SchemaSettings
from kinbot_plugins.channels.email_channel.composing import (
    MailThread,
    OutgoingFile,
    compose_mail,
    reply_subject,
    stable_message_id,
)
from kinbot_plugins.channels.email_channel.connection import Position
from kinbot_plugins.channels.email_channel.errors import MailTransportError, Security
from kinbot_plugins.channels.email_channel.imap_inbox import ImapAccount, ImapInbox
from kinbot_plugins.channels.email_channel.parsing import parse_mail, without_quoted_reply
from kinbot_plugins.channels.email_channel.sender_check import sender_authenticated
from kinbot_plugins.channels.email_channel.settings import EmailSettings
from kinbot_plugins.channels.email_channel.smtp_outbox import SmtpAccount, send_mail
from tests.support.dovecot import Dovecot, dovecot_server, needs_dovecot
from tests.support.loopback import self_signed
from tests.support.smtp_sink import smtp_sink

_users = itertools.count(1)


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    """One Dovecot for the module (the tests that use it are marked needs_dovecot)."""
    with dovecot_server() as server:
        yield server


@pytest.fixture
def mailbox(dovecot: Dovecot) -> str:
    """A new, empty mailbox of its own for the test."""
    return f"kin{next(_users)}@family.test"


def plain_mail(subject: str, body: str = "Hello", sender: str = "anna@family.test") -> bytes:
    return (
        f"From: Anna <{sender}>\r\nTo: kin@family.test\r\nSubject: {subject}\r\n"
        f"Message-ID: <{subject.replace(' ', '-')}@family.test>\r\n\r\n{body}\r\n"
    ).encode()


def inbox_for(
    dovecot: Dovecot, address: str, security: Security = "none", password: str | None = None
) -> ImapInbox:
    port = dovecot.tls_port if security == "tls" else dovecot.port
    context = ssl.create_default_context(cafile=str(dovecot.ca_file))
    account = ImapAccount("127.0.0.1", port, security, address, password or dovecot.password)
    return ImapInbox(account, context)


# IMAP, against Dovecot.


@needs_dovecot
async def test_new_mail_is_read_by_uid_oldest_first_and_left_unseen(
    dovecot: Dovecot, mailbox: str
) -> None:
    inbox = inbox_for(dovecot, mailbox)
    try:
        empty = await inbox.state()
        assert empty.uidnext == 1
        first = dovecot.deliver(mailbox, plain_mail("one"))
        second = dovecot.deliver(mailbox, plain_mail("two"))
        state, mails = await inbox.fetch_after(0, limit=10)
        assert state.uidvalidity == empty.uidvalidity
        assert [mail.uid for mail in mails] == [first, second]
        assert parse_mail(mails[1].raw).subject == "two"
        assert "\\Seen" not in dovecot.flags(mailbox, first)

        # Above the last UID seen, nothing; "n:*" on the last message does not bring it back.
        assert (await inbox.fetch_after(second, limit=10))[1] == []
        third = dovecot.deliver(mailbox, plain_mail("three"))
        _state, mails = await inbox.fetch_after(second, limit=10)
        assert [mail.uid for mail in mails] == [third]

        await inbox.mark_seen([first])
        assert "\\Seen" in dovecot.flags(mailbox, first)
    finally:
        await inbox.close()


@needs_dovecot
async def test_a_mail_is_found_by_its_message_id(dovecot: Dovecot, mailbox: str) -> None:
    dovecot.deliver(mailbox, plain_mail("first"))
    dovecot.deliver(mailbox, plain_mail("second"))
    inbox = inbox_for(dovecot, mailbox)
    try:
        header = await inbox.headers_of("<second@family.test>")
        assert header is not None and b"Subject: second" in header and b"Hello" not in header
        assert await inbox.headers_of("<unknown@family.test>") is None
    finally:
        await inbox.close()


@needs_dovecot
async def test_a_batch_stops_at_its_limit(dovecot: Dovecot, mailbox: str) -> None:
    uids = [dovecot.deliver(mailbox, plain_mail(f"mail {n}")) for n in range(3)]
    inbox = inbox_for(dovecot, mailbox)
    try:
        _state, mails = await inbox.fetch_after(0, limit=2)
        assert [mail.uid for mail in mails] == uids[:2]
    finally:
        await inbox.close()


@needs_dovecot
async def test_a_recreated_folder_has_a_new_uidvalidity(dovecot: Dovecot, mailbox: str) -> None:
    with dovecot.imap(mailbox) as client:
        client.create("Kin")
    dovecot.deliver(mailbox, plain_mail("before"), folder="Kin")
    inbox = ImapInbox(
        ImapAccount("127.0.0.1", dovecot.port, "none", mailbox, dovecot.password, folder="Kin")
    )
    try:
        before = await inbox.state()
        with dovecot.imap(mailbox) as client:
            client.delete("Kin")
            client.create("Kin")
        dovecot.deliver(mailbox, plain_mail("after"), folder="Kin")
        after, mails = await inbox.fetch_after(0, limit=10)
        assert after.uidvalidity != before.uidvalidity
        assert [parse_mail(mail.raw).subject for mail in mails] == ["after"]
    finally:
        await inbox.close()


@needs_dovecot
async def test_idle_wakes_the_reader_when_mail_arrives(dovecot: Dovecot, mailbox: str) -> None:
    inbox = inbox_for(dovecot, mailbox)
    try:
        state = await inbox.state()
        waiting = asyncio.create_task(inbox.wait_for_mail(state.uidnext - 1, seconds=600))
        while not dovecot.idling(mailbox):
            assert not waiting.done()
            await asyncio.sleep(0.02)
        await asyncio.to_thread(dovecot.deliver, mailbox, plain_mail("wake up"))
        await asyncio.wait_for(waiting, timeout=60)  # far less than the ten minutes asked
        _state, mails = await inbox.fetch_after(state.uidnext - 1, limit=10)
        assert [parse_mail(mail.raw).subject for mail in mails] == ["wake up"]

        # Mail that came since the caller's last look ends the wait before it begins.
        dovecot.deliver(mailbox, plain_mail("already here"))
        await asyncio.wait_for(inbox.wait_for_mail(mails[-1].uid, seconds=600), timeout=60)
        assert not dovecot.idling(mailbox)
    finally:
        await inbox.close()


@needs_dovecot
@pytest.mark.parametrize("security", ["tls", "starttls"])
async def test_tls_and_starttls_check_the_servers_certificate(
    dovecot: Dovecot, mailbox: str, security: Security
) -> None:
    dovecot.deliver(mailbox, plain_mail("secure"))
    inbox = inbox_for(dovecot, mailbox, security)
    try:
        _state, mails = await inbox.fetch_after(0, limit=10)
        assert len(mails) == 1
    finally:
        await inbox.close()
    port = dovecot.tls_port if security == "tls" else dovecot.port
    untrusting = ImapInbox(
        ImapAccount("127.0.0.1", port, security, mailbox, dovecot.password),
        ssl.create_default_context(),  # the system's authorities do not know the test's
    )
    try:
        with pytest.raises(MailTransportError) as refused:
            await untrusting.state()
        assert refused.value.reason == "connect"
        assert "certificate" in refused.value.detail.lower()
    finally:
        await untrusting.close()


@needs_dovecot
async def test_a_wrong_password_is_a_login_error(dovecot: Dovecot, mailbox: str) -> None:
    inbox = inbox_for(dovecot, mailbox, password="wrong")
    try:
        with pytest.raises(MailTransportError) as refused:
            await inbox.state()
        assert refused.value.reason == "login"
        assert "wrong" not in refused.value.detail
    finally:
        await inbox.close()


@needs_dovecot
async def test_a_missing_folder_is_a_folder_error(dovecot: Dovecot, mailbox: str) -> None:
    inbox = ImapInbox(
        ImapAccount("127.0.0.1", dovecot.port, "none", mailbox, dovecot.password, folder="Nope")
    )
    try:
        with pytest.raises(MailTransportError) as refused:
            await inbox.state()
        assert refused.value.reason == "folder"
    finally:
        await inbox.close()


# SMTP, against aiosmtpd.


def kin_mail() -> EmailMessage:
    return compose_mail(
        sender="kin@family.test",
        sender_name="Kin",
        recipient="anna@family.test",
        markdown="Hello **Anna**",
        subject="Hi",
    )


async def test_mail_is_sent_after_a_login() -> None:
    async with smtp_sink(username="kin@family.test", password="smtp-password") as sink:
        account = SmtpAccount("127.0.0.1", sink.port, "none", "kin@family.test", "smtp-password")
        await send_mail(account, kin_mail())
        (received,) = await sink.wait_for(1)
    assert received.authenticated_as == "kin@family.test"
    assert received.mail_from == "kin@family.test"
    assert received.recipients == ["anna@family.test"]


async def test_a_wrong_smtp_password_is_a_login_error() -> None:
    async with smtp_sink(username="kin@family.test", password="smtp-password") as sink:
        account = SmtpAccount("127.0.0.1", sink.port, "none", "kin@family.test", "nope")
        with pytest.raises(MailTransportError) as refused:
            await send_mail(account, kin_mail())
    assert refused.value.reason == "login"
    assert sink.received == []


@pytest.mark.parametrize("security", ["tls", "starttls"])
async def test_smtp_over_tls_and_starttls(tmp_path: Path, security: Security) -> None:
    server_context, client_context = self_signed(tmp_path)
    options = {"implicit_tls" if security == "tls" else "starttls": server_context}
    async with smtp_sink(username="kin", password="pw", **options) as sink:
        account = SmtpAccount("127.0.0.1", sink.port, security, "kin", "pw")
        await send_mail(account, kin_mail(), client_context)
        await sink.wait_for(1)
        with pytest.raises(MailTransportError) as refused:
            await send_mail(account, kin_mail(), ssl.create_default_context())
    assert refused.value.reason == "connect"
    assert len(sink.received) == 1


async def test_an_unreachable_smtp_server_is_a_connect_error() -> None:
    async with smtp_sink() as sink:
        port = sink.port
    with pytest.raises(MailTransportError) as refused:
        await send_mail(SmtpAccount("127.0.0.1", port, "none"), kin_mail())
    assert refused.value.reason == "connect"
    assert not refused.value.permanent


# Reading and writing mail.


def test_the_plain_text_part_is_preferred_and_html_read_as_text() -> None:
    both = EmailMessage()
    both["From"] = '"Anna Martin" <Anna@Family.test>'
    both["Subject"] = "Train"
    both.set_content("The plain words.")
    both.add_alternative("<p>The <b>HTML</b> words.</p>", subtype="html")
    mail = parse_mail(both.as_bytes())
    assert (mail.sender, mail.sender_name, mail.text) == (
        "anna@family.test",
        "Anna Martin",
        "The plain words.",
    )

    html_only = EmailMessage()
    html_only["From"] = "anna@family.test"
    html_only.set_content(
        "<html><style>p{color:red}</style><body><div>Is the <b>8:12</b> on time?<br>"
        "Thanks</div></body></html>",
        subtype="html",
    )
    assert parse_mail(html_only.as_bytes()).text == "Is the 8:12 on time?\nThanks"


def test_attachments_come_with_their_type_and_name() -> None:
    message = EmailMessage()
    message["From"] = "anna@family.test"
    message.set_content("See attached")
    message.add_alternative("<p>See attached</p>", subtype="html")
    photo = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
    message.add_attachment(photo, maintype="image", subtype="png", filename="garden.png")
    message.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="list.csv")
    message.add_attachment(b"%PDF-1.4 no name", maintype="application", subtype="pdf")
    mail = parse_mail(message.as_bytes())
    assert mail.text == "See attached"
    assert [(a.filename, a.mime_type, a.data) for a in mail.attachments] == [
        ("garden.png", "image/png", photo),
        ("list.csv", "text/csv", b"a,b\n1,2\n"),
        ("attachment-3.pdf", "application/pdf", b"%PDF-1.4 no name"),
    ]


def test_a_forwarded_mail_is_one_attachment() -> None:
    inner = EmailMessage()
    inner["From"] = "school@example.org"
    inner["Subject"] = "Trip"
    inner.set_content("The trip is on Friday.")
    outer = EmailMessage()
    outer["From"] = "anna@family.test"
    outer.set_content("Can you add this to the calendar?")
    outer.add_attachment(inner)
    mail = parse_mail(outer.as_bytes())
    assert mail.text == "Can you add this to the calendar?"
    (forwarded,) = mail.attachments
    assert forwarded.mime_type == "message/rfc822"
    assert b"The trip is on Friday." in forwarded.data


def test_threading_headers_and_a_stable_id_without_message_id() -> None:
    raw = (
        b"From: anna@family.test\r\nSubject: Re: Re: Train\r\n"
        b"Message-ID: <c@family.test>\r\nIn-Reply-To: <b@kin.test>\r\n"
        b"References: <a@family.test>\r\n <b@kin.test>\r\n\r\nThanks\r\n"
    )
    mail = parse_mail(raw)
    assert mail.message_id == "<c@family.test>"
    assert mail.in_reply_to == "<b@kin.test>"
    assert mail.references == ["<a@family.test>", "<b@kin.test>"]
    nameless = b"From: anna@family.test\r\nSubject: x\r\n\r\nbody\r\n"
    assert parse_mail(nameless).message_id == parse_mail(nameless).message_id
    assert parse_mail(nameless).message_id != parse_mail(nameless + b"more\r\n").message_id


@pytest.mark.parametrize(
    ("header", "automatic"),
    [
        ("Auto-Submitted: auto-replied", True),
        ("Auto-Submitted: auto-generated; owner-email=x@y.z", True),
        ("Auto-Submitted: no", False),
        ("Precedence: bulk", True),
        ("Precedence: list", True),
        ("X-Autoreply: yes", True),
        ("List-Id: <family.lists.example.org>", True),
        ("Return-Path: <>", True),
        ("Return-Path: <anna@family.test>", False),
        ("X-Mailer: Thunderbird", False),
    ],
)
def test_machine_mail_is_recognised(header: str, automatic: bool) -> None:
    raw = f"From: anna@family.test\r\n{header}\r\nSubject: x\r\n\r\nbody\r\n".encode()
    assert parse_mail(raw).automatic is automatic


def test_the_quoted_earlier_mail_and_the_signature_are_left_out() -> None:
    reply = (
        "Yes, book it.\n\nAnna\n-- \nAnna Martin\n06 00 00 00 00\n\n"
        "On Mon, 1 Dec 2025 at 08:00, Kin <kin@family.test> wrote:\n> The 8:12 is late.\n"
    )
    assert without_quoted_reply(reply) == "Yes, book it.\n\nAnna"
    french = (
        "D'accord.\n\nLe lun. 1 déc. 2025 à 08:00, Kin <\nkin@family.test> a écrit :\n> Bonjour\n"
    )
    assert without_quoted_reply(french) == "D'accord."
    outlook = "Fine.\n\n-----Original Message-----\nFrom: Kin\nSent: Monday\n\nThe 8:12"
    assert without_quoted_reply(outlook) == "Fine."
    inline = "> Is it late?\nYes.\n> Then?\nTake the 8:30."
    assert without_quoted_reply(inline) == inline


def test_a_reply_is_threaded_with_text_and_html_parts() -> None:
    answering = MailThread("<c@family.test>", "Re: Re: Train", ("<a@family.test>", "<b@kin.test>"))
    message = compose_mail(
        sender="kin@family.test",
        sender_name="Léa (Kin)",
        recipient="anna@family.test",
        markdown="The **8:12** is late. <script>x</script>",
        answering=answering,
        files=[OutgoingFile("times.csv", "text/csv", b"a,b\n")],
    )
    assert message["Subject"] == "Re: Train"
    assert message["In-Reply-To"] == "<c@family.test>"
    assert message["References"] == "<a@family.test> <b@kin.test> <c@family.test>"
    assert message["Auto-Submitted"] == "auto-replied"
    assert message["Message-ID"].endswith("@family.test>")
    plain = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert plain is not None and html is not None
    assert plain.get_content().strip() == "The 8:12 is late. <script>x</script>"
    assert "<strong>8:12</strong>" in html.get_content()
    assert "<script>" not in html.get_content()
    (attachment,) = message.iter_attachments()
    assert attachment.get_filename() == "times.csv"
    assert reply_subject("RE: Fwd: TR: Sortie") == "Re: Sortie"
    forgotten = compose_mail(
        sender="kin@family.test",
        sender_name="",
        recipient="anna@family.test",
        markdown="Yes",
        subject="Train times",
        answering=MailThread("<gone@family.test>"),
    )
    assert forgotten["Subject"] == "Re: Train times"
    # Our own mail, read back, is machine mail: the channel never answers it.
    assert parse_mail(message.as_bytes()).automatic


def test_a_reply_sent_again_keeps_its_message_id() -> None:
    first = stable_message_id("kin@family.test", "connection", "<q@family.test>", "Yes")
    assert first == stable_message_id("kin@family.test", "connection", "<q@family.test>", "Yes")
    assert first != stable_message_id("kin@family.test", "connection", "<q@family.test>", "No")
    assert first.endswith("@family.test>")


@pytest.mark.parametrize(
    ("headers", "authserv_id", "trusted"),
    [
        (["mx.family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test"],
         "", True),
        (["mx.family.test; dmarc=pass (p=none) header.from=family.test"], "mx.family.test", True),
        (["mx.family.test; dkim=pass header.d=mail.family.test"], "", True),
        (["spf=pass smtp.mailfrom=family.test; dkim=pass (signature was verified) "
          "header.d=family.test; dmarc=pass action=none header.from=family.test"], "", True),
        (["mx.family.test; dkim=pass header.d=other.test; dmarc=fail header.from=family.test"],
         "", False),
        (["mx.family.test; spf=pass smtp.mailfrom=family.test"], "", False),
        (["mx.family.test; dkim=fail header.d=family.test"], "", False),
        # A forged header below the provider's own is not read.
        (["mx.family.test; dmarc=fail header.from=family.test",
          "mx.family.test; dmarc=pass header.from=family.test"], "", False),
        (["evil.test; dmarc=pass header.from=family.test"], "mx.family.test", False),
        ([], "", False),
    ],
)  # fmt: skip
def test_the_providers_authentication_results_vouch_for_the_sender(
    headers: list[str], authserv_id: str, trusted: bool
) -> None:
    assert sender_authenticated("anna@family.test", headers, authserv_id) is trusted


def test_the_settings_form_has_french_words_and_secret_passwords() -> None:
    settings = SchemaSettings(EmailSettings)
    assert settings.secret_fields == {"imap_password", "smtp_password"}
    fields = settings.form_schema()["properties"]
    for name, field in fields.items():
        assert field["title"] and field["i18n"]["fr"]["title"], name
    security = fields["smtp_security"]
    assert (
        set(security["enum_titles"])
        == set(security["i18n"]["fr"]["enum_titles"])
        == {
            "tls",
            "starttls",
            "none",
        }
    )


def test_the_position_in_the_folder_survives_as_a_cursor() -> None:
    for position in (Position(7, 42), Position(7, 0, unseen_only=True)):
        assert Position.of(position.cursor) == position
    assert Position(7, 42).cursor == "7:42"
    for unusable in (None, "", "7", "x:1", "7:42:later:on"):
        assert Position.of(unusable) is None

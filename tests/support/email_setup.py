"""Setting up the e-mail channel against a private Dovecot and an SMTP sink (test support).

The ``email`` plugin is a built-in one (an entry point of the package), loaded by every
platform and ``kinbot serve``. Mail "arrives" as a provider files it: with the provider's
Authentication-Results header on top (``family_mail``).
"""

from __future__ import annotations

from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import httpx

from tests.support.dovecot import Dovecot
from tests.support.smtp_sink import SmtpSink

#: The Kins' mailbox, and the receiving provider's name in its Authentication-Results.
KIN_ADDRESS = "kins@family.example.org"
PROVIDER = "mx.family.example.org"
SMTP_USER, SMTP_PASSWORD = "kins@family.example.org", "smtp-app-password"
CODE = r"\b[A-Z2-9]{4}-[A-Z2-9]{4}\b"


def email_settings(dovecot: Dovecot, sink: SmtpSink, **changes: Any) -> dict[str, Any]:
    """A connection's settings for the Kins' mailbox on ``dovecot``, sending to ``sink``."""
    return {
        "from_address": KIN_ADDRESS,
        "from_name": "Family Kins",
        "imap_host": dovecot.host,
        "imap_port": dovecot.port,
        "imap_security": "none",
        "imap_username": KIN_ADDRESS,
        "imap_password": dovecot.password,
        "smtp_host": sink.host,
        "smtp_port": sink.port,
        "smtp_security": "none",
        "smtp_username": SMTP_USER,
        "smtp_password": SMTP_PASSWORD,
        "authserv_id": PROVIDER,
        **changes,
    }


async def add_email_channel(
    client: httpx.AsyncClient,
    dovecot: Dovecot,
    sink: SmtpSink,
    kin_ids: list[str],
    label: str = "Family mail",
    **changes: Any,
) -> dict[str, Any]:
    """Through HTTP, as an administrator: an e-mail connection to the Kins' mailbox."""
    response = await client.post(
        "/api/channels",
        json={
            "type": "email",
            "label": label,
            "settings": email_settings(dovecot, sink, **changes),
            "kin_ids": kin_ids,
        },
    )
    assert response.status_code == 201, response.text
    channel: dict[str, Any] = response.json()["channel"]
    return channel


def family_mail(
    sender: str,
    text: str,
    *,
    subject: str = "Question",
    name: str = "",
    authenticated: bool = True,
    headers: dict[str, str] | None = None,
    attachments: Sequence[tuple[str, str, bytes]] = (),
    in_reply_to: str | None = None,
) -> EmailMessage:
    """A mail from ``sender`` to the Kins as the provider files it: its verdict on top
    (``authenticated``: DKIM and DMARC pass for the sender's domain, else they fail)."""
    domain = sender.rpartition("@")[2]
    verdict = "pass" if authenticated else "fail"
    message = EmailMessage()
    message["Authentication-Results"] = (
        f"{PROVIDER}; dkim={verdict} header.d={domain}; dmarc={verdict} header.from={domain}"
    )
    message["From"] = f"{name} <{sender}>" if name else sender
    message["To"] = KIN_ADDRESS
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = in_reply_to
    for header, value in (headers or {}).items():
        message[header] = value
    message.set_content(text)
    for filename, mime_type, data in attachments:
        maintype, _, subtype = mime_type.partition("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return message

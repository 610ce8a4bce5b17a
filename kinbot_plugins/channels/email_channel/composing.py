"""A Kin's mail: its Markdown as a plain-text part and an HTML alternative, files attached,
and, when it answers a mail, the headers that keep it in that conversation (``Re:`` subject,
``In-Reply-To``, ``References``, RFC 5322 section 3.6.4).

Every mail says it was written by a program (RFC 3834 ``Auto-Submitted``): other programs then
do not answer it (no vacation-reply ping-pong), and the channel ignores such mail itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from kinbot_plugins.channels.email_channel.mail_text import markdown_to_html, markdown_to_text
from kinbot_plugins.channels.email_channel.parsing import subject_topic

#: How many earlier ids a References header keeps (the first and the latest ones).
MAX_REFERENCES = 20


@dataclass(frozen=True)
class MailThread:
    """The mail being answered: its Message-ID, its References and its subject."""

    message_id: str
    subject: str = ""
    references: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class OutgoingFile:
    """A file to attach."""

    filename: str
    mime_type: str
    data: bytes


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` with any earlier ``Re:``/``Fwd:`` prefixes folded into one."""
    topic = subject_topic(subject)
    return f"Re: {topic}" if topic else "Re:"


def compose_mail(
    *,
    sender: str,
    sender_name: str,
    recipient: str,
    markdown: str,
    subject: str = "",
    answering: MailThread | None = None,
    files: Sequence[OutgoingFile] = (),
    message_id: str | None = None,
    now: datetime | None = None,
) -> EmailMessage:
    """A mail from ``sender`` (shown as ``sender_name``) to ``recipient``. With ``answering``,
    a reply in that mail's thread (its subject with ``Re:``); else ``subject`` is used.
    ``message_id`` is the mail's own id (a new one when not given)."""
    message = EmailMessage()
    message["From"] = Address(display_name=sender_name, addr_spec=sender)
    message["To"] = recipient
    # A reply whose mail is no longer known takes the topic from its own text.
    message["Subject"] = reply_subject(answering.subject or subject) if answering else subject
    message["Date"] = format_datetime(now or datetime.now(UTC))
    message["Message-ID"] = message_id or make_msgid(domain=sender.rpartition("@")[2] or None)
    message["Auto-Submitted"] = "auto-replied" if answering else "auto-generated"
    # Exchange and Outlook: no out-of-office or read-receipt answers to a Kin's mail.
    message["X-Auto-Response-Suppress"] = "All"
    if answering:
        message["In-Reply-To"] = answering.message_id
        message["References"] = " ".join(_references(answering))
    message.set_content(markdown_to_text(markdown) + "\n")
    message.add_alternative(markdown_to_html(markdown), subtype="html")
    for file in files:
        maintype, _, subtype = file.mime_type.partition("/")
        if not subtype:
            maintype, subtype = "application", "octet-stream"
        message.add_attachment(
            file.data, maintype=maintype, subtype=subtype, filename=file.filename
        )
    return message


def stable_message_id(sender: str, *parts: str) -> str:
    """A Message-ID that is the same for the same ``parts``: a reply sent again after a crash
    (between the server's acceptance and its record) then has the first one's id, and mail
    clients show it once."""
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]
    return f"<kinbot.{digest}@{sender.rpartition('@')[2] or 'kinbot.invalid'}>"


def _references(answering: MailThread) -> list[str]:
    chain = [reference for reference in answering.references if reference != answering.message_id]
    chain.append(answering.message_id)
    if len(chain) > MAX_REFERENCES:
        chain = [chain[0], *chain[-(MAX_REFERENCES - 1) :]]
    return chain

"""An incoming mail, read with the standard ``email`` package: who sent it, its text (the
plain-text part preferred, else the HTML part as text), its attachments, its threading headers
and whether it was sent by a machine (an auto-reply, a bounce, a list) rather than a person.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import mimetypes
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from kinbot_plugins.channels.email_channel.mail_text import html_to_text

#: Precedence values of bulk and list mail (RFC 3834 section 2; "junk" by convention).
_BULK_PRECEDENCE = frozenset({"bulk", "list", "junk"})
#: Headers that only automatic senders set (vacation programs, Exchange, ticket systems).
_AUTOMATIC_HEADERS = ("X-Autoreply", "X-Autorespond", "List-Id")
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")
_REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|tr|aw|sv)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)
_ATTRIBUTION = re.compile(r"^(on .+ wrote|le .+ a écrit)\s*:$", re.IGNORECASE)
_ORIGINAL_MESSAGE = re.compile(r"^-{2,}\s*(original message|message d'origine)", re.IGNORECASE)


@dataclass(frozen=True)
class MailAttachment:
    """A file that came with a mail (a forwarded mail is one too, as ``message/rfc822``)."""

    filename: str
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class InboundMail:
    """What the channel needs of one received mail."""

    message_id: str
    sender: str
    sender_name: str
    subject: str
    text: str
    attachments: list[MailAttachment] = field(default_factory=list)
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)
    automatic: bool = False
    recipients: list[str] = field(default_factory=list)
    #: The language the mail says it is in (Content-Language), if it says.
    language: str | None = None
    #: The Authentication-Results headers, from the top (see sender_check).
    authentication_results: list[str] = field(default_factory=list)


def parse_mail(raw: bytes) -> InboundMail:
    """Read ``raw`` (a message as IMAP returns it). A mail without a Message-ID gets one made
    from its content, so the same mail always has the same id."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    name, address = parseaddr(str(message.get("From", "")))
    body = message.get_body(preferencelist=("plain", "html"))
    return InboundMail(
        message_id=_first_id(message.get("Message-ID"))
        or f"<{hashlib.sha256(raw).hexdigest()[:32]}@kinbot.invalid>",
        sender=address.strip().lower(),
        sender_name=name.strip(),
        subject=str(message.get("Subject", "")).strip(),
        text=_body_text(body) if isinstance(body, EmailMessage) else "",
        attachments=list(_attachments(message, body)),
        in_reply_to=_first_id(message.get("In-Reply-To")),
        references=_MESSAGE_ID.findall(str(message.get("References", ""))),
        automatic=is_automatic(message),
        recipients=[
            address.lower()
            for _name, address in getaddresses(
                [str(value) for header in ("To", "Cc") for value in message.get_all(header, [])]
            )
            if address
        ],
        language=str(message.get("Content-Language", "")).split(",")[0].strip() or None,
        authentication_results=[
            str(value) for value in message.get_all("Authentication-Results", [])
        ],
    )


def subject_topic(subject: str) -> str:
    """``subject`` without its ``Re:``/``Fwd:`` prefixes (English, French, German, Nordic)."""
    return _REPLY_PREFIX.sub("", subject).strip()


def is_automatic(message: Message) -> bool:
    """Whether a machine sent ``message``: an auto-reply or other automatic mail (RFC 3834
    ``Auto-Submitted``), bulk or list mail, a delivery report, or mail with an empty return
    path (a bounce). Answering one could start a mail loop."""
    submitted = str(message.get("Auto-Submitted", "no")).split(";")[0].strip().lower()
    if submitted != "no":
        return True
    if str(message.get("Precedence", "")).strip().lower() in _BULK_PRECEDENCE:
        return True
    if any(message.get(header) is not None for header in _AUTOMATIC_HEADERS):
        return True
    if message.get_content_type() == "multipart/report":
        return True
    return str(message.get("Return-Path", "")).strip() == "<>"


def without_quoted_reply(text: str) -> str:
    """``text`` without the earlier mail a mail client puts below a reply (the quoted ``>``
    lines and the "On … wrote:" line before them, or everything from an "Original Message"
    line) and without a signature after ``-- ``."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.rstrip() == "--" or _ORIGINAL_MESSAGE.match(line.strip()):
            lines = lines[:index]
            break
    end = len(lines)
    while end and (lines[end - 1].startswith(">") or not lines[end - 1].strip()):
        end -= 1
    if end < len(lines):
        # The attribution may be wrapped over two lines ("On …, Anna <" / "anna@…> wrote:").
        for start in (end - 1, end - 2):
            if start >= 0 and _ATTRIBUTION.match(" ".join(lines[start:end]).strip()):
                end = start
                break
    return "\n".join(lines[:end]).strip()


def _first_id(value: object) -> str | None:
    found = _MESSAGE_ID.search(str(value or ""))
    return found.group(0) if found else None


def _body_text(body: EmailMessage) -> str:
    content = body.get_content()
    text = content if isinstance(content, str) else ""
    if body.get_content_type() == "text/html":
        text = html_to_text(text)
    return without_quoted_reply(text.replace("\r\n", "\n"))


def _attachments(message: EmailMessage, body: Message | None) -> list[MailAttachment]:
    found: list[MailAttachment] = []
    _collect(message, body, found)
    return found


def _collect(part: Message, body: Message | None, found: list[MailAttachment]) -> None:
    content_type = part.get_content_type()
    if content_type == "message/rfc822":
        inner = part.get_payload(0) if part.is_multipart() else None
        forwarded = inner.as_bytes() if isinstance(inner, Message) else b""
        found.append(MailAttachment(_filename(part, len(found), ".eml"), content_type, forwarded))
        return
    if part.is_multipart():
        for child in part.get_payload():
            if isinstance(child, Message):
                _collect(child, body, found)
        return
    if part is body or _is_alternative_body(part):
        return
    data = part.get_payload(decode=True)
    if isinstance(data, bytes):
        extension = mimetypes.guess_extension(content_type) or ".bin"
        found.append(MailAttachment(_filename(part, len(found), extension), content_type, data))


def _is_alternative_body(part: Message) -> bool:
    """A text part that is another rendering of the body (the HTML of a plain-text mail),
    not a file the sender attached."""
    return (
        part.get_content_type() in {"text/plain", "text/html"}
        and part.get_filename() is None
        and part.get_content_disposition() != "attachment"
    )


def _filename(part: Message, index: int, extension: str) -> str:
    name = part.get_filename()
    if name:
        return name.replace("/", "_").replace("\\", "_").strip() or f"attachment-{index + 1}"
    return f"attachment-{index + 1}{extension}"

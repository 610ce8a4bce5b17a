"""Sending a mail through the account's SMTP submission server (aiosmtplib)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from email.message import EmailMessage

import aiosmtplib

from kinbot_plugins.channels.email_channel.errors import MailTransportError, Security


@dataclass(frozen=True)
class SmtpAccount:
    """Where and how to send mail. Without a username, no login (a server on this machine)."""

    host: str
    port: int
    security: Security
    username: str = ""
    password: str = ""
    timeout_seconds: float = 30.0


async def send_mail(
    account: SmtpAccount, message: EmailMessage, ssl_context: ssl.SSLContext | None = None
) -> None:
    """Hand ``message`` to the server (envelope sender and recipients from its headers).

    Raises :class:`MailTransportError`; ``permanent`` when the server refused the mail itself
    (a 5xx answer), so that sending it again would not help.
    """
    sender = str(message["From"].addresses[0].addr_spec) if message["From"] else ""
    try:
        await aiosmtplib.send(
            message,
            hostname=account.host,
            port=account.port,
            username=account.username or None,
            password=account.password or None,
            use_tls=account.security == "tls",
            start_tls=account.security == "starttls",
            tls_context=ssl_context or ssl.create_default_context(),
            timeout=account.timeout_seconds,
            local_hostname=sender.rpartition("@")[2] or None,
        )
    except aiosmtplib.SMTPAuthenticationError as error:
        raise MailTransportError("login", error.message) from error
    except aiosmtplib.SMTPRecipientsRefused as error:
        words = "; ".join(refused.message for refused in error.recipients)
        permanent = all(refused.code >= 500 for refused in error.recipients)
        raise MailTransportError("rejected", words, permanent=permanent) from error
    except aiosmtplib.SMTPResponseException as error:
        raise MailTransportError("rejected", error.message, permanent=error.code >= 500) from error
    except (aiosmtplib.SMTPException, OSError) as error:
        raise MailTransportError("connect", str(error) or type(error).__name__) from error

"""An SMTP server on 127.0.0.1 that keeps what it receives (test support).

aiosmtpd speaking real SMTP (EHLO, optional STARTTLS or implicit TLS, AUTH PLAIN/LOGIN, MAIL,
RCPT, DATA) in the test's event loop; each accepted message is parsed with the standard
``email`` package and kept in order. Nothing is relayed anywhere.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import ssl
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session


@dataclass
class ReceivedMail:
    """One message the sink accepted: its envelope and the parsed message."""

    mail_from: str
    recipients: list[str]
    message: EmailMessage
    authenticated_as: str | None


@dataclass
class SmtpSink:
    """A running sink: its port and what it received (in order)."""

    port: int
    username: str | None
    password: str | None
    received: list[ReceivedMail] = field(default_factory=list)
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)
    host: str = "127.0.0.1"

    async def wait_for(self, count: int) -> list[ReceivedMail]:
        """The first ``count`` messages, once that many have arrived (30 s at most)."""
        async with asyncio.timeout(30), self._arrived:
            await self._arrived.wait_for(lambda: len(self.received) >= count)
        return self.received[:count]

    async def _keep(self, mail: ReceivedMail) -> None:
        async with self._arrived:
            self.received.append(mail)
            self._arrived.notify_all()

    # aiosmtpd handler and authenticator (called by the SMTP protocol).

    async def handle_DATA(self, _server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        message = email.message_from_bytes(content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        data = session.auth_data
        login = data.login.decode() if isinstance(data, LoginPassword) else None
        await self._keep(
            ReceivedMail(envelope.mail_from or "", list(envelope.rcpt_tos), message, login)
        )
        return "250 OK"

    def authenticate(
        self, _server: SMTP, _session: Session, _envelope: Envelope, _mechanism: str, data: Any
    ) -> AuthResult:
        good = (
            isinstance(data, LoginPassword)
            and data.login.decode() == self.username
            and data.password.decode() == self.password
        )
        return AuthResult(success=good, handled=False, auth_data=data if good else None)


@asynccontextmanager
async def smtp_sink(
    *,
    username: str | None = None,
    password: str | None = None,
    starttls: ssl.SSLContext | None = None,
    implicit_tls: ssl.SSLContext | None = None,
) -> AsyncIterator[SmtpSink]:
    """Serve SMTP on a free loopback port until the block ends.

    With ``username``, a client must log in (AUTH) before sending; ``starttls`` offers (and
    then requires) STARTTLS with that server context; ``implicit_tls`` speaks TLS from the first
    byte (submissions port style).
    """
    loop = asyncio.get_running_loop()
    sink = SmtpSink(0, username, password)

    def protocol() -> SMTP:
        with warnings.catch_warnings():
            # AUTH without TLS is what a loopback test of the "none" security setting needs.
            warnings.filterwarnings("ignore", "Requiring AUTH while not requiring TLS")
            return SMTP(
                sink,
                hostname="localhost",
                tls_context=starttls,
                require_starttls=starttls is not None,
                auth_required=username is not None,
                auth_require_tls=False,
                authenticator=sink.authenticate if username is not None else None,
                loop=loop,
            )

    server = await loop.create_server(protocol, "127.0.0.1", 0, ssl=implicit_tls)
    sink.port = int(server.sockets[0].getsockname()[1])
    try:
        yield sink
    finally:
        server.close()
        await server.wait_closed()

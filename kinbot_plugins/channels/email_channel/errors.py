"""What the e-mail channel's transports share: the connection security choices and the error
they raise."""

from __future__ import annotations

from typing import Literal

#: ``tls``: TLS from the first byte (IMAP 993, SMTP 465); ``starttls``: plain, then upgraded
#: before the login (IMAP 143, SMTP 587); ``none``: no encryption (a server on this machine).
Security = Literal["tls", "starttls", "none"]


class MailTransportError(Exception):
    """A mail server could not be reached, refused the login or answered with an error.

    ``reason`` is a short stable word for the channel's state (``connect``, ``login``,
    ``folder``, ``protocol``, ``rejected``); ``detail`` is the server's or the system's own
    words; ``permanent`` says that trying again will not help (a recipient refused, say).
    """

    def __init__(self, reason: str, detail: str, *, permanent: bool = False) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.permanent = permanent

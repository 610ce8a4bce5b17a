"""The e-mail channel: Kins read a mailbox (IMAP) and answer by mail (SMTP).

Registers the ``email`` channel type (``register_channels``). A family member writes to the
Kins' address; the sender's address is the identity a pairing links to their account (an
unknown address is sent a pairing code by mail); the Kin's reply comes back in the thread of
their mail, as plain text with an HTML alternative, files attached. Set-up: docs/channels.md.

The mail libraries (IMAP, SMTP, HTML parsing, Markdown) are imported when a connection opens
or a reply is formatted, not with the plugin: every start would pay for them otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from kinbot_core import hookimpl
from kinbot_core.channels import Inbox
from kinbot_plugins.channels.email_channel.settings import EmailSettings

if TYPE_CHECKING:
    from kinbot_plugins.channels.email_channel.connection import EmailConnection

#: A reply is one mail: the runtime splits nothing shorter than this.
MAX_MESSAGE_LENGTH = 100_000


class EmailChannel:
    """The ``email`` channel type (``kinbot_core.channels.ChannelType``)."""

    name = "email"
    label = "E-mail"
    settings_model: type[BaseModel] = EmailSettings
    max_message_length = MAX_MESSAGE_LENGTH

    def format_markdown(self, markdown: str) -> str:
        """The mail's plain-text part (the HTML part is made from the Markdown too)."""
        from kinbot_plugins.channels.email_channel.mail_text import markdown_to_text

        return markdown_to_text(markdown)

    def open(self, settings: BaseModel, inbox: Inbox) -> EmailConnection:
        from kinbot_plugins.channels.email_channel.connection import EmailConnection

        if not isinstance(settings, EmailSettings):
            raise TypeError("an e-mail connection needs EmailSettings")
        return EmailConnection(settings, inbox)


@hookimpl
def register_channels(register: Callable[[Any], None]) -> None:
    register(EmailChannel())

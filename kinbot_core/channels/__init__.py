"""Messaging channels: the interface a channel plugin implements (``types``, ``errors``) and,
in the sibling modules, the runtime that runs configured connections, pairs unknown senders
and delivers Kins' replies."""

from kinbot_core.channels.errors import (
    ChannelAuthFailed,
    ChannelConfigError,
    ChannelError,
    ChannelRateLimited,
    ChannelRecipientBlocked,
    ChannelRejected,
    ChannelUnavailable,
)
from kinbot_core.channels.types import (
    ChannelConnection,
    ChannelType,
    ChatKind,
    DeliverOutcome,
    Inbox,
    IncomingMedia,
    IncomingMessage,
    OutgoingMedia,
    Sender,
)

__all__ = [
    "ChannelAuthFailed",
    "ChannelConfigError",
    "ChannelConnection",
    "ChannelError",
    "ChannelRateLimited",
    "ChannelRecipientBlocked",
    "ChannelRejected",
    "ChannelType",
    "ChannelUnavailable",
    "ChatKind",
    "DeliverOutcome",
    "Inbox",
    "IncomingMedia",
    "IncomingMessage",
    "OutgoingMedia",
    "Sender",
]

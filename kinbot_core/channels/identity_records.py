"""What a linked platform account and a pending pairing are, as the inbox, the runtime and
the API see them, and the errors the identity service raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinbot_core.channels.connections import ChannelsError


class PairingCodeInvalid(ChannelsError):
    """Unknown, used or expired (not told apart, so a guess learns nothing)."""

    code = "pairing_code_invalid"


class PairingAttemptsExceeded(ChannelsError):
    code = "pairing_attempts_exceeded"
    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PairingNotFound(ChannelsError):
    code = "pairing_not_found"
    status = 404


class IdentityNotFound(ChannelsError):
    code = "channel_identity_not_found"
    status = 404


class IdentityTaken(ChannelsError):
    """The platform account is already linked to someone else."""

    code = "channel_identity_taken"
    status = 409


class LinkTargetInvalid(ChannelsError):
    """No such user, Kin or contact, or a Kin the connection does not talk to."""

    code = "channel_link_target_invalid"


@dataclass(frozen=True)
class Linked:
    """Who a platform account is in KinBot: a user, or a contact of one Kin."""

    identity_id: str
    name: str
    user_id: str | None
    contact_id: str | None
    #: The Kin of the contact (a contact belongs to one Kin).
    contact_kin_id: str | None


@dataclass(frozen=True)
class IdentityView:
    """A linked platform account, as My account and Settings list it."""

    id: str
    connection_id: str
    connection_label: str
    channel_type: str
    display_name: str
    user_id: str | None
    user_name: str | None
    contact_id: str | None
    contact_name: str | None
    kin_id: str | None
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PairingView:
    """A sender waiting to be linked (the code itself is never shown again)."""

    id: str
    connection_id: str
    connection_label: str
    channel_type: str
    display_name: str
    created_at: float
    expires_at: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LinkResult:
    """A pairing turned into a linked identity, and where to tell the person (their chat,
    in their language when known)."""

    identity: IdentityView
    chat_id: str
    language: str | None


@dataclass(frozen=True)
class NewPairing:
    """A code to send to an unknown sender, in their language when known."""

    code: str
    language: str | None

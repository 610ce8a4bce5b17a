"""The settings of the messaging channels (Telegram, e-mail...) that carry Kins' messages
outside the browser (part of ``kinbot_core.config.Settings``)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ChannelSettings(BaseModel):
    """Messaging channels."""

    # -- messaging channels ------------------------------------------------------------------
    channel_pairing_code_ttl_seconds: float = Field(
        3600.0,
        ge=60,
        description=(
            "How long a pairing code sent to an unknown sender of a messaging channel can be "
            "entered in My account."
        ),
    )
    channel_pairing_quiet_seconds: float = Field(
        600.0,
        ge=0,
        description=(
            "After sending a pairing code, how long further messages of the same unknown "
            "sender get no new code (so a chatty sender or another bot cannot make KinBot "
            "talk back at every message)."
        ),
    )
    channel_pairing_attempts: int = Field(
        5,
        ge=1,
        description=(
            "Wrong pairing codes a person may enter per pairing window before being asked to wait."
        ),
    )
    channel_pairing_window_seconds: float = Field(
        900.0, gt=0, description="The window of `channel_pairing_attempts`."
    )
    channel_delivery_max_attempts: int = Field(
        8,
        ge=1,
        description=(
            "Attempts at delivering a Kin's reply to a messaging channel (rate limits, network "
            "errors) before it is given up and marked failed."
        ),
    )
    channel_retry_base_seconds: float = Field(
        2.0,
        gt=0,
        description=(
            "First wait before retrying a channel's failed delivery or connection; it doubles "
            "at each failure, up to `channel_retry_max_seconds` (a platform's own retry-after "
            "wins when longer)."
        ),
    )
    channel_retry_max_seconds: float = Field(
        300.0, gt=0, description="Longest wait between two retries of a channel."
    )
    channel_failing_after: int = Field(
        3,
        ge=1,
        description=(
            "Consecutive failures (to connect or to deliver) after which a channel connection "
            "shows as failing in Settings and on `/api/health`."
        ),
    )

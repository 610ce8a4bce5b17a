"""The settings of Kins at work: their turns, tasks and crons, messages between Kins, usage
and notifications (part of ``kinbot_core.config.Settings``)."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode


class RuntimeSettings(BaseModel):
    """The Kin runtime, tasks and crons, inter-Kin messaging, usage and notifications."""

    # -- Kin runtime -----------------------------------------------------------------------
    turn_max_steps: int = Field(
        25, ge=1, description="LLM calls one turn may make (tool-call rounds) before it stops."
    )
    llm_timeout_seconds: float = Field(120.0, gt=0, description="Time limit of one LLM request.")
    llm_max_retries: int = Field(
        3, ge=0, description="Retries of a rate-limited, timed-out or unavailable provider call."
    )
    tool_approval_timeout_seconds: float = Field(
        86400.0,
        gt=0,
        description="How long a tool call waits for a person's approval before it expires "
        "(the Kin is told it did not run).",
    )

    # -- tasks and crons -------------------------------------------------------------------
    task_max_depth: int = Field(
        3,
        ge=1,
        description="Levels of sub-Kins: a Kin's sub-Kin is level 1, its own sub-Kin level 2…",
    )
    task_max_request_input: int = Field(
        3, ge=0, description="`request_input` calls one sub-Kin may make."
    )
    task_max_concurrent: int = Field(
        10,
        ge=1,
        description="Sub-Kin tasks running at once, all Kins together; more wait as pending.",
    )
    sub_kin_retention_days: float = Field(
        30.0,
        ge=0,
        description="Days an ended sub-Kin (one per task and per cron run) keeps its session "
        "before it is deleted; its result stays in the parent's session and the task list. "
        "0 keeps them all.",
    )
    cron_max_active: int = Field(
        50,
        ge=0,
        description="Active crons on the platform; activating or creating one more is refused.",
    )
    cron_max_concurrent_runs: int = Field(
        5,
        ge=1,
        description=(
            "Cron executions running at once, all crons together; a cron firing beyond it "
            "is skipped and the skip recorded on the cron."
        ),
    )
    cron_timezone: str = Field(
        "",
        description=(
            "Time zone of cron schedules (IANA name, e.g. `Europe/Paris`) unless a cron sets "
            "its own (empty: the machine's local zone)."
        ),
    )
    cron_missed_run_policy: Literal["run_once", "skip"] = Field(
        "run_once",
        description=(
            "A cron whose scheduled time passed while KinBot was down: `run_once` runs it "
            "once at start-up (however many times were missed), `skip` records the skip."
        ),
    )

    # -- inter-Kin messaging ---------------------------------------------------------------
    inter_kin_rate_limit: int = Field(
        20, ge=1, description="Messages a Kin may send to one other Kin per rate window."
    )
    inter_kin_rate_window_seconds: float = Field(
        60.0, gt=0, description="The window of `inter_kin_rate_limit`."
    )
    inter_kin_max_chain_depth: int = Field(
        5, ge=1, description="Exchanges a chain of inter-Kin messages may go through."
    )

    # -- usage ---------------------------------------------------------------------------------
    usage_currency: str = Field(
        "USD",
        pattern=r"^[A-Z]{3}$",
        description="The currency of the price table and the budgets (an ISO 4217 code): "
        "amounts are shown in it, in each person's number format. KinBot does not convert: "
        "enter prices in this currency.",
    )

    # -- notifications ---------------------------------------------------------------------
    notify_rate_limit: int = Field(
        10,
        ge=1,
        description="Notifications one Kin (its sub-Kins and crons included) may send per "
        "notification rate window, all people together; more are refused and the Kin is told.",
    )
    notify_rate_window_seconds: float = Field(
        3600.0, gt=0, description="The window of `notify_rate_limit`."
    )
    push_allow_insecure_endpoints: bool = Field(
        False,
        description="Accept Web Push subscriptions whose push service is reached over plain "
        "`http://` (browsers only give `https://` ones: this is for a push service of your "
        "own on a local network, or a test one). Off: `https://` only.",
    )
    push_allowed_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Private, loopback or link-local networks a push service may be reached at "
        "anyway, comma-separated addresses or CIDR ranges, as `fetch_allowed_networks`. "
        "Empty: push services on public addresses only (a subscription cannot make KinBot "
        "post to a machine of the home network).",
    )
    push_vapid_subject: str = Field(
        "",
        description="The contact push services see in KinBot's VAPID signature (`mailto:` "
        "address or `https://` URL). Empty: `public_url` when set, else `mailto:` the first "
        "administrator's e-mail address.",
    )
    push_ttl_seconds: int = Field(
        86_400,
        ge=0,
        le=2_419_200,
        description="How long a push service keeps a notification for a device that is off "
        "(0: deliver now or never).",
    )
    push_timeout_seconds: float = Field(
        10.0, gt=0, description="Time limit of one request to a push service."
    )

    @field_validator("push_allowed_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or CIDR network") from None
        return value

    @field_validator("push_vapid_subject")
    @classmethod
    def _vapid_subject(cls, value: str) -> str:
        subject = value.strip()
        if subject and not subject.startswith(("mailto:", "https://")):
            raise ValueError("must be a mailto: address or an https:// URL")
        return subject

    @field_validator("cron_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        name = value.strip()
        if name:
            try:
                ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown time zone {value!r} (an IANA name, e.g. UTC)") from None
        return name

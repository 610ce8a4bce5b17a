"""Whom a provider call is for, and what the provider reported about it.

``usage_for`` is a context variable: the code that starts work (a turn, a memory extraction,
a compacting) sets it with :func:`attributed`, and every provider call made below it, in the
same task or in tasks it creates, is recorded against that Kin and person.

Provider plugins call :func:`report_usage` inside ``embed``, ``generate`` or ``search`` to
pass up what their SDK reported (tokens, the model used); the providers service reads it
through :func:`collecting` when the call returns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

#: What may start work that costs: a person in the web app, a person or contact through a
#: channel, a webhook, another Kin, a cron, a sub-Kin task, the Kin's memory extraction, the
#: compacting of its session, the indexing of its history for search, the platform itself,
#: or something unattributed.
ORIGINS = (
    "user",
    "channel",
    "webhook",
    "kin",
    "cron",
    "task",
    "extraction",
    "compacting",
    "indexing",
    "system",
    "other",
)


@dataclass(frozen=True)
class UsageFor:
    """Whom a provider call is for: the Kin that pays (for a sub-Kin, the Kin it belongs
    to), the person whose message started the work (if a person did) and the origin."""

    kin_id: str | None
    user_id: str | None
    origin: str


UNATTRIBUTED = UsageFor(kin_id=None, user_id=None, origin="other")

usage_for: ContextVar[UsageFor] = ContextVar("kinbot_usage_for", default=UNATTRIBUTED)


@contextmanager
def attributed(
    kin_id: str | None, *, origin: str, user_id: str | None = None
) -> Iterator[UsageFor]:
    """Attribute the provider calls made inside the block (and in tasks created there).

    ``kin_id`` is the Kin that pays: for work on a sub-Kin's session, the Kin it belongs to
    (``platform.kins.owners.of``), never the sub-Kin's hidden row."""
    if origin not in ORIGINS:
        raise ValueError(f"unknown usage origin {origin!r}")
    who = UsageFor(kin_id=kin_id, user_id=user_id, origin=origin)
    token = usage_for.set(who)
    try:
        yield who
    finally:
        usage_for.reset(token)


class _Trigger(Protocol):
    @property
    def source(self) -> str: ...
    @property
    def sender_id(self) -> str | None: ...
    @property
    def meta(self) -> Mapping[str, Any] | None: ...


class _Task(Protocol):
    @property
    def cron_id(self) -> str | None: ...


def for_turn(owner_id: str, trigger: _Trigger, task: _Task | None) -> UsageFor:
    """Whom a turn works for: the Kin that owns the session (a sub-Kin's: its task's Kin)
    and the person whose message started it; a sub-Kin's turn is its cron's or its task's."""
    if task is not None:
        return UsageFor(owner_id, None, "cron" if task.cron_id else "task")
    if trigger.source == "user":
        from_channel = bool(trigger.meta and trigger.meta.get("origin"))
        return UsageFor(owner_id, trigger.sender_id, "channel" if from_channel else "user")
    return UsageFor(owner_id, None, trigger.source if trigger.source in ORIGINS else "other")


@dataclass(frozen=True)
class ReportedUsage:
    """What a provider plugin reported about one call."""

    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    units: int | None = None


_collector: ContextVar[list[ReportedUsage] | None] = ContextVar(
    "kinbot_usage_collector", default=None
)


def report_usage(
    *,
    model: str | None = None,
    input_tokens: int = 0,
    output_tokens: int = 0,
    units: int | None = None,
) -> None:
    """Called by a provider plugin inside an embedding, image or search call: the tokens its
    SDK reported, the model it used, the units made (images). Outside a call the providers
    service records, it does nothing."""
    reports = _collector.get()
    if reports is not None:
        reports.append(ReportedUsage(model, max(0, input_tokens), max(0, output_tokens), units))


@contextmanager
def collecting() -> Iterator[list[ReportedUsage]]:
    """Collect what plugins report with :func:`report_usage` inside the block."""
    reports: list[ReportedUsage] = []
    token = _collector.set(reports)
    try:
        yield reports
    finally:
        _collector.reset(token)

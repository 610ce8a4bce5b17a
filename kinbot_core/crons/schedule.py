"""Cron expressions and time zones: validation, the times they give, and an aiocron timer
that takes "now" from the platform's clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiocron  # type: ignore[import-untyped]
import tzlocal
from cronsim import CronSim, CronSimError

from kinbot_core.crons.clock import Clock


class ScheduleError(ValueError):
    """A cron expression or time zone that cannot be used; the message says why."""


def check_expression(expression: str) -> str:
    """The expression with its fields separated by single spaces, or ``ScheduleError``.

    Five fields (minute hour day-of-month month day-of-week, ``0 9 * * *``), or six with a
    leading seconds field (``*/30 * * * * *``), as cronsim reads them.
    """
    fields = expression.split()
    if len(fields) not in (5, 6):
        raise ScheduleError(
            f"The schedule {expression!r} is not a cron expression: it needs 5 fields "
            "(minute hour day-of-month month day-of-week, e.g. '0 9 * * *'), or 6 with "
            f"seconds first; it has {len(fields)}."
        )
    normalised = " ".join(fields)
    try:
        CronSim(normalised, datetime.now(ZoneInfo("UTC")))
    except (CronSimError, ValueError) as exc:
        raise ScheduleError(f"The schedule {expression!r} is not valid: {exc}.") from None
    return normalised


def check_zone(name: str) -> str:
    """``name`` if it is a time zone the system knows (IANA, ``Europe/Paris``), or
    ``ScheduleError``."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(
            f"Unknown time zone {name!r}: use an IANA name such as 'Europe/Paris' or 'UTC'."
        ) from None
    return name


def resolve_zone(name: str | None, default: str) -> tzinfo:
    """The zone of a cron: its own ``name``, else ``default`` (the platform setting), else
    the machine's local zone."""
    chosen = name or default
    if chosen:
        return ZoneInfo(chosen)
    zone: tzinfo = tzlocal.get_localzone()
    return zone


def local_zone_name() -> str:
    """The machine's local zone, by name."""
    return str(tzlocal.get_localzone_name() or "UTC")


def previous_time(expression: str, tz: tzinfo, at: float) -> float:
    """The latest scheduled time at or before ``at`` (a timestamp)."""
    return next(CronSim(expression, datetime.fromtimestamp(at, tz), reverse=True)).timestamp()


def next_time(expression: str, tz: tzinfo, after: float) -> float:
    """The first scheduled time strictly after ``after`` (a timestamp)."""
    return next(CronSim(expression, datetime.fromtimestamp(after, tz))).timestamp()


class ClockedCron(aiocron.Cron):  # type: ignore[misc]
    """An aiocron timer whose "now" comes from a ``Clock`` rather than the system time.

    aiocron computes the scheduled times from ``initialize()``'s "now" and waits the
    difference on the event loop; the callback receives the scheduled time (a timestamp) it
    was armed for. Re-arm (``start`` again) after the clock was set.
    """

    cronsim: Any
    handle: Any

    def __init__(
        self,
        spec: str,
        fire: Callable[[float], object],
        *,
        clock: Clock,
        tz: tzinfo,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        super().__init__(spec, func=fire, start=False, loop=loop, tz=tz)
        self._clock = clock
        self._upcoming: float | None = None

    def initialize(self) -> None:
        if self.cronsim is None:
            self.datetime = self._clock.now(self.tz)
            self.time = self.datetime.timestamp()
            self.loop_time = self.loop.time()
            self.cronsim = CronSim(self.spec, self.datetime)

    def get_next(self) -> float:
        upcoming: float = next(self.cronsim).timestamp()
        self._upcoming = upcoming
        loop_at: float = self.loop_time + (upcoming - self.time)
        return loop_at

    def call_next(self) -> None:
        due = self._upcoming
        if self.handle is not None:
            self.handle.cancel()
        self.handle = self.loop.call_at(self.get_next(), self.call_next)
        self.call_func(due)

    @property
    def upcoming(self) -> float | None:
        """The scheduled time the timer waits for, once started."""
        return self._upcoming

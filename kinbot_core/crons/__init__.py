"""Scheduled crons (specification section 8): a sub-Kin task on a cron schedule."""

from kinbot_core.crons.clock import Clock
from kinbot_core.crons.schedule import ScheduleError
from kinbot_core.crons.service import CronService
from kinbot_core.crons.views import (
    Author,
    CronError,
    CronForbidden,
    CronLimitReached,
    CronNotFound,
    CronView,
)

__all__ = [
    "Author",
    "Clock",
    "CronError",
    "CronForbidden",
    "CronLimitReached",
    "CronNotFound",
    "CronService",
    "CronView",
    "ScheduleError",
]

"""The platform's notion of "now" for scheduling: real time, optionally shifted.

The cron scheduler reads the time only from a ``Clock``. Setting the clock (``set``) shifts it
from real time by a fixed offset; time keeps running from there, and listeners (the
scheduler) are told so that they re-arm their timers from the new "now".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, tzinfo


class Clock:
    """Wall-clock time plus an adjustable offset (zero by default)."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._listeners: list[Callable[[], None]] = []

    def time(self) -> float:
        """Now, as a POSIX timestamp."""
        return time.time() + self._offset

    def now(self, tz: tzinfo) -> datetime:
        """Now, as an aware datetime in ``tz``."""
        return datetime.fromtimestamp(self.time(), tz)

    def set(self, when: datetime | float) -> None:
        """Make "now" be ``when`` (an aware datetime or a timestamp), then tell listeners."""
        target = when.timestamp() if isinstance(when, datetime) else float(when)
        self._offset = target - time.time()
        for listener in list(self._listeners):
            listener()

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` whenever the clock is set; returns the function that stops it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

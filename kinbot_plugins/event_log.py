"""Writes every platform event to the log, one line each (identifiers only, no content)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from kinbot_core import Event, hookimpl

logger = logging.getLogger("kinbot.events")


def log_event(event: Event) -> None:
    """Log ``event`` at INFO as ``<type> <payload as JSON>``."""
    if not logger.isEnabledFor(logging.INFO):  # every event passes here: skip the JSON
        return
    logger.info("%s %s", event.type, json.dumps(event.payload(), default=str, sort_keys=True))


@hookimpl
def register_events(subscribe: Callable[..., Any]) -> None:
    subscribe("*", log_event)

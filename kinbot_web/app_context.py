"""Reaching the platform from request handlers."""

from __future__ import annotations

from typing import cast

from quart import current_app

from kinbot_core.platform import Platform

EXTENSION_KEY = "kinbot"


def current_platform() -> Platform:
    """The platform of the app handling the current request."""
    return cast(Platform, current_app.extensions[EXTENSION_KEY])

"""Markers shared by hook specifications and implementations."""

from collections.abc import Callable
from typing import Any, TypeVar

import pluggy

#: The pluggy project name; also the entry-point group plugins are discovered in.
PROJECT_NAME = "kinbot"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

_F = TypeVar("_F", bound=Callable[..., Any])
_FAIL_CLOSED_ATTR = "kinbot_fail_closed"


def fail_closed(spec: _F) -> _F:
    """Mark a hook specification as a policy hook.

    A policy hook guards an action. If any implementation raises (``HookVeto`` or any other
    exception) or times out, the action does not happen and the core reports why.
    Hooks without this mark are observers: a failing implementation is logged and published
    as a ``plugin.error`` event, and the caller goes on.
    """
    setattr(spec, _FAIL_CLOSED_ATTR, True)
    return spec


def is_fail_closed(spec: Callable[..., Any]) -> bool:
    """Tell whether a hook specification was marked with :func:`fail_closed`."""
    return bool(getattr(spec, _FAIL_CLOSED_ATTR, False))

"""The KinBot plugin contract: pluggy hook specifications and the types they exchange.

Nothing here runs; it only says what a plugin may implement. Plugin authors import the
``hookimpl`` marker (and ``HookVeto``, ``NeedsApproval``) from ``kinbot_core``.
"""

from hookspecs import lifecycle, registration
from hookspecs.markers import PROJECT_NAME, fail_closed, hookimpl, hookspec, is_fail_closed
from hookspecs.types import HookVeto, NeedsApproval

#: Every module of hook specifications, in the order they are added to a plugin manager.
SPEC_MODULES = (lifecycle, registration)

__all__ = [
    "PROJECT_NAME",
    "SPEC_MODULES",
    "HookVeto",
    "NeedsApproval",
    "fail_closed",
    "hookimpl",
    "hookspec",
    "is_fail_closed",
    "lifecycle",
    "registration",
]

"""The KinBot engine: plugins, event bus, configuration, database and (later) the Kin runtime.

Plugin authors import from here: ``hookimpl`` to mark hook implementations, ``HookVeto`` to
refuse an action from a policy hook (``NeedsApproval`` to ask a person first), ``PluginRoute``
to contribute HTTP routes and the event base class ``Event``.
"""

from importlib.metadata import PackageNotFoundError, version

from hookspecs import HookVeto, NeedsApproval, hookimpl
from hookspecs.types import (
    ChatContext,
    CompactingContext,
    CronTrigger,
    KinRef,
    Outcome,
    TaskSpawn,
    ToolCall,
)
from kinbot_core.events import Event
from kinbot_core.plugins import PluginRoute

try:
    __version__ = version("kinbot-platform")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "ChatContext",
    "CompactingContext",
    "CronTrigger",
    "Event",
    "HookVeto",
    "KinRef",
    "NeedsApproval",
    "Outcome",
    "PluginRoute",
    "TaskSpawn",
    "ToolCall",
    "__version__",
    "hookimpl",
]

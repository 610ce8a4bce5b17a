"""The plugin system: discovery, enable/disable, the async hook caller and the registries."""

from kinbot_core.plugins.caller import HookCaller
from kinbot_core.plugins.manager import PluginInfo, PluginManager, PluginRequired, UnknownPlugin
from kinbot_core.plugins.registries import Registered, Registries, Registry
from kinbot_core.plugins.routes import PluginRoute

__all__ = [
    "HookCaller",
    "PluginInfo",
    "PluginManager",
    "PluginRequired",
    "PluginRoute",
    "Registered",
    "Registries",
    "Registry",
    "UnknownPlugin",
]

"""The event bus and the typed catalogue of platform events."""

from kinbot_core.events.bus import EventBus, EventHandler, UnknownEventType, Unsubscribe
from kinbot_core.events.catalogue import CORE_EVENTS
from kinbot_core.events.event import Event

__all__ = ["CORE_EVENTS", "Event", "EventBus", "EventHandler", "UnknownEventType", "Unsubscribe"]

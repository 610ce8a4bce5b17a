"""An in-process event bus: ordered, non-blocking delivery with isolated handlers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from kinbot_core.awaitables import is_awaitable
from kinbot_core.events.event import Event

logger = logging.getLogger(__name__)

EventHandler = Callable[[Event], Awaitable[None] | None]
Unsubscribe = Callable[[], None]
#: Called when a handler fails: (owner of the subscription, the event, the exception).
HandlerErrorCallback = Callable[[str, Event, BaseException], None]


class UnknownEventType(ValueError):
    """Raised when emitting or declaring an event whose type the catalogue does not hold."""


#: Events one subscriber may have waiting; beyond that its new events are dropped (logged).
MAX_PENDING = 10_000


@dataclass(eq=False)
class _Subscription:
    pattern: str
    handler: EventHandler
    owner: str
    queue: asyncio.Queue[Event] = field(default_factory=lambda: asyncio.Queue(MAX_PENDING))
    worker: asyncio.Task[None] | None = None

    def matches(self, event_type: str) -> bool:
        if self.pattern == "*":
            return True
        if self.pattern.endswith(".*"):
            return event_type.startswith(self.pattern[:-1])
        return self.pattern == event_type


class EventBus:
    """Publish events to subscribers without ever blocking the publisher.

    Every subscription has its own queue and worker, so each subscriber receives events in
    the order they were emitted and a slow or failing subscriber delays nobody else. A handler
    that raises or runs longer than ``handler_timeout`` seconds is logged and reported through
    ``on_handler_error``; delivery goes on.
    """

    def __init__(
        self,
        *,
        handler_timeout: float = 10.0,
        on_handler_error: HandlerErrorCallback | None = None,
    ) -> None:
        self._types: dict[str, tuple[type[Event], str]] = {}
        self._subscriptions: list[_Subscription] = []
        self._handler_timeout = handler_timeout
        self._on_handler_error = on_handler_error
        self._closed = False

    # -- catalogue ---------------------------------------------------------------------------

    def register_type(self, event_class: type[Event], *, owner: str = "core") -> None:
        """Add an event type to the catalogue.

        Declaring a known class again is harmless and leaves it with its first owner, so a
        plugin cannot take over (and later remove) the core's types.
        """
        if not (isinstance(event_class, type) and issubclass(event_class, Event)):
            raise UnknownEventType(f"{event_class!r} is not a subclass of Event")
        if not event_class.type or "." not in event_class.type:
            raise UnknownEventType(f"{event_class.__name__} needs a dotted 'type'")
        known = self._types.get(event_class.type)
        if known is not None:
            if known[0] is not event_class:
                raise UnknownEventType(
                    f"event type {event_class.type!r} is already declared by {known[1]}"
                )
            return
        self._types[event_class.type] = (event_class, owner)

    def unregister_types(self, owner: str) -> None:
        """Forget the event types a plugin declared (when it is disabled)."""
        if owner == "core":
            raise ValueError("the core's event types cannot be removed")
        self._types = {name: v for name, v in self._types.items() if v[1] != owner}

    def catalogue(self) -> dict[str, type[Event]]:
        """Every known event type, by name."""
        return {name: cls for name, (cls, _owner) in sorted(self._types.items())}

    # -- subscriptions -------------------------------------------------------------------------

    def on(
        self, pattern: str | type[Event], handler: EventHandler, *, owner: str = "core"
    ) -> Unsubscribe:
        """Call ``handler`` for every event matching ``pattern``; returns the unsubscriber.

        ``pattern`` is an event class, an exact type, a ``"prefix.*"`` wildcard or ``"*"``.
        """
        name = pattern.type if isinstance(pattern, type) else pattern
        subscription = _Subscription(name, handler, owner)
        self._subscriptions.append(subscription)

        def unsubscribe() -> None:
            self._remove(subscription)

        return unsubscribe

    def unsubscribe_owner(self, owner: str) -> None:
        """End every subscription an owner made."""
        for subscription in [s for s in self._subscriptions if s.owner == owner]:
            self._remove(subscription)

    def _remove(self, subscription: _Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)
        if subscription.worker is not None:
            subscription.worker.cancel()
        while not subscription.queue.empty():  # nobody will handle these: let flush() end
            subscription.queue.get_nowait()
            subscription.queue.task_done()

    # -- publishing ----------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Queue ``event`` for every matching subscriber and return at once.

        Must be called from code running on the event loop. Raises ``UnknownEventType`` for a
        type missing from the catalogue, so a typo cannot go unnoticed.
        """
        known = self._types.get(event.type)
        if known is None or not isinstance(event, known[0]):
            raise UnknownEventType(f"event type {event.type!r} is not in the catalogue")
        if self._closed:
            logger.debug("event bus closed: %s not delivered", event.type)
            return
        loop = asyncio.get_running_loop()
        for subscription in self._subscriptions:
            if not subscription.matches(event.type):
                continue
            try:
                subscription.queue.put_nowait(event)
            except asyncio.QueueFull:
                logger.warning(
                    "subscriber %s is too slow: %s dropped", subscription.owner, event.type
                )
                continue
            if subscription.worker is None or subscription.worker.done():
                subscription.worker = loop.create_task(
                    self._deliver(subscription), name=f"event-bus:{subscription.owner}"
                )

    async def flush(self) -> None:
        """Wait until every event emitted so far has been handled."""
        for subscription in list(self._subscriptions):
            if subscription.worker is not None and not subscription.worker.done():
                await subscription.queue.join()

    async def close(self, grace: float) -> None:
        """Deliver what is queued for at most ``grace`` seconds, then stop every worker.

        Events emitted afterwards are dropped.
        """
        try:
            await asyncio.wait_for(self.flush(), grace)
        except TimeoutError:
            logger.warning("event bus: undelivered events dropped at shutdown")
        self._closed = True
        workers = [s.worker for s in self._subscriptions if s.worker is not None]
        for subscription in list(self._subscriptions):
            self._remove(subscription)
        await asyncio.gather(*workers, return_exceptions=True)

    async def _deliver(self, subscription: _Subscription) -> None:
        while True:
            event = await subscription.queue.get()
            try:
                result = subscription.handler(event)
                if is_awaitable(result):
                    async with asyncio.timeout(self._handler_timeout):
                        await result
            except Exception as exc:
                self._handler_failed(subscription, event, exc)
            finally:
                subscription.queue.task_done()

    def _handler_failed(
        self, subscription: _Subscription, event: Event, exc: BaseException
    ) -> None:
        logger.error(
            "event handler of %s failed on %s: %s",
            subscription.owner,
            event.type,
            exc.__class__.__name__ if isinstance(exc, TimeoutError) else exc,
            exc_info=not isinstance(exc, TimeoutError),
        )
        if self._on_handler_error is not None:
            self._on_handler_error(subscription.owner, event, exc)

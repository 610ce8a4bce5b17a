"""An in-process event bus: ordered, non-blocking delivery with isolated handlers."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
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


@dataclass(frozen=True)
class _Started:
    """What a handler called directly gave back to be awaited: its worker awaits it."""

    result: Awaitable[None]
    event: Event


@dataclass(eq=False)
class _Subscription:
    pattern: str
    handler: EventHandler
    owner: str
    queue: asyncio.Queue[Event | _Started] = field(
        default_factory=lambda: asyncio.Queue(MAX_PENDING)
    )
    worker: asyncio.Task[None] | None = None
    #: Called directly, events in hand, rather than by its worker: a plain function (most
    #: handlers count, log or schedule something), until one of its calls gives an awaitable.
    direct: bool = False
    removed: bool = False

    def matches(self, event_type: str) -> bool:
        if self.pattern == "*":
            return True
        if self.pattern.endswith(".*"):
            return event_type.startswith(self.pattern[:-1])
        return self.pattern == event_type


class EventBus:
    """Publish events to subscribers without ever blocking the publisher.

    Each subscriber receives events in the order they were emitted, after ``emit`` has
    returned, and a slow or failing subscriber delays nobody else: a coroutine function's
    subscription has its own queue and worker task; a plain function is called directly by
    one callback of the event loop for all the events emitted meanwhile (a task woken per
    event and subscriber cost more than what such handlers do). A handler that raises or
    runs longer than ``handler_timeout`` seconds is logged and reported through
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
        #: The subscriptions each event type matches, in order (made anew when they change).
        self._matching: dict[str, list[_Subscription]] = {}
        self._handler_timeout = handler_timeout
        self._on_handler_error = on_handler_error
        self._closed = False
        #: Events for the subscriptions called directly, waiting for ``_call_direct``.
        self._direct: deque[tuple[_Subscription, Event]] = deque()
        self._direct_scheduled = False

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
        direct = not inspect.iscoroutinefunction(handler)
        subscription = _Subscription(name, handler, owner, direct=direct)
        self._subscriptions.append(subscription)
        self._matching.clear()

        def unsubscribe() -> None:
            self._remove(subscription)

        return unsubscribe

    def unsubscribe_owner(self, owner: str) -> None:
        """End every subscription an owner made."""
        for subscription in [s for s in self._subscriptions if s.owner == owner]:
            self._remove(subscription)

    def _remove(self, subscription: _Subscription) -> None:
        subscription.removed = True
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)
            self._matching.clear()
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
        matching = self._matching.get(event.type)
        if matching is None:
            matching = [s for s in self._subscriptions if s.matches(event.type)]
            self._matching[event.type] = matching
        for subscription in matching:
            if subscription.direct:
                self._direct.append((subscription, event))
                if not self._direct_scheduled:
                    self._direct_scheduled = True
                    loop.call_soon(self._call_direct)
            else:
                self._enqueue(subscription, event)

    async def flush(self) -> None:
        """Wait until every event emitted so far has been handled."""
        while self._direct:
            self._call_direct()
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

    def _call_direct(self) -> None:
        """Call the direct subscriptions' handlers with the events emitted until now (what
        a handler emits meanwhile waits for the next callback)."""
        self._direct_scheduled = False
        for _ in range(len(self._direct)):
            subscription, event = self._direct.popleft()
            if subscription.removed:
                continue
            if not subscription.direct:  # it gave an awaitable: its worker keeps the order
                self._enqueue(subscription, event)
                continue
            try:
                result = subscription.handler(event)
            except Exception as exc:
                self._handler_failed(subscription, event, exc)
                continue
            if is_awaitable(result):
                subscription.direct = False
                self._enqueue(subscription, _Started(result, event))

    def _enqueue(self, subscription: _Subscription, item: Event | _Started) -> None:
        """Give ``item`` to the subscription's worker (started if it is not running)."""
        try:
            subscription.queue.put_nowait(item)
        except asyncio.QueueFull:
            event = item.event if isinstance(item, _Started) else item
            logger.warning("subscriber %s is too slow: %s dropped", subscription.owner, event.type)
            if isinstance(item, _Started) and inspect.iscoroutine(item.result):
                item.result.close()
            return
        if subscription.worker is None or subscription.worker.done():
            subscription.worker = asyncio.get_running_loop().create_task(
                self._deliver(subscription), name=f"event-bus:{subscription.owner}"
            )

    async def _deliver(self, subscription: _Subscription) -> None:
        while True:
            item = await subscription.queue.get()
            event = item.event if isinstance(item, _Started) else item
            try:
                result = item.result if isinstance(item, _Started) else subscription.handler(item)
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

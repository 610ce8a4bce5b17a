"""The live feed: what browsers receive over SSE, with ids for resuming after a reconnection.

Separate from the event bus on purpose: the bus is the plugins' channel and carries
identifiers only; the feed carries what the web UI shows (token deltas, message contents,
queue counts) and knows who may see each item.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

logger = logging.getLogger(__name__)

#: Every kind of item the feed carries (docs/api.md, "Live events"). An item of another kind
#: is sent to nobody: a new kind is declared here, and classified by the test that checks who
#: sees what (tests/test_kin_access_matrix.py), before it reaches a browser.
KINDS = frozenset(
    {
        "message",
        "message.redacted",
        "message.restored",
        "message.status",
        "message.superseded",
        "kin.delta",
        "kin.tool",
        "kin.queue",
        "kin.state",
        "kin.message.to_kin",
        "kin.created",
        "kin.updated",
        "kin.deleted",
        "kin.compacting",
        "memory.added",
        "memory.merged",
        "memory.duplicate",
        "memory.extraction",
        "memory.embedding",
        "task.updated",
        "cron.created",
        "cron.updated",
        "cron.deleted",
        "cron.triggered",
        "cron.skipped",
        "cron.execution.completed",
        "approval.requested",
        "approval.decided",
        "usage.budget_warning",
    }
)
#: What orjson writes as the standard library did with ``default=str``: dates and
#: dataclasses go to ``str`` too.
_SSE_JSON = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
)
#: How many recent items are kept for clients resuming with Last-Event-ID.
BUFFER_SIZE = 2000
#: Items one slow client may have waiting before it is disconnected (it will resume).
MAX_PENDING = 5000


@dataclass(frozen=True)
class LiveItem:
    """One item of the feed. ``audience`` is the user ids allowed to see it (``None``: every
    signed-in user, e.g. anything about the shared Kins); ``narrowed``: whether it follows the
    access of the Kins it names (when it changes, so does the audience of a kept item)."""

    id: int
    type: str
    data: dict[str, Any]
    audience: frozenset[str] | None = None
    at: float = field(default_factory=time.time)
    narrowed: bool = True

    def visible_to(self, user_id: str) -> bool:
        return self.audience is None or user_id in self.audience

    def to_sse(self) -> bytes:
        """The item as one Server-Sent Event (its data one line of JSON, in UTF-8)."""
        try:
            data = orjson.dumps(self.data, default=str, option=_SSE_JSON)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits
            data = json.dumps(self.data, default=str).encode()
        return b"id: %d\nevent: %s\ndata: %s\n\n" % (self.id, self.type.encode(), data)


class LiveSubscription:
    """One browser's stream."""

    def __init__(self, feed: LiveFeed, user_id: str, session_id: str | None = None) -> None:
        self._feed = feed
        self.user_id = user_id
        self.session_id = session_id
        self.queue: asyncio.Queue[LiveItem | None] = asyncio.Queue(MAX_PENDING)
        self.closed = False

    def offer(self, item: LiveItem) -> None:
        if self.closed or not item.visible_to(self.user_id):
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        """End the stream (the client reconnects and resumes from its last id)."""
        if not self.closed:
            self.closed = True
            self._feed.discard(self)
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)

    async def next(self) -> LiveItem | None:
        """The next item, or ``None`` once the stream is closed."""
        if self.closed and self.queue.empty():
            return None
        return await self.queue.get()

    def waiting(self) -> tuple[list[LiveItem], bool]:
        """The items already waiting, without waiting for more, and whether the end of the
        stream came after them (so that a burst goes out in one write)."""
        items: list[LiveItem] = []
        while True:
            try:
                item = self.queue.get_nowait()
            except asyncio.QueueEmpty:
                return items, False
            if item is None:
                return items, True
            items.append(item)


class LiveFeed:
    """Publishes items to every open stream allowed to see them, and keeps recent ones."""

    def __init__(self) -> None:
        # Ids start from the clock, so that ids of an earlier run of the process are older
        # than any of this one: a browser resuming across a restart gets "resync".
        self._first_id = int(time.time() * 1000)
        self._ids = itertools.count(self._first_id)
        self._recent: deque[LiveItem] = deque(maxlen=BUFFER_SIZE)
        self._subscriptions: set[LiveSubscription] = set()
        #: Who may see an item about a Kin (its type and data -> user ids, ``None``: every
        #: signed-in user); narrows the audience given to ``publish``.
        self.audience_of: Callable[[str, Mapping[str, Any]], frozenset[str] | None] | None = None

    def publish(
        self,
        type: str,
        data: dict[str, Any],
        audience: Iterable[str] | None = None,
        *,
        narrow: bool = True,
    ) -> LiveItem:
        """Send an item to the streams that may see it: ``audience`` (user ids; ``None``:
        everyone), narrowed to the people who may use the Kins it names (unless ``narrow``
        is False: telling people who lost a Kin that it is gone)."""
        allowed = frozenset(audience) if audience is not None else None
        if type not in KINDS:
            logger.error("live item of undeclared kind %r: sent to nobody", type)
            allowed = frozenset()
        if narrow and self.audience_of is not None:
            about_kins = self.audience_of(type, data)
            if about_kins is not None:
                allowed = about_kins if allowed is None else allowed & about_kins
        item = LiveItem(next(self._ids), type, data, allowed, narrowed=narrow)
        self._recent.append(item)
        for subscription in list(self._subscriptions):
            subscription.offer(item)
        return item

    def rewrite_message(
        self, message_id: int, content: str, *, redaction_pending: bool = False
    ) -> int:
        """Give kept ``message`` items of one message a new text (a redacted secret must not
        be replayed to a browser resuming its stream). Returns how many were rewritten."""
        rewritten = 0
        changes = {"content": content, "redaction_pending": redaction_pending}
        for index, item in enumerate(self._recent):
            message = item.data.get("message") if item.type == "message" else None
            if isinstance(message, dict) and message.get("id") == message_id:
                data = {**item.data, "message": {**message, **changes}}
                self._recent[index] = replace(item, data=data)
                rewritten += 1
        return rewritten

    def renarrow(
        self, audience_today: Callable[[Mapping[str, Any]], frozenset[str] | None]
    ) -> None:
        """After a Kin's access changed: narrow each kept item to the people who may still
        see it, so that a browser resuming its stream is not replayed what it may no longer
        see. ``audience_today`` gives who may use every Kin an item's data names."""
        for index, item in enumerate(self._recent):
            about_kins = audience_today(item.data) if item.narrowed else None
            if about_kins is None:
                continue
            allowed = about_kins if item.audience is None else item.audience & about_kins
            if allowed != item.audience:
                self._recent[index] = replace(item, audience=allowed)

    def subscribe(
        self, user_id: str, after: int | None = None, *, session_id: str | None = None
    ) -> tuple[LiveSubscription, bool]:
        """Open a stream for ``user_id``; with ``after`` (Last-Event-ID), replay what came
        since. The flag says whether the replay is complete (False: older items were
        dropped, the client should reload its state)."""
        subscription = LiveSubscription(self, user_id, session_id)
        complete = True
        if after is not None:
            newest = self._recent[-1].id if self._recent else self._first_id - 1
            oldest = self._recent[0].id if self._recent else self._first_id
            # An id from before this process started (or from the future) cannot be resumed.
            complete = self._first_id <= after <= newest and oldest <= after + 1
            for item in self._recent:
                if item.id > after:
                    subscription.offer(item)
        self._subscriptions.add(subscription)
        return subscription, complete

    def discard(self, subscription: LiveSubscription) -> None:
        self._subscriptions.discard(subscription)

    def has_stream(self, user_id: str) -> bool:
        """Whether a browser of ``user_id`` has its stream open (KinBot is open there)."""
        return any(s.user_id == user_id and not s.closed for s in self._subscriptions)

    def close_user(self, user_id: str) -> None:
        """End every open stream of a user (signed out, disabled, role lowered…)."""
        for subscription in [s for s in self._subscriptions if s.user_id == user_id]:
            subscription.close()

    def close_session(self, session_id: str) -> None:
        """End the streams of one browser session (it signed out)."""
        for subscription in [s for s in self._subscriptions if s.session_id == session_id]:
            subscription.close()

    def close_all(self) -> None:
        for subscription in list(self._subscriptions):
            subscription.close()

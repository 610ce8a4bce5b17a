"""Sending Kins' replies (and KinBot's notices) back to the chats they came from, with a
persisted record per delivery so that a restart sends what was not sent, and nothing twice.

A message that came through a channel is stored with a delivery record ``awaiting`` its
reply. When the Kin's turn on it ends, the record gets the text (the turn's reply, or a note
that it could not answer) and becomes ``pending``. The sender loop cuts the text into parts
at the platform's limit and sends them one by one, recording each part sent with the
platform's ids before the next; the files the Kin attached to its reply (``attach_file``) go
with the first part, read from the upload store (one over the type's ``max_media_bytes``,
when it has one, is named in the text instead), so they are recorded sent with it; once all
are sent, the reply carries the channel as its ``meta.origin`` (the chat shows where it
went). A part that fails with a retryable error (rate limit, network) is tried again after a
backoff (the platform's retry-after when it gave one); after
``channel_delivery_max_attempts``, or at once for an error that cannot be retried, the
delivery is ``failed`` with the error's code.

The one window left: the process dying after the platform accepted a part and before the
record of it is committed (milliseconds). That part is sent again at the restart; a platform
without idempotency keys (Telegram's Bot API) offers no way to know.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from kinbot_core.channels import delivery_rows as rows
from kinbot_core.channels import undelivered
from kinbot_core.channels.errors import ChannelAuthFailed, ChannelError
from kinbot_core.channels.notices import failed_text
from kinbot_core.channels.splitting import split_message
from kinbot_core.channels.types import ChannelType, OutgoingMedia
from kinbot_core.db import Database
from kinbot_core.db.models import ChannelDeliveryRecord
from kinbot_core.kins.views import MessageView
from kinbot_core.uploads import UploadStore

if TYPE_CHECKING:
    from kinbot_core.channels.runtime import ChannelRuntime

logger = logging.getLogger(__name__)

#: How often the loop looks again without being woken (a safety net, not the mechanism).
IDLE_WAKE_SECONDS = 30.0


def backoff(attempts: int, base: float, ceiling: float, retry_after: float | None) -> float:
    """Seconds to wait after the ``attempts``-th failure: doubling from ``base`` up to
    ``ceiling``, and never less than the platform's ``retry_after``."""
    wait: float = min(base * 2.0 ** max(attempts - 1, 0), ceiling)
    return max(wait, retry_after or 0.0)


class DeliveryService:
    """The delivery records and the loop that sends them."""

    def __init__(self, runtime: ChannelRuntime) -> None:
        self._runtime = runtime
        self._wake = asyncio.Event()

    @property
    def _db(self) -> Database:
        return self._runtime.platform.db

    def wake(self) -> None:
        """Look for deliveries to send now."""
        self._wake.set()

    async def notice(self, connection_id: str, chat_id: str, text: str) -> None:
        """Queue a message of KinBot's own (not an answer to a message) for a chat."""
        now = time.time()
        await self._db.write(
            lambda: ChannelDeliveryRecord.create(
                connection=connection_id,
                chat_id=chat_id,
                status="pending",
                text=text,
                created_at=now,
                updated_at=now,
            )
        )
        self.wake()

    async def reconcile(self) -> int:
        """Give each delivery awaiting a reply whose turn has ended its text (or mark it
        sent when there is nothing to say). Returns how many became pending."""
        # Asked after every turn; most have none.
        if not self._db.read_kept(rows.ANY_AWAITING, (), [("channel_delivery", None)]):
            return 0
        awaiting = await self._db.read(rows.awaiting_with_ended_turns)
        ready = 0
        for delivery_id, trigger_id, status, kin_name, sender_id in awaiting:
            text = await self._reply_text(trigger_id, status, kin_name, sender_id)
            if text is None and status == "done":
                files: list[dict[str, Any]] = await self._db.read(rows.reply_uploads, trigger_id)
                text = "" if files else None  # files alone: one part without text
            ready += await self._db.write(rows.set_reply, delivery_id, text)
        if ready:
            self.wake()
        return ready

    async def _reply_text(
        self, trigger_id: int, status: str, kin_name: str, sender_id: str | None
    ) -> str | None:
        if status == "done":
            texts = await self._db.read(rows.reply_texts, trigger_id)
            return "\n\n".join(texts) or None
        if status == "failed":
            language = await self._db.read(rows.language_of, sender_id) if sender_id else None
            return failed_text(kin_name, language)
        return None  # cancelled: nothing to say

    async def run(self) -> None:
        """Send what is due, until cancelled. A failure of KinBot's own (not the platform's)
        is logged and the loop goes on."""
        last_reconcile = 0.0
        while True:
            self._wake.clear()
            wait = IDLE_WAKE_SECONDS
            try:
                if time.monotonic() - last_reconcile >= IDLE_WAKE_SECONDS:
                    await self.reconcile()
                    last_reconcile = time.monotonic()
                next_due = await self._send_due()
                if next_due is not None:
                    wait = min(max(next_due - time.time(), 0.0), IDLE_WAKE_SECONDS)
            except Exception:
                logger.exception("sending channel deliveries failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()

    async def _send_due(self) -> float | None:
        """Send every pending delivery that is due on a running connection; returns when
        the next one not yet due is (``None``: none is waiting)."""
        now = time.time()
        for row in await self._db.read(rows.pending):
            if row.next_attempt_at <= now and self._runtime.live(row.__data__["connection"]):
                await self._attempt(row)
        # Those not due, and those that just failed, are due again at their next attempt.
        upcoming: float | None = await self._db.read(rows.next_attempt, time.time())
        return upcoming

    async def _attempt(self, row: ChannelDeliveryRecord) -> None:
        connection_id = row.__data__["connection"]
        live = self._runtime.live(connection_id)
        if live is None:
            return
        channel_type, connection = live
        parts = split_message(row.text or "", channel_type.max_message_length)
        trigger_id = row.__data__.get("trigger")
        files: list[dict[str, Any]] = []
        if trigger_id is not None:
            files, named = await self._db.read(
                rows.reply_files, trigger_id, _media_limit(channel_type)
            )
            if named:
                parts[-1:] = split_message(
                    "\n\n".join([*parts[-1:], *named]), channel_type.max_message_length
                )
            if files and not parts:
                parts = [""]
        # Files go with the first part: once it is recorded sent, they are not read again.
        media = await self._media(files) if row.parts_sent == 0 else []
        sent_ids: list[str] = json.loads(row.platform_ids or "[]")
        for index in range(row.parts_sent, len(parts)):
            try:
                ids = await connection.send(
                    row.chat_id,
                    parts[index],
                    media=media if index == 0 else (),
                    reply_to=row.reply_to if index == 0 else None,
                )
            except ChannelError as error:
                await self._failed(row, error)
                return
            sent_ids.extend(str(i) for i in ids)
            last = index == len(parts) - 1
            await self._db.write(rows.part_sent, row.id, index + 1, sent_ids, last)
        if not parts:
            await self._db.write(rows.part_sent, row.id, 0, sent_ids, True)
        self._runtime.note_working(connection_id)
        if trigger_id is not None and parts:
            self._publish(await self._db.write(rows.mark_delivered, trigger_id, connection_id))

    async def redeliver(
        self, kin_id: str, message_id: int, *, user_id: str, admin: bool
    ) -> MessageView:
        """Send again the reply ``message_id`` of ``kin_id`` whose delivery failed (for the
        user it was for, or an administrator): its sign goes, the delivery is queued again.
        Raises ``undelivered.MessageNotFound``, ``RedeliveryForbidden`` or
        ``DeliveryNotFailed``."""
        shown, cleared = await self._db.write(
            undelivered.requeue, kin_id, message_id, user_id, admin
        )
        self._publish(cleared)
        self.wake()
        return shown

    def _publish(self, replies: list[MessageView]) -> None:
        """Tell the browsers that may see the replies' Kin that they changed."""
        for reply in replies:
            self._runtime.platform.live.publish("message", {"message": reply.to_dict()})

    async def _media(self, files: list[dict[str, Any]]) -> list[OutgoingMedia]:
        """The bytes of the files (checked by ``rows.reply_files``) from the upload store."""
        store = UploadStore(self._db, self._runtime.platform.settings)

        def load() -> list[OutgoingMedia]:
            media = []
            for file in files:
                try:
                    data = store.path(file["id"]).read_bytes()
                except OSError:
                    logger.warning("the attached upload %s is gone: not sent", file["id"])
                    continue
                media.append(OutgoingMedia(data, file["mime_type"], file["filename"]))
            return media

        return await asyncio.to_thread(load)

    async def _failed(self, row: ChannelDeliveryRecord, error: ChannelError) -> None:
        settings = self._runtime.platform.settings
        attempts = row.attempts + 1
        give_up = not error.retryable or attempts >= settings.channel_delivery_max_attempts
        retry_after = getattr(error, "retry_after", None)
        wait = backoff(
            attempts,
            settings.channel_retry_base_seconds,
            settings.channel_retry_max_seconds,
            retry_after,
        )
        logger.warning(
            "channel %s: delivery %s failed (%s, attempt %d%s): %s",
            row.__data__["connection"],
            row.id,
            error.code,
            attempts,
            ", given up" if give_up else f", again in {wait:.0f} s",
            error.message,
        )
        trigger_id = row.__data__.get("trigger")
        if give_up and trigger_id is not None:
            connection_id = row.__data__["connection"]
            self._publish(
                await self._db.write(
                    undelivered.given_up, row.id, attempts, error.code, trigger_id, connection_id
                )
            )
        else:
            await self._db.write(rows.attempt_failed, row.id, attempts, error.code, give_up, wait)
        if error.retryable or isinstance(error, ChannelAuthFailed):
            # The connection's own trouble; a refusal of one message (a person who blocked
            # the bot) says nothing of the connection.
            await self._runtime.note_failure(row.__data__["connection"], error)


def _media_limit(channel_type: ChannelType) -> int | None:
    """The largest file the platform takes (``max_media_bytes``; none said: no limit)."""
    limit = getattr(channel_type, "max_media_bytes", None)
    return int(limit) if limit is not None else None

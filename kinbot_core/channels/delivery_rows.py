"""The delivery records' reads and writes (each run by the database's reader or writer
thread), for ``DeliveryService`` in ``deliveries``."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import peewee

from kinbot_core.channels.notices import file_not_sent_text
from kinbot_core.db.models import (
    ChannelConnectionRecord,
    ChannelDeliveryRecord,
    KinRecord,
    MessageRecord,
    UploadRecord,
    User,
)
from kinbot_core.kins.service import MessageView

#: The statuses of a turn that has ended.
ENDED = ("done", "failed", "cancelled")

ANY_AWAITING = "select 1 from channel_delivery where status = 'awaiting' limit 1"


def awaiting_with_ended_turns() -> list[tuple[int, int, str, str, str | None]]:
    query: Any = (
        ChannelDeliveryRecord.select(
            ChannelDeliveryRecord.id,
            MessageRecord.id,
            MessageRecord.status,
            KinRecord.name,
            MessageRecord.sender_id,
        )
        .join(MessageRecord, on=ChannelDeliveryRecord.trigger == MessageRecord.id)
        .join(KinRecord, on=MessageRecord.kin == KinRecord.id)
        .where((ChannelDeliveryRecord.status == "awaiting") & MessageRecord.status.in_(ENDED))
        .order_by(ChannelDeliveryRecord.id)
        .tuples()
    )
    return [(int(a), int(b), str(c), str(d), e) for a, b, c, d, e in query]


def replies_to(trigger_id: int) -> Any:
    """The condition on the messages that answer ``trigger_id`` (its turn's replies, not
    superseded by a retry)."""
    return (
        (MessageRecord.turn_of == trigger_id)
        & (MessageRecord.role == "assistant")
        & ~MessageRecord.superseded
    )


def reply_texts(trigger_id: int) -> list[str]:
    """The texts of a turn's replies, in order (blank ones left out)."""
    rows = (
        MessageRecord.select(MessageRecord.content)
        .where(replies_to(trigger_id))
        .order_by(MessageRecord.id)
    )
    return [row.content.strip() for row in rows if row.content and row.content.strip()]


def reply_uploads(trigger_id: int) -> list[dict[str, Any]]:
    """The references of the uploads attached to a turn's replies, in order."""
    rows = (
        MessageRecord.select(MessageRecord.attachments)
        .where(replies_to(trigger_id) & MessageRecord.attachments.is_null(False))
        .order_by(MessageRecord.id)
    )
    return [
        item
        for row in rows
        for item in json.loads(row.attachments or "[]")
        if isinstance(item, dict) and "id" in item
    ]


def reply_files(trigger_id: int, limit: int | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The uploads attached to a turn's replies that the platform takes (id, MIME type,
    file name), and lines naming the others (over ``limit``, or no longer stored), in the
    language of the person the reply answers."""
    references = reply_uploads(trigger_id)
    if not references:
        return [], []
    wanted = [str(reference["id"]) for reference in references]
    rows = {row.id: row for row in UploadRecord.select().where(UploadRecord.id.in_(wanted))}
    trigger = MessageRecord.get_or_none(MessageRecord.id == trigger_id)
    sender_id = trigger.sender_id if trigger is not None else None
    language = language_of(sender_id) if sender_id else None
    files: list[dict[str, Any]] = []
    named: list[str] = []
    for upload_id, reference in zip(wanted, references, strict=True):
        row = rows.get(upload_id)
        if row is None:
            name = str(reference.get("filename") or "?")
            named.append(file_not_sent_text(name, False, language))
        elif limit is not None and row.size > limit:
            named.append(file_not_sent_text(row.filename, True, language))
        else:
            files.append({"id": row.id, "mime_type": row.mime_type, "filename": row.filename})
    return files, named


def language_of(user_id: str) -> str | None:
    user = User.get_or_none(User.id == user_id)
    return str(user.language) if user is not None else None


def set_reply(delivery_id: int, text: str | None) -> int:
    """``text`` ``None``: nothing to send; ``""``: files alone."""
    updated = (
        ChannelDeliveryRecord.update(
            status="sent" if text is None else "pending", text=text, updated_at=time.time()
        )
        .where(
            (ChannelDeliveryRecord.id == delivery_id) & (ChannelDeliveryRecord.status == "awaiting")
        )
        .execute()
    )
    return 1 if updated and text is not None else 0


def pending() -> list[ChannelDeliveryRecord]:
    return list(
        ChannelDeliveryRecord.select()
        .where(ChannelDeliveryRecord.status == "pending")
        .order_by(ChannelDeliveryRecord.id)
    )


def next_attempt(now: float) -> float | None:
    """When the next pending delivery not yet due is due (those due now wait for their
    connection, which wakes the loop when it runs)."""
    value = (
        ChannelDeliveryRecord.select(peewee.fn.MIN(ChannelDeliveryRecord.next_attempt_at))
        .where(
            (ChannelDeliveryRecord.status == "pending")
            & (ChannelDeliveryRecord.next_attempt_at > now)
        )
        .scalar()
    )
    return float(value) if value is not None else None


def mark_delivered(trigger_id: int, connection_id: str) -> list[MessageView]:
    """Give the replies of a turn the origin of the channel they were delivered to (the
    chat shows it on them), in place of a sign that they were not."""
    connection = ChannelConnectionRecord.get_or_none(ChannelConnectionRecord.id == connection_id)
    if connection is None:
        return []
    origin = {"kind": connection.type, "label": connection.label}
    replies = []
    for row in MessageRecord.select().where(replies_to(trigger_id)):
        if not (row.content or "").strip() and not row.attachments:
            continue
        meta = json.loads(row.meta) if row.meta else {}
        meta.pop("undelivered", None)
        row.meta = json.dumps({**meta, "origin": origin})
        row.save()
        replies.append(MessageView.of(row))
    return replies


def part_sent(delivery_id: int, parts_sent: int, ids: Sequence[str], last: bool) -> None:
    ChannelDeliveryRecord.update(
        parts_sent=parts_sent,
        platform_ids=json.dumps(list(ids)),
        status="sent" if last else "pending",
        last_error_code=None,
        updated_at=time.time(),
    ).where(ChannelDeliveryRecord.id == delivery_id).execute()


def attempt_failed(delivery_id: int, attempts: int, code: str, give_up: bool, wait: float) -> None:
    now = time.time()
    ChannelDeliveryRecord.update(
        attempts=attempts,
        last_error_code=code,
        status="failed" if give_up else "pending",
        next_attempt_at=now + wait,
        updated_at=now,
    ).where(ChannelDeliveryRecord.id == delivery_id).execute()

"""Replies that could not be delivered back to the channel they answer: the sign on them in
the chat, and sending them again on request (each function runs on the database's writer
thread, inside its transaction).

When a delivery is given up (an error that cannot be retried, or the last attempt), the
same transaction records it ``failed`` and gives the turn's replies ``meta.undelivered``:
``{"kind", "label", "code", "recipient_id"}`` (the channel's type and name, the error's code
the web client words, and the user the reply was for, when it was for a user). Sending it
again is for that user or an administrator: the delivery becomes ``pending`` again with its
attempts reset, keeping the parts already sent (none is sent twice), and the sign goes in
the same transaction; a new failure puts it back, a success replaces it with the
``origin`` badge (``delivery_rows.mark_delivered``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from kinbot_core.channels.connections import ChannelsError
from kinbot_core.channels.delivery_rows import attempt_failed, replies_to
from kinbot_core.db.models import (
    ChannelConnectionRecord,
    ChannelDeliveryRecord,
    MessageRecord,
    User,
)
from kinbot_core.kins.service import MessageView


class MessageNotFound(ChannelsError):
    """No such message in this Kin's session."""

    code = "not_found"
    status = 404


class RedeliveryForbidden(ChannelsError):
    """Only the person the reply was for, or an administrator, may send it again."""

    code = "forbidden"
    status = 403


class DeliveryNotFailed(ChannelsError):
    """The message is not a reply whose delivery failed (sent meanwhile, or already queued
    again)."""

    code = "delivery_not_failed"
    status = 409


def given_up(
    delivery_id: int, attempts: int, code: str, trigger_id: int, connection_id: str
) -> list[MessageView]:
    """Record a delivery ``failed`` and put the sign on the replies it carried; returns them
    (for the live stream)."""
    attempt_failed(delivery_id, attempts, code, True, 0.0)
    connection = ChannelConnectionRecord.get_or_none(ChannelConnectionRecord.id == connection_id)
    if connection is None:
        return []
    trigger = MessageRecord.get_or_none(MessageRecord.id == trigger_id)
    sender_id = trigger.sender_id if trigger is not None else None
    recipient = User.get_or_none(User.id == sender_id) if sender_id else None
    sign = {
        "kind": connection.type,
        "label": connection.label,
        "code": code,
        "recipient_id": recipient.id if recipient is not None else None,
    }
    marked = []
    for row in MessageRecord.select().where(replies_to(trigger_id)):
        if not (row.content or "").strip() and not row.attachments:
            continue  # a step with tool calls only: nothing of it was to be sent
        meta = _meta(row)
        meta["undelivered"] = sign
        row.meta = json.dumps(meta)
        row.save()
        marked.append(MessageView.of(row))
    return marked


def requeue(
    kin_id: str, message_id: int, user_id: str, admin: bool
) -> tuple[MessageView, list[MessageView]]:
    """Queue again the failed delivery of the reply ``message_id`` of ``kin_id``, for the
    user it was for or an administrator. Returns the reply and every reply of its turn
    whose sign went (for the live stream)."""
    message = MessageRecord.get_or_none(
        (MessageRecord.id == message_id) & (MessageRecord.kin == kin_id)
    )
    if message is None:
        raise MessageNotFound("No such message.")
    sign = _meta(message).get("undelivered")
    trigger_id = message.__data__.get("turn_of")
    if not isinstance(sign, dict) or trigger_id is None:
        raise DeliveryNotFailed("This message was not left undelivered.")
    if not admin and sign.get("recipient_id") != user_id:
        raise RedeliveryForbidden(
            "Only the person the reply was for, or an administrator, may send it again."
        )
    requeued = (
        ChannelDeliveryRecord.update(
            status="pending",
            attempts=0,
            next_attempt_at=0,
            last_error_code=None,
            updated_at=time.time(),
        )
        .where(
            (ChannelDeliveryRecord.trigger == trigger_id)
            & (ChannelDeliveryRecord.status == "failed")
        )
        .execute()
    )
    if not requeued:
        raise DeliveryNotFailed("This reply is already being sent again.")
    cleared = []
    for row in MessageRecord.select().where(replies_to(trigger_id)):
        meta = _meta(row)
        if meta.pop("undelivered", None) is None:
            continue
        row.meta = json.dumps(meta) if meta else None
        row.save()
        cleared.append(MessageView.of(row))
    shown = next((view for view in cleared if view.id == message_id), None)
    return shown or MessageView.of(message), cleared


def _meta(row: MessageRecord) -> dict[str, Any]:
    meta: Any = json.loads(row.meta) if row.meta else {}
    return meta if isinstance(meta, dict) else {}

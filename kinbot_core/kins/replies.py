"""What becomes of a turn's reply besides being answered: kept partly when a member stops it,
superseded when a member retries it (the same message is then answered again)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.db.models import MessageRecord
from kinbot_core.kins.drafts import TurnDraft
from kinbot_core.kins.meta import STOPPED, stopped_turn
from kinbot_core.kins.service import USER_PRIORITY, KinError, KinView, MessageView, next_position

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

#: States of a message that started a turn which is over.
HANDLED = ("done", "failed", "cancelled")


class NothingToRetry(KinError):
    """The Kin has no reply to retry (none yet, or it was folded into a summary)."""

    code = "nothing_to_retry"
    status = 409


class KinBusy(KinError):
    """The Kin is answering or has messages waiting: a retry would cut in."""

    code = "kin_busy"
    status = 409


async def keep_stopped(
    platform: Platform, kin: KinView, trigger: MessageView, draft: TurnDraft
) -> MessageView | None:
    """A member stopped the turn of ``trigger``: the text streamed so far is stored as what the
    Kin said (meta ``stopped``), or, when it had said nothing yet, a note that the turn was
    stopped (an error message, code ``turn_stopped``). Nothing is stored twice: a reply the
    turn stored as it was being stopped stands as it is."""
    text, step = draft.text, draft.step
    silent = not text.strip()

    def store() -> MessageRecord | None:
        # On the writer thread, after any write the stopped turn had already asked for.
        stored_since = (
            MessageRecord.select()
            .where(
                (MessageRecord.turn_of == trigger.id)
                & (MessageRecord.role == "assistant")
                & (MessageRecord.id > step)
            )
            .exists()
        )
        if stored_since:
            return None
        common = {
            "kin": kin.id,
            "position": next_position(kin.id),
            "turn_of": trigger.id,
            "created_at": time.time(),
        }
        if silent:
            return MessageRecord.create(
                **common,
                role="system",
                source="system",
                sender_name="KinBot",
                content=f"{kin.name}'s answer was stopped.",
                is_error=True,
                meta=json.dumps(stopped_turn()),
            )
        return MessageRecord.create(
            **common,
            role="assistant",
            source="kin",
            sender_id=kin.id,
            sender_name=kin.name,
            content=text,
            meta=json.dumps(STOPPED),
        )

    row = await platform.db.write(store)
    if row is None:
        return None
    view = MessageView.of(row)
    platform.live.publish("message", {"message": view.to_dict()})
    return view


async def retry_last_turn(platform: Platform, kin_id: str) -> list[int]:
    """Supersede the last turn's reply (its assistant, tool and error messages stay, marked
    ``superseded``, out of the Kin's context) and queue the message that started it again,
    in its place, ahead of automatic messages. Returns the superseded ids.

    ``KinNotFound`` for an unknown Kin or a sub-Kin's session, ``KinBusy`` while the Kin
    answers or has messages waiting, ``NothingToRetry`` without a reply to retry or when it
    was folded into a compacting summary."""
    await platform.kins.get(kin_id)
    if platform.workers.running(kin_id):
        raise KinBusy("The Kin is answering; stop it or wait for its reply first.")

    def supersede() -> tuple[int, list[int]]:
        busy = (
            MessageRecord.select()
            .where(
                (MessageRecord.kin == kin_id) & MessageRecord.status.in_(("queued", "processing"))
            )
            .exists()
        )
        if busy:
            raise KinBusy("The Kin has messages waiting; retry once it has answered them.")
        last = (
            MessageRecord.select(MessageRecord.turn_of)
            .where(
                (MessageRecord.kin == kin_id)
                & MessageRecord.turn_of.is_null(False)
                & MessageRecord.position.is_null(False)
                & ~MessageRecord.superseded
            )
            .order_by(MessageRecord.position.desc())
            .first()
        )
        trigger = MessageRecord.get_or_none(MessageRecord.id == last.turn_of) if last else None
        if trigger is None or trigger.status not in HANDLED or trigger.position is None:
            raise NothingToRetry("There is no reply to retry.")
        summary = CompactingSnapshot.get_or_none(
            (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
        )
        if summary is not None and trigger.position <= summary.through_position:
            raise NothingToRetry("That exchange is already summarised; send the message again.")
        outputs = MessageRecord.turn_of == trigger.id
        ids = [
            row.id
            for row in MessageRecord.select(MessageRecord.id)
            .where(outputs & ~MessageRecord.superseded)
            .order_by(MessageRecord.id)
        ]
        MessageRecord.update(superseded=True).where(MessageRecord.id.in_(ids)).execute()
        MessageRecord.update(status="queued", priority=USER_PRIORITY, processed_at=None).where(
            MessageRecord.id == trigger.id
        ).execute()
        return trigger.id, ids

    trigger_id, ids = await platform.db.write(supersede)
    platform.live.publish("message.superseded", {"kin_id": kin_id, "ids": ids})
    platform.kins.requeued(kin_id, trigger_id)
    return ids

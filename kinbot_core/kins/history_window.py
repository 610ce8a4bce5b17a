"""Pages of a Kin's session that are not its latest: the messages after a given one, and a
window around one (where a search result is read in context)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kinbot_core.db import Database
from kinbot_core.db.models import MessageRecord
from kinbot_core.kins.service import KinNotFound, MessageView


class MessageNotFound(KinNotFound):
    """The message is not in this session."""


@dataclass(frozen=True)
class HistoryWindow:
    """Messages oldest first, and whether older and newer ones exist beyond them."""

    messages: list[MessageView]
    more_before: bool
    more_after: bool


async def messages_after(db: Database, kin_id: str, after: int, limit: int) -> HistoryWindow:
    """The ``limit`` messages of the session that follow message id ``after``."""

    def page() -> list[MessageRecord]:
        return list(
            MessageRecord.select()
            .where((MessageRecord.kin == kin_id) & (MessageRecord.id > after))
            .order_by(MessageRecord.id)
            .limit(limit + 1)
        )

    rows = await db.read(page)
    return HistoryWindow([MessageView.of(row) for row in rows[:limit]], True, len(rows) > limit)


async def messages_around(db: Database, kin_id: str, message_id: int, limit: int) -> HistoryWindow:
    """About ``limit`` messages with message ``message_id`` in the middle (fewer older ones
    near the beginning, more then after it); ``MessageNotFound`` when it is not this
    session's."""

    def window() -> tuple[list[MessageRecord], list[MessageRecord]] | None:
        inside = MessageRecord.select().where(
            (MessageRecord.kin == kin_id) & (MessageRecord.id == message_id)
        )
        if not inside.exists():
            return None
        older = list(
            MessageRecord.select()
            .where((MessageRecord.kin == kin_id) & (MessageRecord.id <= message_id))
            .order_by(MessageRecord.id.desc())
            .limit(limit // 2 + 2)
        )
        kept = older[: limit // 2 + 1]
        newer = list(
            MessageRecord.select()
            .where((MessageRecord.kin == kin_id) & (MessageRecord.id > message_id))
            .order_by(MessageRecord.id)
            .limit(limit - len(kept) + 1)
        )
        return older, newer

    found = await db.read(window)
    if found is None:
        raise MessageNotFound("No such message in this session.")
    older, newer = found
    kept_older = older[: limit // 2 + 1]
    kept_newer = newer[: limit - len(kept_older)]
    rows = [*reversed(kept_older), *kept_newer]
    return HistoryWindow(
        [MessageView.of(row) for row in rows],
        more_before=len(older) > len(kept_older),
        more_after=len(newer) > len(kept_newer),
    )


async def metas_of(db: Database, kin_id: str, ids: list[int]) -> dict[int, dict[str, object]]:
    """The ``meta`` of those of messages ``ids`` of the session that have one."""

    def select() -> list[MessageRecord]:
        return list(
            MessageRecord.select(MessageRecord.id, MessageRecord.meta).where(
                (MessageRecord.kin == kin_id)
                & (MessageRecord.id.in_(ids))
                & (MessageRecord.meta.is_null(False))
            )
        )

    if not ids:
        return {}
    return {row.id: json.loads(row.meta or "{}") for row in await db.read(select)}

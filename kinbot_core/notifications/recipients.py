"""Who a Kin's notification is for: the person it names, or the person a family would expect.

Without a name, the notification goes to, in this order:

1. the person whose message the Kin is answering;
2. for a sub-Kin working for a cron (its own, or an ancestor task's): the person who created
   the cron, or, for a cron a Kin proposed, the person who confirmed it;
3. the person who last wrote to the Kin (its most recent conversation partner);
4. the person who created the Kin.

Only active accounts receive notifications; when nobody qualifies there is no recipient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinbot_core.accounts import AccountView
from kinbot_core.accounts.errors import NotFound
from kinbot_core.crons.views import CronNotFound
from kinbot_core.db.models import MessageRecord
from kinbot_core.tasks import TaskNotFound
from kinbot_core.tools import Speaker

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

#: How many ancestor tasks are walked up to find a cron (deeper than ``task_max_depth``).
_MAX_ANCESTORS = 16


class UnknownRecipient(Exception):
    """The name given matches no person, or several: the message says which, for the model."""


async def find_user(platform: Platform, query: str) -> AccountView:
    """The active person ``query`` names: their id, pseudonym, first name, or full name
    (case does not matter). ``UnknownRecipient`` when none or several match."""
    wanted = query.strip().casefold()
    people = [user for user in await platform.accounts.list_users() if user.is_active]
    for user in people:
        if user.id == query.strip():
            return user
    for names in (_pseudonym, _first_and_full_name):
        found = [user for user in people if wanted in {n.casefold() for n in names(user)}]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            options = ", ".join(sorted(user.pseudonym for user in found))
            raise UnknownRecipient(f"{query!r} could be several people ({options}): be precise.")
    options = ", ".join(sorted(user.pseudonym for user in people))
    raise UnknownRecipient(f"Nobody called {query!r} has an account. People: {options}.")


def _pseudonym(user: AccountView) -> set[str]:
    return {user.pseudonym}


def _first_and_full_name(user: AccountView) -> set[str]:
    return {user.first_name, f"{user.first_name} {user.last_name}"}


async def default_recipient(
    platform: Platform, kin_id: str, owner_kin_id: str, speaker: Speaker | None
) -> str | None:
    """The person a notification without a name goes to (the module's rules), or ``None``."""
    candidates: list[str | None] = []
    if speaker is not None and speaker.kind == "user":
        candidates.append(speaker.id)
    if kin_id != owner_kin_id:
        candidates.append(await _cron_person(platform, kin_id))
    candidates.append(await platform.db.read(_last_writer, owner_kin_id))
    owner = await platform.kins.get(owner_kin_id)
    candidates.append(owner.created_by)
    for user_id in candidates:
        if user_id and await _active(platform, user_id):
            return user_id
    return None


async def _cron_person(platform: Platform, session_kin_id: str) -> str | None:
    task = await platform.tasks.of_session(session_kin_id)
    for _ in range(_MAX_ANCESTORS):
        if task is None:
            return None
        if task.cron_id is not None:
            try:
                cron = await platform.crons.get(task.cron_id)
            except CronNotFound:
                return None
            return cron.created_by_user_id or cron.confirmed_by
        if task.parent_task_id is None:
            return None
        try:
            task = await platform.tasks.get(task.parent_task_id)
        except TaskNotFound:
            return None
    return None


def _last_writer(kin_id: str) -> str | None:
    row = (
        MessageRecord.select(MessageRecord.sender_id)
        .where(
            (MessageRecord.kin == kin_id)
            & (MessageRecord.source == "user")
            & MessageRecord.sender_id.is_null(False)
        )
        .order_by(MessageRecord.id.desc())
        .first()
    )
    return None if row is None else str(row.sender_id)


async def _active(platform: Platform, user_id: str) -> bool:
    try:
        user = await platform.accounts.get(user_id)
    except NotFound:
        return False
    return user.is_active

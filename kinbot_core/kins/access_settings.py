"""Reading and changing who may use a Kin (``kinbot_core.kins.access``).

Rules: an administrator sets any Kin's access (``everyone``, ``members`` with a list of
people, ``private`` to one person); any other member may make a Kin they created private to
themselves, and share it with everyone again. Sub-Kin sessions have no access of their own.
After a change the in-memory map is reloaded, people who lost the Kin are told it is gone
(``kin.deleted``) and those who gained it receive it (``kin.created``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kinbot_core.db.models import KinMemberRecord, KinRecord
from kinbot_core.kins.access import ACCESS_LEVELS, EVERYONE, MEMBERS, PRIVATE, KinAccess
from kinbot_core.kins.service import KinError, KinNotFound

if TYPE_CHECKING:
    from kinbot_core.accounts import AccountView
    from kinbot_core.platform import Platform

#: More people than a family has; a bound on the request.
MAX_MEMBERS = 200


class KinAccessError(KinError):
    """A change of access that cannot be made (``code`` says why)."""

    code = "kin_access_invalid"


class KinAccessForbidden(KinAccessError):
    code = "kin_access_forbidden"
    status = 403


def _read(kin_id: str) -> KinAccess | None:
    row = KinRecord.get_or_none((KinRecord.id == kin_id) & KinRecord.task_id.is_null())
    if row is None:
        return None
    members = sorted(
        m.__data__["user"] for m in KinMemberRecord.select().where(KinMemberRecord.kin == kin_id)
    )
    return KinAccess(kin_id, row.access, tuple(members))


def _read_all() -> dict[str, KinAccess]:
    found = {
        row.id: KinAccess(row.id, row.access, ())
        for row in KinRecord.select().where(KinRecord.task_id.is_null())
    }
    for member in KinMemberRecord.select():
        kin_id = member.__data__["kin"]
        if kin_id in found:
            current = found[kin_id]
            members = (*current.members, member.__data__["user"])
            found[kin_id] = KinAccess(kin_id, current.access, tuple(sorted(members)))
    return found


def _write(kin_id: str, access: str, members: tuple[str, ...]) -> None:
    KinRecord.update(access=access, updated_at=time.time()).where(KinRecord.id == kin_id).execute()
    KinMemberRecord.delete().where(KinMemberRecord.kin == kin_id).execute()
    for user_id in members:
        KinMemberRecord.insert(kin=kin_id, user=user_id).execute()


async def access_of(platform: Platform, kin_id: str) -> KinAccess:
    """The access of a Kin (not a sub-Kin session), or ``KinNotFound``."""
    found = await platform.db.read(_read, kin_id)
    if found is None:
        raise KinNotFound("No such Kin.")
    return found


async def every_access(platform: Platform) -> dict[str, KinAccess]:
    """The access of every Kin (for administrators)."""
    return await platform.db.read(_read_all)


async def set_access(
    platform: Platform, kin_id: str, access: str, members: list[str], *, by: AccountView
) -> KinAccess:
    """Change who may use a Kin, following the module's rules. Raises ``KinNotFound``,
    ``KinAccessForbidden`` or ``KinAccessError``."""
    kin = await platform.kins.get(kin_id)
    current = await access_of(platform, kin_id)
    if access not in ACCESS_LEVELS:
        raise KinAccessError(
            f"access is one of {', '.join(ACCESS_LEVELS)}.", params={"access": access}
        )
    wanted = tuple(sorted(set(members)))
    if not by.is_admin:
        own = kin.created_by == by.id
        to_private = access == PRIVATE and wanted in ((), (by.id,))
        from_own_private = access == EVERYONE and current.members == (by.id,)
        if not own or not (to_private or from_own_private):
            raise KinAccessForbidden(
                "Only an administrator can change this; you can make a Kin you created "
                "private to yourself.",
            )
    if access == EVERYONE:
        wanted = ()
    elif access == PRIVATE:
        wanted = wanted or (by.id,)
        if len(wanted) != 1:
            raise KinAccessError(
                "A private Kin is for one person.", code="kin_access_private_one_person"
            )
    elif access == MEMBERS and not wanted:
        raise KinAccessError(
            "Choose at least one person who may use the Kin.", code="kin_access_no_member"
        )
    if len(wanted) > MAX_MEMBERS:
        raise KinAccessError("Too many people.", code="kin_access_no_member")
    people = {user.id for user in await platform.accounts.list_users()}
    if any(user_id not in people for user_id in wanted):
        raise KinAccessError("One of the people chosen has no account.", code="kin_access_unknown")
    before = platform.kin_access.audience_now(kin_id)
    await platform.db.write(_write, kin_id, access, wanted)
    await platform.kin_access.load()
    platform.live.renarrow(platform.kin_access.audience_today)
    after = platform.kin_access.audience_now(kin_id)
    await _announce(platform, kin_id, before, after, people)
    return await access_of(platform, kin_id)


async def _announce(
    platform: Platform,
    kin_id: str,
    before: frozenset[str] | None,
    after: frozenset[str] | None,
    people: set[str],
) -> None:
    had = people if before is None else set(before)
    has = people if after is None else set(after)
    if had - has:
        platform.live.publish("kin.deleted", {"kin_id": kin_id}, audience=had - has, narrow=False)
    kin = await platform.kins.get(kin_id)
    shown = kin.to_dict((await platform.kins.queue_lengths()).get(kin_id, 0))
    if has - had:
        platform.live.publish("kin.created", {"kin": shown}, audience=has - had)
    if has & had:
        platform.live.publish("kin.updated", {"kin": shown}, audience=has & had)

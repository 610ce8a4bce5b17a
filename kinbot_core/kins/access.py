"""Who may use a Kin: everyone (the default), chosen members, or one person (private).

A Kin's ``access`` is ``everyone``, ``members`` or ``private``; the user ids allowed to use a
restricted one are rows of ``kin_member`` (for ``private``: its one person). A sub-Kin session
belongs to the Kin that spawned its task (and takes another Kin's identity): it may be used
by whoever may use both, up its chain of parents.

``KinAccessMap`` keeps the audience of every Kin in memory, loaded at start-up and reloaded
whenever an access changes, so that the live feed can filter each event synchronously at
publish time (``audience_of_event``) and routes check ``may_use`` without a query. Anything
that names a Kin the map does not know (none should) is shown to nobody: it fails closed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import KinRecord

if TYPE_CHECKING:
    from kinbot_core.accounts import AccountView
    from kinbot_core.db import Database
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

EVERYONE = "everyone"
MEMBERS = "members"
PRIVATE = "private"
ACCESS_LEVELS = (EVERYONE, MEMBERS, PRIVATE)
#: Keys of an event's payload (at any depth) whose value is a Kin's id.
KIN_ID_KEYS = frozenset(
    {"kin_id", "parent_kin_id", "session_kin_id", "from_kin_id", "to_kin_id", "sender_kin_id"}
)
#: Keys whose value is a Kin described as a whole (its ``id``).
KIN_OBJECT_KEYS = frozenset({"kin"})

Audience = frozenset[str] | None


def narrower(first: Audience, second: Audience) -> Audience:
    """The people in both audiences (``None`` is everyone)."""
    if first is None:
        return second
    if second is None:
        return first
    return first & second


@dataclass(frozen=True)
class KinAccess:
    """The access of one Kin as the API shows it."""

    kin_id: str
    access: str
    members: tuple[str, ...]

    @property
    def audience(self) -> Audience:
        return None if self.access == EVERYONE else frozenset(self.members)

    def to_dict(self) -> dict[str, Any]:
        return {"access": self.access, "members": list(self.members)}


@dataclass(frozen=True)
class _Snapshot:
    levels: dict[str, str]
    members: dict[str, set[str]]
    #: A sub-Kin session's id -> the Kins it depends on (its task's parent and identity).
    sessions: dict[str, tuple[str, str]]


def _read_snapshot() -> _Snapshot:
    db = KinRecord._meta.database
    levels = {str(k): str(a) for k, a in db.execute_sql("select id, access from kin")}
    members: dict[str, set[str]] = {}
    for kin_id, user_id in db.execute_sql("select kin_id, user_id from kin_member"):
        members.setdefault(str(kin_id), set()).add(str(user_id))
    sessions: dict[str, tuple[str, str]] = {
        str(session): (str(parent), str(identity))
        for session, parent, identity in db.execute_sql(
            "select session_kin_id, parent_kin_id, kin_id from task"
            " where session_kin_id is not null"
        )
    }
    return _Snapshot(levels, members, sessions)


def _exists(kin_id: str) -> bool:
    return bool(KinRecord.select().where(KinRecord.id == kin_id).exists())


class KinAccessMap:
    """The audience of every Kin, in memory (a family has tens of Kins, not millions)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._audiences: dict[str, Audience] = {}
        self._sessions: dict[str, tuple[str, str]] = {}

    async def load(self) -> None:
        """Read every Kin's access (at start-up, and after a change)."""
        snapshot = await self._db.read(_read_snapshot)
        audiences: dict[str, Audience] = {}
        for kin_id, level in snapshot.levels.items():
            if kin_id not in snapshot.sessions:
                allowed = snapshot.members.get(kin_id, set())
                audiences[kin_id] = None if level == EVERYONE else frozenset(allowed)
        self._sessions = dict(snapshot.sessions)
        self._audiences = audiences
        for session in snapshot.sessions:
            self._resolve_session(session, set())

    def _resolve_session(self, session: str, seen: set[str]) -> Audience:
        if session in self._audiences:
            return self._audiences[session]
        if session in seen or session not in self._sessions:
            return frozenset()
        seen.add(session)
        result: Audience = None
        for kin_id in self._sessions[session]:
            found = (
                self._resolve_session(kin_id, seen)
                if kin_id in self._sessions
                else self._audiences.get(kin_id, frozenset())
            )
            result = narrower(result, found)
        self._audiences[session] = result
        return result

    def known(self, kin_id: str) -> bool:
        return kin_id in self._audiences

    def audience_now(self, kin_id: str) -> Audience:
        """The user ids allowed to use ``kin_id`` (``None``: everyone), from memory; a Kin
        the map does not know is shown to nobody."""
        if kin_id in self._audiences:
            return self._audiences[kin_id]
        logger.warning("live event about a Kin the access map does not know: shown to nobody")
        return frozenset()

    def learn(self, event_type: str, data: Mapping[str, Any]) -> None:
        """Take note of a new Kin (shared with everyone when created) or sub-Kin session
        from the event announcing it, before anything else about it is published."""
        if event_type == "kin.created":
            kin = data.get("kin")
            if isinstance(kin, Mapping) and isinstance(kin.get("id"), str):
                self._audiences.setdefault(kin["id"], None)
        elif event_type == "task.updated":
            task = data.get("task")
            if not isinstance(task, Mapping):
                return
            session, parent, identity = (
                task.get("session_kin_id"),
                task.get("parent_kin_id"),
                task.get("kin_id"),
            )
            names = (session, parent, identity)
            if all(isinstance(n, str) for n in names) and session not in self._sessions:
                self._sessions[str(session)] = (str(parent), str(identity))
                self._resolve_session(str(session), set())

    def audience_of_event(self, event_type: str, data: Mapping[str, Any]) -> Audience:
        """Who may see an event: the people allowed to use every Kin it names."""
        self.learn(event_type, data)
        result: Audience = None
        for kin_id in kin_ids_in(data):
            result = narrower(result, self.audience_now(kin_id))
        return result

    def audience_today(self, data: Mapping[str, Any]) -> Audience:
        """Who may see, now, an event published earlier: the people allowed to use every Kin
        it names (a Kin deleted since: nobody). Learns nothing from the event."""
        result: Audience = None
        for kin_id in kin_ids_in(data):
            result = narrower(result, self._audiences.get(kin_id, frozenset()))
        return result

    async def audience(self, kin_id: str) -> Audience:
        """Like ``audience_now``, reading the database for a Kin not known yet."""
        if kin_id not in self._audiences and await self._db.read(_exists, kin_id):
            await self.load()
        return self._audiences.get(kin_id, frozenset())

    def restricted(self) -> dict[str, frozenset[str]]:
        """Every restricted Kin (and session) with its audience."""
        return {k: v for k, v in self._audiences.items() if v is not None}


def kin_ids_in(data: Any, depth: int = 0) -> set[str]:
    """Every Kin id an event's payload names (nested dicts and lists included)."""
    found: set[str] = set()
    _collect_kin_ids(data, depth, found)
    return found


#: Values with nothing inside: passed over without asking whether they are a ``Mapping``
#: (an abstract class, slow to ask about; every event of every turn is searched).
_LEAVES = (str, int, float, type(None))


def _collect_kin_ids(data: Any, depth: int, found: set[str]) -> None:
    if depth > 4:
        return
    if isinstance(data, (dict, Mapping)):
        for key, value in data.items():
            if isinstance(value, _LEAVES):
                if key in KIN_ID_KEYS and isinstance(value, str):
                    found.add(value)
            elif key in KIN_OBJECT_KEYS and isinstance(value, Mapping):
                if isinstance(value.get("id"), str):
                    found.add(value["id"])
                _collect_kin_ids(value, depth + 1, found)
            else:
                _collect_kin_ids(value, depth + 1, found)
    elif isinstance(data, list | tuple):
        for value in data:
            if not isinstance(value, _LEAVES):
                _collect_kin_ids(value, depth + 1, found)


async def audience(platform: Platform, kin_id: str) -> frozenset[str] | None:
    """The user ids allowed to use Kin ``kin_id`` (or the sub-Kin session's Kins): ``None``
    means every signed-in user."""
    return await platform.kin_access.audience(kin_id)


async def may_use(platform: Platform, user: AccountView, kin_id: str) -> bool:
    """Whether ``user`` may see and use Kin ``kin_id`` (a sub-Kin session: the Kins it
    belongs to). A Kin that does not exist: False. Refuse with 404 when False."""
    allowed = await platform.kin_access.audience(kin_id)
    return allowed is None or user.id in allowed


def usable_ids(platform: Platform, user: AccountView, kin_ids: Iterable[str]) -> list[str]:
    """The ids among ``kin_ids`` that ``user`` may use, in order (from memory)."""
    access = platform.kin_access
    return [k for k in kin_ids if (a := access.audience_now(k)) is None or user.id in a]


def user_may_use_now(platform: Platform, user_id: str | None, kin_id: str) -> bool:
    """``may_use`` from memory, by user id; ``None`` (a channel contact, who talks to the one
    Kin an administrator bound them to) may."""
    allowed = platform.kin_access.audience_now(kin_id)
    return user_id is None or allowed is None or user_id in allowed


def shown_in(platform: Platform, session_kin_id: str, about_kin_id: str) -> bool:
    """Whether what Kin ``about_kin_id`` says (or is) may appear in the session of Kin
    ``session_kin_id``: everyone who may use the latter may use the former. Inter-Kin
    messages, ``list_kins`` and ``spawn_kin`` keep to it, so a restricted Kin's words never
    reach its non-members through a Kin they may use."""
    shown = platform.kin_access.audience_now(about_kin_id)
    readers = platform.kin_access.audience_now(session_kin_id)
    return shown is None or (readers is not None and readers <= shown)

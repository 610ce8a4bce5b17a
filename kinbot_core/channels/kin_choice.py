"""Which Kin a chat talks to, when its connection talks to several: the first by default; a
linked member picks another with ``/kin <name>`` (``/kin`` alone lists them). A contact
always talks to their own Kin."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kinbot_core.db.models import ChannelBindingRecord, ChannelChatRecord, KinRecord
from kinbot_core.text_language import folded

#: ``/kin``, ``/kin Chef``, ``/kin@family_bot Chef`` (a command aimed at the bot in a group).
COMMAND = re.compile(r"^/kins?(?:@\S+)?(?:\s+(?P<name>.+?))?\s*$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class BoundKin:
    id: str
    name: str


def command_of(text: str) -> tuple[bool, str | None]:
    """Whether ``text`` is the ``/kin`` command, and the name it gives (``None``: none)."""
    found = COMMAND.match(text.strip())
    if found is None:
        return False, None
    return True, found.group("name")


def bound_kins(connection_id: str) -> list[BoundKin]:
    """The Kins a connection talks to, in their order (on a database thread)."""
    query = (
        KinRecord.select(KinRecord.id, KinRecord.name)
        .join(ChannelBindingRecord, on=ChannelBindingRecord.kin == KinRecord.id)
        .where(ChannelBindingRecord.connection == connection_id)
        .order_by(ChannelBindingRecord.position)
    )
    return [BoundKin(row.id, row.name) for row in query]


def chosen_kin(connection_id: str, chat_id: str) -> str | None:
    """The Kin a chat chose, if it did (on a database thread)."""
    row = ChannelChatRecord.get_or_none(
        (ChannelChatRecord.connection == connection_id) & (ChannelChatRecord.chat_id == chat_id)
    )
    return str(row.__data__["kin"]) if row is not None else None


def choose(connection_id: str, chat_id: str, kin_id: str) -> None:
    """Make ``kin_id`` the chat's Kin (on the writer thread)."""
    ChannelChatRecord.insert(connection=connection_id, chat_id=chat_id, kin=kin_id).on_conflict(
        conflict_target=[ChannelChatRecord.connection, ChannelChatRecord.chat_id],
        update={ChannelChatRecord.kin: kin_id},
    ).execute()


def matching(kins: list[BoundKin], name: str) -> BoundKin | None:
    """The Kin called ``name`` (case and accents aside), else the only one it begins."""
    wanted = _plain(name)
    exact = [kin for kin in kins if _plain(kin.name) == wanted]
    if exact:
        return exact[0]
    starting = [kin for kin in kins if _plain(kin.name).startswith(wanted)]
    return starting[0] if len(starting) == 1 else None


def _plain(text: str) -> str:
    return folded(text.strip())

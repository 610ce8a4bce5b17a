"""Rows a write has just changed and read back (``returning``, inside the write),
offered through the database's ``ChangeLog`` to what keeps them on the event loop: a Kin's
view (``KeptKinViews``) and its session window's messages (``SessionWindows``). A turn's
writes change both (its messages, its Kin's state); read back, the next lookup of each is
served without the database, whose writes drop the event loop's page cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kinbot_core.db import Database
from kinbot_core.kins.views import KinView, MessageView


def kin_read_back(db: Database, row: Sequence[Any]) -> KinView:
    """The view of a ``KIN_COLUMNS`` row a write changed and read back, offered."""
    view = KinView.from_row(row)
    db.changes.offer("kin", view.id, None, view)
    return view


def message_read_back(db: Database, row: Sequence[Any]) -> MessageView:
    """The view of a ``PLACED_COLUMNS`` message row a write changed and read back; the row
    is offered."""
    db.changes.offer("message", row[1], row[0], tuple(row))
    return MessageView.from_row(row[:-1])

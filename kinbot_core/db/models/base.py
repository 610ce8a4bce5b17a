"""The shared base of every KinBot model and the database proxy they are bound to.

Every model is bound to ``database_proxy``, whose target is chosen per thread: each
``Database`` points it at itself in its own worker threads. So several databases can be open
in one process, and a query attempted on the event loop thread fails loudly instead of
stalling it.
"""

from __future__ import annotations

import threading
from typing import Any

import peewee


class ThreadBoundDatabaseProxy(peewee.DatabaseProxy):
    """A peewee database proxy resolved per thread."""

    __slots__ = ("_local",)

    def __init__(self) -> None:
        object.__setattr__(self, "_local", threading.local())
        super().__init__()

    @property
    def obj(self) -> Any:
        return getattr(self._local, "database", None)

    @obj.setter
    def obj(self, database: Any) -> None:
        self._local.database = database

    def __setattr__(self, attr: str, value: Any) -> None:
        object.__setattr__(self, attr, value)


database_proxy = ThreadBoundDatabaseProxy()


class BaseModel(peewee.Model):
    """The base of every KinBot model."""

    class Meta:
        database = database_proxy
        legacy_table_names = False

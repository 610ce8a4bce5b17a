"""The peewee model of compacting snapshots (table created by migration 0006)."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models import BaseModel, KinRecord


class CompactingSnapshot(BaseModel):
    """One state of a Kin's summary layer.

    ``kind`` is ``summary`` (a compacting wrote ``summary``, covering the session through
    ``through_position``) or ``purge`` (a user reset the summary: blank, same cut). The one
    ``active`` snapshot of a Kin is what its turns use; none means never compacted.
    """

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    kind = peewee.TextField()
    summary = peewee.TextField(default="")
    #: The last message position folded into the summary; later messages stay verbatim.
    through_position = peewee.IntegerField()
    through_message_id = peewee.IntegerField(null=True)
    messages_folded = peewee.IntegerField(default=0)
    #: Estimated tokens of the context (summary and messages after the cut) before this one.
    tokens_before = peewee.IntegerField(default=0)
    summary_tokens = peewee.IntegerField(default=0)
    model = peewee.TextField(null=True)
    active = peewee.BooleanField(default=False)
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "compacting_snapshot"

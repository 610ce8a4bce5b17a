"""The extraction pipeline's tables (created by migration 0007): the per-Kin watermark and
the log of dedup/merge decisions."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models import BaseModel, KinRecord


class ExtractionState(BaseModel):
    """How far a Kin's session has been mined for memories."""

    kin = peewee.ForeignKeyField(KinRecord, primary_key=True, on_delete="CASCADE", backref="+")
    #: The last message ``position`` already extracted: the next run starts after it.
    last_position = peewee.IntegerField(default=0)
    #: Failed runs since the last success, and why the last one failed.
    failures = peewee.IntegerField(default=0)
    last_error = peewee.TextField(null=True)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "memory_extraction_state"


class MemoryDecision(BaseModel):
    """What happened to one extracted memory: added, merged into an existing one, or dropped
    as a duplicate of ``memory_id``."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    action = peewee.TextField()
    memory_id = peewee.IntegerField(null=True)
    content = peewee.TextField()
    category = peewee.TextField()
    subject = peewee.TextField(default="")
    source_message_id = peewee.IntegerField(null=True)
    similarity = peewee.FloatField(null=True)
    model = peewee.TextField()
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "memory_decision"

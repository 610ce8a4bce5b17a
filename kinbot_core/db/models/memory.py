"""What a Kin remembers: its contacts, its memories and how often each memory is used."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.base import BaseModel
from kinbot_core.db.models.kins import KinRecord


class ContactRecord(BaseModel):
    """Someone a Kin knows: a person or another Kin, with facts and preferences."""

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    name = peewee.TextField()
    type = peewee.TextField()
    #: The user or Kin this contact is, when known.
    linked_id = peewee.TextField(null=True)
    relation = peewee.TextField(default="")
    notes = peewee.TextField(default="")
    facts = peewee.TextField(default="[]")
    preferences = peewee.TextField(default="[]")
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "contact"


class MemoryRecord(BaseModel):
    """A durable memory of a Kin: a fact, preference, decision or piece of knowledge."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    content = peewee.TextField()
    category = peewee.TextField()
    #: Which contact or context the memory is about.
    subject = peewee.TextField(default="")
    source_message_id = peewee.IntegerField(null=True)
    #: The embedding model (and vector size) its vector was made with.
    embedding_model = peewee.TextField(null=True)
    dimension = peewee.IntegerField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)
    #: Always injected into the Kin's prompt (within the budget, before the others).
    pinned = peewee.BooleanField(default=False)
    #: When a person archived it (``None``: in use): never injected nor recalled.
    archived_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "memory"


class MemoryUsageRecord(BaseModel):
    """How often a memory was injected into its Kin's prompt and recalled by the recall tool,
    and when last (written in batches, off the turns' path)."""

    memory = peewee.ForeignKeyField(
        MemoryRecord, primary_key=True, on_delete="CASCADE", backref="+"
    )
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    injected_count = peewee.IntegerField(default=0)
    recalled_count = peewee.IntegerField(default=0)
    last_injected_at = peewee.FloatField(null=True)
    last_recalled_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "memory_usage"

"""Sub-Kin tasks (crons keep theirs in ``kinbot_core.crons.records``)."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.base import BaseModel
from kinbot_core.db.models.kins import KinRecord


class TaskRecord(BaseModel):
    """A sub-Kin task: who asked for it, whose identity the sub-Kin takes, the hidden Kin row
    it runs as (its session), and where it stands."""

    id = peewee.TextField(primary_key=True)
    #: Whose session receives its reports and result (a main Kin, or a sub-Kin's hidden row).
    parent_kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    #: The Kin whose character and expertise the sub-Kin takes.
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    session_kin = peewee.ForeignKeyField(KinRecord, null=True, on_delete="SET NULL", backref="+")
    parent_task = peewee.ForeignKeyField("self", null=True, on_delete="CASCADE", backref="+")
    cron_id = peewee.TextField(null=True)
    title = peewee.TextField()
    description = peewee.TextField()
    mode = peewee.TextField()
    model = peewee.TextField()
    status = peewee.TextField()
    depth = peewee.IntegerField()
    awaiting_input = peewee.BooleanField(default=False)
    input_requests = peewee.IntegerField(default=0)
    #: The turn (its starting message id) in which the sub-Kin last reported to its parent.
    reported_in_turn = peewee.IntegerField(null=True)
    result = peewee.TextField(null=True)
    error = peewee.TextField(null=True)
    #: Why it failed or was cancelled, as a code the UI words (``TASK_END_CODES``).
    error_code = peewee.TextField(null=True)
    #: Someone's own words about it (the provider's message, the sub-Kin's reason), masked.
    error_detail = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)
    started_at = peewee.FloatField(null=True)
    ended_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "task"

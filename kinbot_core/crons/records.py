"""The peewee models of crons and their runs (tables created by migration 0011)."""

from __future__ import annotations

import peewee

from kinbot_core.db.models import BaseModel, KinRecord, User


class CronRecord(BaseModel):
    """A scheduled job: every time ``schedule`` comes, a sub-Kin of ``kin`` does the task.

    ``active`` is what the owner wants; a Kin-proposed cron (or one a Kin changed) also needs
    a user's confirmation (``needs_confirmation``) before it is scheduled.
    """

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    name = peewee.TextField()
    schedule = peewee.TextField()
    #: An IANA zone name; ``None``: the platform's ``cron_timezone``.
    timezone = peewee.TextField(null=True)
    task_description = peewee.TextField()
    #: ``None``: the target Kin's own model.
    model = peewee.TextField(null=True)
    active = peewee.BooleanField(default=False)
    needs_confirmation = peewee.BooleanField(default=False)
    confirmed_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    confirmed_at = peewee.FloatField(null=True)
    created_by_user = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    created_by_kin = peewee.ForeignKeyField(KinRecord, null=True, on_delete="SET NULL", backref="+")
    #: When it last became scheduled (created active, activated, confirmed, rescheduled):
    #: scheduled times before it are not missed runs.
    activated_at = peewee.FloatField(null=True)
    #: The scheduled time of its latest run (or skip).
    last_scheduled_for = peewee.FloatField(null=True)
    last_run_at = peewee.FloatField(null=True)
    last_run_status = peewee.TextField(null=True)
    last_task_id = peewee.TextField(null=True)
    last_skip_at = peewee.FloatField(null=True)
    last_skip_reason = peewee.TextField(null=True)
    created_at = peewee.FloatField()
    updated_at = peewee.FloatField()

    class Meta:
        table_name = "cron"


class CronRunRecord(BaseModel):
    """One scheduled time of a cron and what became of it; unique per (cron, time)."""

    id = peewee.AutoField()
    cron = peewee.ForeignKeyField(CronRecord, on_delete="CASCADE", backref="+")
    #: The scheduled time (a timestamp), not when it actually started.
    scheduled_for = peewee.FloatField()
    #: starting, running, completed, failed, cancelled or skipped.
    status = peewee.TextField()
    task_id = peewee.TextField(null=True)
    skip_reason = peewee.TextField(null=True)
    error = peewee.TextField(null=True)
    #: Run at start-up for a time that passed while the process was down.
    missed = peewee.BooleanField(default=False)
    started_at = peewee.FloatField()
    ended_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "cron_run"


def id_of(row: peewee.Model, field: str) -> str | None:
    """A foreign key's raw value, without loading the row it points to."""
    value = row.__data__.get(field)
    return None if value is None else str(value)

"""Automatic backups: their schedule and each backup made."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.base import BaseModel


class BackupSettingsRecord(BaseModel):
    """The schedule of automatic backups (one row, ``id = 1``; absent: off, the defaults)."""

    id = peewee.IntegerField(primary_key=True)
    enabled = peewee.BooleanField(default=False)
    interval_hours = peewee.FloatField(default=24.0)
    keep = peewee.IntegerField(default=7)
    #: Where archives are written (``None``: ``backups/`` in the data directory).
    target_dir = peewee.TextField(null=True)
    #: The archives' passphrase, sealed under the master key (``None``: not set yet).
    passphrase_sealed = peewee.BlobField(null=True)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "backup_settings"


class BackupRunRecord(BaseModel):
    """One backup the server made, scheduled or asked for from Settings."""

    id = peewee.AutoField()
    trigger = peewee.TextField()
    #: ``running``, ``done`` or ``failed``.
    status = peewee.TextField()
    started_at = peewee.FloatField()
    finished_at = peewee.FloatField(null=True)
    file_name = peewee.TextField(null=True)
    size = peewee.IntegerField(null=True)
    error_code = peewee.TextField(null=True)

    class Meta:
        table_name = "backup_run"

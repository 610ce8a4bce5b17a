"""Inbound webhooks that turn requests into messages in a Kin's queue."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.accounts import User
from kinbot_core.db.models.base import BaseModel
from kinbot_core.db.models.kins import KinRecord


class WebhookRecord(BaseModel):
    """An inbound webhook: a secret URL whose requests become messages in a Kin's queue
    (``kinbot_core.webhooks``). Only a hash of its token is kept; its signing secret, if any,
    is sealed under the master key."""

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    #: The administrator's name for it ("Home Assistant"): the messages' sender and origin.
    name = peewee.TextField()
    #: SHA-256 of the token in its URL, hex.
    token_hash = peewee.TextField(unique=True)
    #: The HMAC key requests must be signed with, sealed (``None``: no signature asked).
    signing_secret_sealed = peewee.BlobField(null=True)
    max_body_bytes = peewee.IntegerField()
    enabled = peewee.BooleanField(default=True)
    created_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)
    last_received_at = peewee.FloatField(null=True)
    received_count = peewee.IntegerField(default=0)

    class Meta:
        table_name = "webhook"

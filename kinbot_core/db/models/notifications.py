"""Notifications: the instance's Web Push (VAPID) keys, browsers' push subscriptions and
people's notification preferences."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.accounts import User
from kinbot_core.db.models.base import BaseModel


class VapidKeyRecord(BaseModel):
    """The instance's VAPID key pair (one row): the public key as browsers take it
    (base64url of the uncompressed P-256 point), the private key sealed under the master key."""

    id = peewee.IntegerField(primary_key=True)
    public_key = peewee.TextField()
    private_sealed = peewee.BlobField()
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "vapid_key"


class PushSubscriptionRecord(BaseModel):
    """A browser (or installed app) of a person subscribed to Web Push. ``keys_sealed`` is its
    ``p256dh`` and ``auth`` keys (JSON), sealed under the master key."""

    id = peewee.TextField(primary_key=True)
    user = peewee.ForeignKeyField(User, on_delete="CASCADE", backref="+")
    endpoint = peewee.TextField(unique=True)
    keys_sealed = peewee.BlobField()
    device_label = peewee.TextField(default="")
    created_at = peewee.FloatField(default=time.time)
    last_success_at = peewee.FloatField(null=True)
    last_failure_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "push_subscription"


class NotificationPreferenceRecord(BaseModel):
    """When a person wants notifications (``always``, ``away``, ``never``) and by which route
    (``push``, or a route a channel plugin added)."""

    user = peewee.ForeignKeyField(User, primary_key=True, on_delete="CASCADE", backref="+")
    mode = peewee.TextField(default="always")
    route = peewee.TextField(default="push")
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "notification_preference"

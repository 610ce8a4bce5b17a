"""The peewee model of vault secrets (table created by migration 0012)."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models import BaseModel


class VaultSecretRecord(BaseModel):
    """A named secret. ``value_sealed`` is its value encrypted under the master key, bound to
    the row's ``id`` (so a sealed value copied to another row does not open)."""

    id = peewee.TextField(primary_key=True)
    key = peewee.TextField(unique=True)
    value_sealed = peewee.BlobField()
    description = peewee.TextField(default="")
    #: The administrator who created it (a user id; the user may since have gone).
    created_by = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)
    #: When a Kin last read it through ``get_secret``.
    last_used_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "vault_secret"


def sealing_context(secret_id: str) -> str:
    """What a secret's sealed value is bound to."""
    return f"vault:{secret_id}"


class PendingSecretRecord(BaseModel):
    """A secret detected in an incoming message (table created by migration 0016). The
    message's text holds ``[PENDING SECRET <number>]`` in its place; ``value_sealed`` is the
    value encrypted under the master key, bound to the row's ``id``."""

    id = peewee.TextField(primary_key=True)
    message_id = peewee.IntegerField()
    number = peewee.IntegerField()
    #: What it looks like (``GitHub Token``, ``Password``…), from the detector.
    kind = peewee.TextField()
    value_sealed = peewee.BlobField()
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "pending_secret"


def pending_sealing_context(pending_id: str) -> str:
    """What a pending secret's sealed value is bound to."""
    return f"pending_secret:{pending_id}"

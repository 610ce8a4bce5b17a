"""Provider usage: each call's record, the price table and monthly spending limits."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.base import BaseModel


class UsageRecord(BaseModel):
    """One provider call's usage (``kinbot_core.usage``): tokens or units, the model, whom the
    call was for and what it cost by the price table when it was recorded. Kins and people
    are kept as plain ids: the usage of a deleted Kin or person stays in the totals."""

    id = peewee.AutoField()
    created_at = peewee.FloatField(index=True)
    #: ``YYYY-MM-DD`` (UTC) of ``created_at``, for summaries by day.
    day = peewee.TextField()
    #: ``chat``, ``embedding``, ``image`` or ``search``.
    kind = peewee.TextField()
    #: The configured provider's name when the call was made.
    provider = peewee.TextField()
    model = peewee.TextField()
    kin_id = peewee.TextField(null=True)
    user_id = peewee.TextField(null=True)
    #: What started the work: ``user``, ``channel``, ``webhook``, ``kin``, ``cron``, ``task``,
    #: ``extraction``, ``compacting``, ``system`` or ``other``.
    origin = peewee.TextField()
    input_tokens = peewee.IntegerField(default=0)
    output_tokens = peewee.IntegerField(default=0)
    #: Images made or searches run (0 for token-priced calls).
    units = peewee.IntegerField(default=0)
    cost = peewee.FloatField(default=0.0)
    #: Whether the price table knew the model (else ``cost`` is 0 and the UI says so).
    priced = peewee.BooleanField(default=True)

    class Meta:
        table_name = "usage_record"


class ModelPrice(BaseModel):
    """What a model costs, in the instance's currency: per million input and output tokens,
    and per unit (an image, a search). Editable by administrators."""

    model = peewee.TextField(primary_key=True)
    input_per_million = peewee.FloatField(default=0.0)
    output_per_million = peewee.FloatField(default=0.0)
    per_unit = peewee.FloatField(default=0.0)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "model_price"


class UsageBudget(BaseModel):
    """A monthly spending limit of one person (``scope = 'user'``) or one Kin (``'kin'``):
    a warning at ``warn_percent`` (sent once a month: ``warned_month``), new turns refused
    at the limit."""

    id = peewee.TextField(primary_key=True)
    scope = peewee.TextField()
    target_id = peewee.TextField()
    monthly_limit = peewee.FloatField()
    warn_percent = peewee.IntegerField(default=80)
    #: ``YYYY-MM`` of the last warning sent.
    warned_month = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "usage_budget"
        indexes = ((("scope", "target_id"), True),)

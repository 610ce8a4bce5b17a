"""A Kin's own tools, and the rules and requests for a person's approval of tool calls."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.accounts import User
from kinbot_core.db.models.base import BaseModel
from kinbot_core.db.models.kins import KinRecord, MessageRecord


class CustomToolRecord(BaseModel):
    """A script of a Kin's workspace the Kin registered as one of its own tools."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    name = peewee.TextField()
    description = peewee.TextField()
    #: The JSON Schema of its arguments.
    parameters = peewee.TextField()
    #: The script, relative to the workspace.
    path = peewee.TextField()
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "custom_tool"


class ToolApprovalRuleRecord(BaseModel):
    """Whether a tool needs a person's approval (``mode = 'ask'``) or not (``'allow'``),
    platform-wide (``kin`` null) or for one Kin, whose rule wins (``kinbot_core.approvals``)."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, null=True, on_delete="CASCADE", backref="+")
    tool_name = peewee.TextField()
    mode = peewee.TextField()
    updated_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "tool_approval_rule"


class ToolApprovalRecord(BaseModel):
    """A Kin's tool call waiting for (or given) a person's decision. The turn of ``trigger``
    waits (its status ``waiting``) while it is ``pending``; a decision or its expiry queues
    that message again and the resumed turn runs or refuses the call."""

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    trigger = peewee.ForeignKeyField(MessageRecord, on_delete="CASCADE", backref="+")
    tool_call_id = peewee.TextField()
    tool_name = peewee.TextField()
    #: The call's arguments as JSON, vault values masked.
    arguments = peewee.TextField()
    #: Why a plugin asked (``NeedsApproval``); ``None`` for an administrator's rule.
    reason = peewee.TextField(null=True)
    #: The plugin that asked, if one did.
    asked_by = peewee.TextField(null=True)
    #: ``pending``, ``allowed`` (once), ``always`` (for this Kin), ``declined``, ``expired``.
    status = peewee.TextField(default="pending")
    decline_reason = peewee.TextField(null=True)
    decided_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    created_at = peewee.FloatField(default=time.time)
    expires_at = peewee.FloatField()
    decided_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "tool_approval"

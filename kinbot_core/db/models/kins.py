"""Kins, the messages of their sessions, their requests to one another, their members and
the files uploaded into their chats."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.accounts import User
from kinbot_core.db.models.base import BaseModel


class KinRecord(BaseModel):
    """A Kin: identity, expertise, model, tools, and its runtime state."""

    id = peewee.TextField(primary_key=True)
    name = peewee.TextField()
    role = peewee.TextField(default="")
    avatar_path = peewee.TextField(null=True)
    character = peewee.TextField(default="")
    expertise = peewee.TextField(default="")
    model = peewee.TextField()
    #: The model that extracts its long-term memories (``None``: the platform's choice).
    memory_extraction_model = peewee.TextField(null=True)
    #: The model that writes its compacting summaries (``None``: the platform's choice).
    compacting_model = peewee.TextField(null=True)
    tools = peewee.TextField(default="[]")
    workspace = peewee.TextField()
    state = peewee.TextField(default="idle")
    last_error = peewee.TextField(null=True)
    #: The error code of ``last_error`` (``kinbot_core.kins.meta.ERROR_CODES``).
    last_error_code = peewee.TextField(null=True)
    created_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)
    #: Set on the hidden row an ephemeral sub-Kin runs as: the task it works on.
    task_id = peewee.TextField(null=True)
    #: Whether its own code (custom tools) may reach the network, through the egress proxy.
    network_access = peewee.BooleanField(default=False)
    #: Who may use it: ``everyone``, ``members`` or ``private`` (``kinbot_core.kins.access``).
    access = peewee.TextField(default="everyone")

    class Meta:
        table_name = "kin"


class MessageRecord(BaseModel):
    """A message of a Kin's session. Incoming ones wait in the queue while ``queued``."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    role = peewee.TextField()
    source = peewee.TextField()
    sender_id = peewee.TextField(null=True)
    sender_name = peewee.TextField(null=True)
    content = peewee.TextField(default="")
    tool_calls = peewee.TextField(null=True)
    tool_call_id = peewee.TextField(null=True)
    is_error = peewee.BooleanField(default=False)
    status = peewee.TextField(default="done")
    priority = peewee.IntegerField(default=1)
    #: For messages a turn produced: the queued message that started the turn.
    turn_of = peewee.IntegerField(null=True)
    #: Place in the conversation the Kin had: set when a queued message is taken for a turn,
    #: or when a message is produced. A message still waiting in the queue has none.
    position = peewee.IntegerField(null=True)
    created_at = peewee.FloatField(default=time.time)
    processed_at = peewee.FloatField(null=True)
    #: Flagged for redaction (a secret to take out): never compacted until the flag is cleared.
    redaction_pending = peewee.BooleanField(default=False)
    #: For a message from another Kin: ``request``, ``inform`` or ``reply``.
    kin_message_type = peewee.TextField(null=True)
    #: The request a Kin message opens (``request``) or answers (``reply``).
    request_id = peewee.TextField(null=True)
    #: How many inter-Kin exchanges led to this message (1 for the first).
    chain_depth = peewee.IntegerField(null=True)
    #: The sub-Kin task the message comes from (a result, a report, a question) or answers.
    task_id = peewee.TextField(null=True)
    #: Files a user attached: a JSON list of upload ids (``None``: none).
    attachments = peewee.TextField(null=True)
    #: Structured facts for the UI, JSON (``kinbot_core.kins.meta``); ``None``: none.
    meta = peewee.TextField(null=True)
    #: Replaced by a retry: still shown, left out of the Kin's context.
    superseded = peewee.BooleanField(default=False)

    class Meta:
        table_name = "message"


class KinRequestRecord(BaseModel):
    """A request one Kin sent another: open until the recipient replies."""

    id = peewee.TextField(primary_key=True)
    from_kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    to_kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    status = peewee.TextField(default="open")
    chain_depth = peewee.IntegerField()
    created_at = peewee.FloatField(default=time.time)
    answered_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "kin_request"


class UploadRecord(BaseModel):
    """A file a user uploaded into a Kin's chat (stored under ``data_dir/uploads``)."""

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    uploaded_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    filename = peewee.TextField()
    mime_type = peewee.TextField()
    #: ``image``, ``audio``, ``pdf`` or ``document``.
    kind = peewee.TextField()
    size = peewee.IntegerField()
    #: The text given to the model (PDFs and documents), cut at ``upload_text_max_chars``.
    text = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "upload"


class KinMemberRecord(BaseModel):
    """A user allowed to use a restricted Kin (``kinbot_core.kins.access``)."""

    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    user = peewee.ForeignKeyField(User, on_delete="CASCADE", backref="+")

    class Meta:
        table_name = "kin_member"
        primary_key = peewee.CompositeKey("kin", "user")

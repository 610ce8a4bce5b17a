"""Messaging channel connections: the Kins they talk to, the accounts and chats they know,
the messages taken in and the deliveries to send."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.accounts import User
from kinbot_core.db.models.base import BaseModel
from kinbot_core.db.models.kins import KinRecord, MessageRecord
from kinbot_core.db.models.memory import ContactRecord


class ChannelConnectionRecord(BaseModel):
    """A messaging channel connection an administrator configured (a Telegram bot, say)."""

    id = peewee.TextField(primary_key=True)
    #: The channel type's ``name`` (a ``register_channels`` contribution).
    type = peewee.TextField()
    label = peewee.TextField()
    #: ``kinbot_core.schema_settings`` sealed JSON: plain values readable, secrets sealed.
    settings = peewee.TextField()
    enabled = peewee.BooleanField(default=True)
    #: ``stopped``, ``starting``, ``running``, ``retrying`` or ``failing``.
    state = peewee.TextField(default="stopped")
    #: The ``ChannelError`` code of the last failure (``None`` once it works again).
    last_error_code = peewee.TextField(null=True)
    last_error_at = peewee.FloatField(null=True)
    #: The platform position to resume receiving from (an update offset).
    cursor = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "channel_connection"


class ChannelBindingRecord(BaseModel):
    """A Kin a channel connection talks to (the first is where messages go by default)."""

    id = peewee.AutoField()
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    position = peewee.IntegerField()

    class Meta:
        table_name = "channel_binding"


class ChannelIdentityRecord(BaseModel):
    """A platform account linked to a KinBot user or to a Kin's contact."""

    id = peewee.TextField(primary_key=True)
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    #: The platform's id of the account (``Sender.id``).
    platform_user_id = peewee.TextField()
    display_name = peewee.TextField()
    user = peewee.ForeignKeyField(User, null=True, on_delete="CASCADE", backref="+")
    contact = peewee.ForeignKeyField(ContactRecord, null=True, on_delete="CASCADE", backref="+")
    #: The direct chat with the account, once known (where notifications go).
    chat_id = peewee.TextField(null=True)
    linked_by = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "channel_identity"


class ChannelPairingRecord(BaseModel):
    """An unknown sender waiting to be linked, with the one-time code it was sent (hashed)."""

    id = peewee.TextField(primary_key=True)
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    platform_user_id = peewee.TextField()
    display_name = peewee.TextField()
    chat_id = peewee.TextField()
    language = peewee.TextField(null=True)
    code_hash = peewee.TextField()
    created_at = peewee.FloatField(default=time.time)
    expires_at = peewee.FloatField()

    class Meta:
        table_name = "channel_pairing"


class ChannelChatRecord(BaseModel):
    """The Kin a chat chose (``/kin <name>``) among those its connection talks to."""

    id = peewee.AutoField()
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    chat_id = peewee.TextField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")

    class Meta:
        table_name = "channel_chat"


class ChannelInboundRecord(BaseModel):
    """A platform message already taken in (its idempotency key), and the Kin message it
    became."""

    id = peewee.AutoField()
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    platform_message_id = peewee.TextField()
    message = peewee.ForeignKeyField(MessageRecord, null=True, on_delete="SET NULL", backref="+")
    created_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "channel_inbound"


class ChannelDeliveryRecord(BaseModel):
    """Something to send to a chat of a connection: a Kin's reply to a message that came
    through it (``awaiting`` the reply, then ``pending``), or a notice. Parts already sent
    are counted so a restart sends only the rest."""

    id = peewee.AutoField()
    connection = peewee.ForeignKeyField(ChannelConnectionRecord, on_delete="CASCADE", backref="+")
    chat_id = peewee.TextField()
    kin = peewee.ForeignKeyField(KinRecord, null=True, on_delete="CASCADE", backref="+")
    #: The incoming message whose reply this is (``None`` for a notice).
    trigger = peewee.ForeignKeyField(MessageRecord, null=True, on_delete="CASCADE", backref="+")
    #: The platform message it answers (``IncomingMessage.message_id``).
    reply_to = peewee.TextField(null=True)
    #: ``awaiting``, ``pending``, ``sent`` or ``failed``.
    status = peewee.TextField()
    #: The Markdown to send (set once the reply is known).
    text = peewee.TextField(null=True)
    #: Files to send with it: a JSON list of upload ids.
    attachments = peewee.TextField(null=True)
    parts_sent = peewee.IntegerField(default=0)
    #: The platform's ids of what was sent, JSON.
    platform_ids = peewee.TextField(default="[]")
    attempts = peewee.IntegerField(default=0)
    next_attempt_at = peewee.FloatField(default=0)
    last_error_code = peewee.TextField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "channel_delivery"

"""peewee models of the base tables. Later areas define theirs beside their own code.

Every model is bound to ``database_proxy``, whose target is chosen per thread: each
``Database`` points it at itself in its own worker threads. So several databases can be open
in one process, and a query attempted on the event loop thread fails loudly instead of
stalling it.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import peewee


class ThreadBoundDatabaseProxy(peewee.DatabaseProxy):
    """A peewee database proxy resolved per thread."""

    __slots__ = ("_local",)

    def __init__(self) -> None:
        object.__setattr__(self, "_local", threading.local())
        super().__init__()

    @property
    def obj(self) -> Any:
        return getattr(self._local, "database", None)

    @obj.setter
    def obj(self, database: Any) -> None:
        self._local.database = database

    def __setattr__(self, attr: str, value: Any) -> None:
        object.__setattr__(self, attr, value)


database_proxy = ThreadBoundDatabaseProxy()


class BaseModel(peewee.Model):
    """The base of every KinBot model."""

    class Meta:
        database = database_proxy
        legacy_table_names = False


class User(BaseModel):
    """A person with an account; the first one created is the administrator."""

    id = peewee.TextField(primary_key=True)
    email = peewee.TextField(unique=True)
    first_name = peewee.TextField()
    last_name = peewee.TextField()
    pseudonym = peewee.TextField()
    language = peewee.TextField(default="en")
    password_hash = peewee.TextField()
    role = peewee.TextField(default="member")
    avatar_path = peewee.TextField(null=True)
    is_active = peewee.BooleanField(default=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)


class BrowserSession(BaseModel):
    """A signed-in browser; the cookie carries a token whose hash is ``id``."""

    id = peewee.TextField(primary_key=True)
    user = peewee.ForeignKeyField(User, backref="sessions", on_delete="CASCADE")
    created_at = peewee.FloatField(default=time.time)
    last_seen_at = peewee.FloatField(default=time.time)
    expires_at = peewee.FloatField()
    ip = peewee.TextField(null=True)
    user_agent = peewee.TextField(null=True)


class Setting(BaseModel):
    """A platform setting changed at runtime (JSON value)."""

    key = peewee.TextField(primary_key=True)
    value = peewee.TextField()
    updated_at = peewee.FloatField(default=time.time)

    @classmethod
    def put(cls, key: str, value: Any) -> None:
        """Store ``value`` (as JSON) under ``key``, replacing what was there (inside a write)."""
        text, now = json.dumps(value, sort_keys=True), time.time()
        cls.insert(key=key, value=text, updated_at=now).on_conflict(
            conflict_target=[cls.key], update={cls.value: text, cls.updated_at: now}
        ).execute()


class PluginState(BaseModel):
    """An administrator's choice to enable or disable a plugin, applied at every start."""

    name = peewee.TextField(primary_key=True)
    enabled = peewee.BooleanField()
    updated_at = peewee.FloatField(default=time.time)


class Invitation(BaseModel):
    """A one-time code that lets someone create an account; only its hash is stored."""

    id = peewee.TextField(primary_key=True)
    code_hash = peewee.TextField(unique=True)
    role = peewee.TextField(default="member")
    note = peewee.TextField(null=True)
    created_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    created_at = peewee.FloatField(default=time.time)
    expires_at = peewee.FloatField()
    used_at = peewee.FloatField(null=True)
    used_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL", backref="+")
    revoked_at = peewee.FloatField(null=True)


class ProviderRecord(BaseModel):
    """A configured provider. ``config_sealed`` is its configuration, encrypted whole."""

    id = peewee.TextField(primary_key=True)
    kind = peewee.TextField()
    type = peewee.TextField()
    name = peewee.TextField(unique=True)
    config_sealed = peewee.BlobField()
    #: The last characters of each secret field, to show them masked ("…abcd").
    secret_hints = peewee.TextField(default="{}")
    capabilities = peewee.TextField(default="[]")
    models = peewee.TextField(null=True)
    models_fetched_at = peewee.FloatField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "provider"


class OnboardingStep(BaseModel):
    """An onboarding step recorded as done or skipped (the optional ones)."""

    step = peewee.TextField(primary_key=True)
    state = peewee.TextField()
    updated_at = peewee.FloatField(default=time.time)


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


class ContactRecord(BaseModel):
    """Someone a Kin knows: a person or another Kin, with facts and preferences."""

    id = peewee.TextField(primary_key=True)
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    name = peewee.TextField()
    type = peewee.TextField()
    #: The user or Kin this contact is, when known.
    linked_id = peewee.TextField(null=True)
    relation = peewee.TextField(default="")
    notes = peewee.TextField(default="")
    facts = peewee.TextField(default="[]")
    preferences = peewee.TextField(default="[]")
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "contact"


class MemoryRecord(BaseModel):
    """A durable memory of a Kin: a fact, preference, decision or piece of knowledge."""

    id = peewee.AutoField()
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    content = peewee.TextField()
    category = peewee.TextField()
    #: Which contact or context the memory is about.
    subject = peewee.TextField(default="")
    source_message_id = peewee.IntegerField(null=True)
    #: The embedding model (and vector size) its vector was made with.
    embedding_model = peewee.TextField(null=True)
    dimension = peewee.IntegerField(null=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)
    #: Always injected into the Kin's prompt (within the budget, before the others).
    pinned = peewee.BooleanField(default=False)
    #: When a person archived it (``None``: in use): never injected nor recalled.
    archived_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "memory"


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


class PluginSettingsRecord(BaseModel):
    """A plugin's saved settings: ``SchemaSettings.seal`` output (secrets sealed inside)."""

    plugin = peewee.TextField(primary_key=True)
    stored = peewee.TextField()
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "plugin_settings"


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


class KinMemberRecord(BaseModel):
    """A user allowed to use a restricted Kin (``kinbot_core.kins.access``)."""

    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    user = peewee.ForeignKeyField(User, on_delete="CASCADE", backref="+")

    class Meta:
        table_name = "kin_member"
        primary_key = peewee.CompositeKey("kin", "user")


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


class MemoryUsageRecord(BaseModel):
    """How often a memory was injected into its Kin's prompt and recalled by the recall tool,
    and when last (written in batches, off the turns' path)."""

    memory = peewee.ForeignKeyField(
        MemoryRecord, primary_key=True, on_delete="CASCADE", backref="+"
    )
    kin = peewee.ForeignKeyField(KinRecord, on_delete="CASCADE", backref="+")
    injected_count = peewee.IntegerField(default=0)
    recalled_count = peewee.IntegerField(default=0)
    last_injected_at = peewee.FloatField(null=True)
    last_recalled_at = peewee.FloatField(null=True)

    class Meta:
        table_name = "memory_usage"

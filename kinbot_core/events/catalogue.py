"""The events the platform itself emits (specification section 13, plus plugin events)."""

from __future__ import annotations

from dataclasses import dataclass

from kinbot_core.events.event import Event


@dataclass(frozen=True, kw_only=True)
class KinCreated(Event):
    type = "kin.created"
    description = "A Kin was created."
    kin_id: str
    name: str


@dataclass(frozen=True, kw_only=True)
class KinDeleted(Event):
    type = "kin.deleted"
    description = "A Kin was deleted."
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class KinMessageReceived(Event):
    type = "kin.message.received"
    description = "A message entered a Kin's session (from a user, a Kin, a task or a cron)."
    kin_id: str
    message_id: str
    source: str


@dataclass(frozen=True, kw_only=True)
class MessageSecretDetected(Event):
    type = "message.secret.detected"
    description = (
        "Secrets were detected in an incoming message and hidden before it was stored; it "
        "waits (redaction_pending) for its Kin to store them in the Vault or a member to "
        "dismiss them."
    )
    kin_id: str
    message_id: str


@dataclass(frozen=True, kw_only=True)
class KinMessageSent(Event):
    type = "kin.message.sent"
    description = "A Kin finished a reply in its session."
    kin_id: str
    message_id: str


@dataclass(frozen=True, kw_only=True)
class KinMessageToKin(Event):
    type = "kin.message.to_kin"
    description = (
        "A Kin sent another Kin a message: ``kind`` is request or inform, ``request_id`` the "
        "request it opens or answers."
    )
    kin_id: str
    to_kin_id: str
    message_id: str
    kind: str
    request_id: str | None
    chain_depth: int


@dataclass(frozen=True, kw_only=True)
class KinMessageRefused(Event):
    type = "kin.message.refused"
    description = (
        "A Kin's message to another Kin was refused: ``reason`` is rate_limit or chain_depth."
    )
    kin_id: str
    to_kin_id: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class KinUpdated(Event):
    type = "kin.updated"
    description = "A Kin's settings were changed."
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class KinStateChanged(Event):
    type = "kin.state.changed"
    description = "A Kin started thinking, went idle, or entered the error state."
    kin_id: str
    state: str


@dataclass(frozen=True, kw_only=True)
class TaskSpawned(Event):
    type = "task.spawned"
    description = "A sub-Kin task was spawned."
    task_id: str
    parent_kin_id: str
    kin_id: str
    mode: str


@dataclass(frozen=True, kw_only=True)
class TaskStatusChanged(Event):
    type = "task.status.changed"
    description = "A task moved from one state to another."
    task_id: str
    previous: str
    status: str


@dataclass(frozen=True, kw_only=True)
class TaskCompleted(Event):
    type = "task.completed"
    description = "A task completed and reported to its parent."
    task_id: str


@dataclass(frozen=True, kw_only=True)
class TaskFailed(Event):
    type = "task.failed"
    description = "A task failed; ``error`` says why."
    task_id: str
    error: str


@dataclass(frozen=True, kw_only=True)
class CronCreated(Event):
    type = "cron.created"
    description = "A cron was created."
    cron_id: str
    kin_id: str
    name: str


@dataclass(frozen=True, kw_only=True)
class CronUpdated(Event):
    type = "cron.updated"
    description = "A cron was changed, activated, deactivated or confirmed."
    cron_id: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class CronDeleted(Event):
    type = "cron.deleted"
    description = "A cron was deleted."
    cron_id: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class CronSkipped(Event):
    type = "cron.skipped"
    description = (
        "A cron's scheduled time passed without a run; ``reason`` says why (a limit, its "
        "previous run still going, a plugin's veto, the missed-run policy)."
    )
    cron_id: str
    kin_id: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class CronTriggered(Event):
    type = "cron.triggered"
    description = "A cron fired."
    cron_id: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class CronExecutionCompleted(Event):
    type = "cron.execution.completed"
    description = "A cron's execution ended; ``status`` is completed or failed."
    cron_id: str
    task_id: str
    status: str


@dataclass(frozen=True, kw_only=True)
class ContactCreated(Event):
    type = "contact.created"
    description = "A Kin added a contact to its registry."
    contact_id: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class ContactUpdated(Event):
    type = "contact.updated"
    description = "A Kin updated a contact."
    contact_id: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class UserCreated(Event):
    type = "user.created"
    description = "A user account was created."
    user_id: str
    role: str


@dataclass(frozen=True, kw_only=True)
class UserLogin(Event):
    type = "user.login"
    description = "A user signed in."
    user_id: str


@dataclass(frozen=True, kw_only=True)
class UserLogout(Event):
    type = "user.logout"
    description = "A user signed out."
    user_id: str


@dataclass(frozen=True, kw_only=True)
class UserAccessChanged(Event):
    type = "user.access.changed"
    description = (
        "A user's sessions were ended (disabled, role lowered, password changed, removed): "
        "their open streams must close."
    )
    user_id: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ProviderAdded(Event):
    type = "provider.added"
    description = "A provider was configured."
    provider_id: str
    provider_type: str


@dataclass(frozen=True, kw_only=True)
class ProviderRemoved(Event):
    type = "provider.removed"
    description = "A provider was removed."
    provider_id: str


@dataclass(frozen=True, kw_only=True)
class ProviderError(Event):
    type = "provider.error"
    description = "A provider call failed; ``error`` is the user-readable message."
    provider_id: str
    error: str


@dataclass(frozen=True, kw_only=True)
class PluginError(Event):
    type = "plugin.error"
    description = "A plugin's hook or event handler raised or timed out and was isolated."
    plugin: str
    hook: str
    error: str


@dataclass(frozen=True, kw_only=True)
class PluginEnabled(Event):
    type = "plugin.enabled"
    description = "An administrator enabled a plugin."
    plugin: str


@dataclass(frozen=True, kw_only=True)
class PluginDisabled(Event):
    type = "plugin.disabled"
    description = "An administrator disabled a plugin."
    plugin: str


@dataclass(frozen=True, kw_only=True)
class PluginSettingsChanged(Event):
    type = "plugin.settings.changed"
    description = (
        "An administrator saved a plugin's settings (the names of the fields that changed)."
    )
    plugin: str
    fields: tuple[str, ...]


CORE_EVENTS: tuple[type[Event], ...] = (
    KinCreated,
    KinDeleted,
    KinMessageReceived,
    MessageSecretDetected,
    KinMessageSent,
    KinMessageToKin,
    KinMessageRefused,
    KinUpdated,
    KinStateChanged,
    TaskSpawned,
    TaskStatusChanged,
    TaskCompleted,
    TaskFailed,
    CronCreated,
    CronUpdated,
    CronDeleted,
    CronSkipped,
    CronTriggered,
    CronExecutionCompleted,
    ContactCreated,
    ContactUpdated,
    UserCreated,
    UserLogin,
    UserLogout,
    UserAccessChanged,
    ProviderAdded,
    ProviderRemoved,
    ProviderError,
    PluginError,
    PluginEnabled,
    PluginDisabled,
    PluginSettingsChanged,
)

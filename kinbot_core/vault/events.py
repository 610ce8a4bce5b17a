"""The events the Vault emits: identifiers and key names only, never a value."""

from __future__ import annotations

from dataclasses import dataclass

from kinbot_core.events.event import Event


@dataclass(frozen=True, kw_only=True)
class VaultSecretCreated(Event):
    type = "vault.secret.created"
    description = "An administrator added a secret to the Vault."
    key: str
    user_id: str | None


@dataclass(frozen=True, kw_only=True)
class VaultSecretUpdated(Event):
    type = "vault.secret.updated"
    description = "An administrator changed a Vault secret (its name, value or description)."
    key: str
    value_changed: bool
    user_id: str | None


@dataclass(frozen=True, kw_only=True)
class VaultSecretDeleted(Event):
    type = "vault.secret.deleted"
    description = "An administrator removed a secret from the Vault."
    key: str
    user_id: str | None


@dataclass(frozen=True, kw_only=True)
class VaultSecretRead(Event):
    type = "vault.secret.read"
    description = "A Kin read a Vault secret with get_secret."
    key: str
    kin_id: str


@dataclass(frozen=True, kw_only=True)
class MessageRedacted(Event):
    type = "message.redacted"
    description = (
        "A secret was taken out of a stored message (redact_message, or a detected secret "
        "moved into the Vault with store_secret)."
    )
    kin_id: str
    message_id: str


@dataclass(frozen=True, kw_only=True)
class MessageSecretDismissed(Event):
    type = "message.secret.dismissed"
    description = "A member said a secret detected in a message is not one: its text was restored."
    kin_id: str
    message_id: str
    user_id: str


VAULT_EVENTS: tuple[type[Event], ...] = (
    VaultSecretCreated,
    VaultSecretUpdated,
    VaultSecretDeleted,
    VaultSecretRead,
    MessageRedacted,
    MessageSecretDismissed,
)

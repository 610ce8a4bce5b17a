"""What the Vault shows of a secret (everything but its value), the errors its requests
raise, and a secret's row found by its key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import peewee

from kinbot_core.vault.masking import placeholder
from kinbot_core.vault.records import VaultSecretRecord


class VaultError(Exception):
    """A vault request that cannot be done. The message never holds a secret value."""

    code = "vault_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SecretNotFound(VaultError):
    code = "not_found"


class SecretKeyTaken(VaultError):
    code = "key_taken"


class SecretUnreadable(VaultError):
    """The secret's value was sealed under another master key (a backup restored without
    its key): an administrator enters it again, or puts the original key back."""

    code = "vault_secret_unreadable"


@dataclass(frozen=True)
class SecretView:
    """A secret as the API shows it: everything but the value."""

    id: str
    key: str
    description: str
    created_by: str | None
    created_at: float
    updated_at: float
    last_used_at: float | None
    #: False when this master key cannot open the value (see ``SecretUnreadable``).
    readable: bool = True

    @classmethod
    def of(cls, row: VaultSecretRecord, *, readable: bool = True) -> SecretView:
        return cls(
            id=row.id,
            key=row.key,
            description=row.description,
            created_by=row.created_by,
            created_at=row.created_at,
            updated_at=row.updated_at,
            last_used_at=row.last_used_at,
            readable=readable,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; ``value`` is always the mask, never the value."""
        return {**self.__dict__, "value": "********", "placeholder": placeholder(self.key)}


def secret_row(key: str) -> VaultSecretRecord:
    """The row of the secret named ``key``, or ``SecretNotFound``."""
    try:
        row: VaultSecretRecord = VaultSecretRecord.get(VaultSecretRecord.key == key)
    except peewee.DoesNotExist:
        raise SecretNotFound(f"There is no secret named {key}.") from None
    return row

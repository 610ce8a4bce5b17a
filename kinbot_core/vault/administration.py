"""Secrets as administrators manage them: listed, read (never their value), created,
renamed or given a new value or description, and deleted."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.events import EventBus
from kinbot_core.vault.events import VaultSecretCreated, VaultSecretDeleted, VaultSecretUpdated
from kinbot_core.vault.records import VaultSecretRecord, sealing_context
from kinbot_core.vault.rules import valid_description, valid_key, valid_value
from kinbot_core.vault.views import SecretKeyTaken, SecretNotFound, SecretView, secret_row

logger = logging.getLogger(__name__)


class SecretAdministration:
    """The administration of ``VaultService``, which mixes it in and holds what it uses."""

    _db: Database
    _bus: EventBus
    _lock: asyncio.Lock
    _values: dict[str, str]
    _retired: list[tuple[str, str]]
    _unreadable: set[str]

    if TYPE_CHECKING:

        def _refresh(self) -> None: ...

        def _box(self) -> SecretBox: ...

        @staticmethod
        def _open(box: SecretBox, row: VaultSecretRecord) -> str: ...

    async def list_all(self) -> list[SecretView]:
        """Every secret, by key (values left out)."""
        rows = await self._db.read(
            lambda: list(VaultSecretRecord.select().order_by(VaultSecretRecord.key))
        )
        return [self._view(row) for row in rows]

    async def get(self, key: str) -> SecretView:
        """One secret (value left out), or ``SecretNotFound``."""
        return self._view(await self._db.read(secret_row, key))

    def _view(self, row: VaultSecretRecord) -> SecretView:
        return SecretView.of(row, readable=row.key not in self._unreadable)

    async def create(
        self,
        key: str,
        value: str,
        description: str = "",
        *,
        created_by: str | None = None,
        along: Callable[[], None] | None = None,
    ) -> SecretView:
        """Store a new secret; ``SecretKeyTaken`` if the key exists. ``along`` runs in the
        same transaction, after the insert (on the writer thread); it may raise to undo it."""
        key, value = valid_key(key), valid_value(value)
        description = valid_description(description)
        secret_id = uuid.uuid4().hex
        sealed = self._box().seal(value.encode(), sealing_context(secret_id))

        def insert() -> VaultSecretRecord:
            if VaultSecretRecord.select().where(VaultSecretRecord.key == key).exists():
                raise SecretKeyTaken(f"A secret named {key} exists already.")
            now = time.time()
            row = VaultSecretRecord.create(
                id=secret_id,
                key=key,
                value_sealed=sealed,
                description=description,
                created_by=created_by,
                created_at=now,
                updated_at=now,
            )
            if along is not None:
                along()
            return row

        async with self._lock:
            row = await self._db.write(insert)
            self._values[key] = value
            self._refresh()
        self._bus.emit(VaultSecretCreated(key=key, user_id=created_by))
        logger.info("vault secret %s created", key)
        return self._view(row)

    async def update(
        self,
        key: str,
        *,
        new_key: str | None = None,
        value: str | None = None,
        description: str | None = None,
        user_id: str | None = None,
    ) -> SecretView:
        """Rename a secret, replace its value, or change its description. An unreadable
        secret (``SecretView.readable``) may be renamed or described; a new value makes it
        readable again."""
        target = valid_key(new_key) if new_key is not None else key
        if value is not None:
            value = valid_value(value)
        if description is not None:
            description = valid_description(description)
        box = self._box()

        def change() -> tuple[VaultSecretRecord, str | None]:
            row = secret_row(key)
            if target != key and (
                VaultSecretRecord.select().where(VaultSecretRecord.key == target).exists()
            ):
                raise SecretKeyTaken(f"A secret named {target} exists already.")
            current = value
            if current is None and row.key not in self._unreadable:
                current = self._open(box, row)
            row.key = target
            if value is not None:
                row.value_sealed = box.seal(value.encode(), sealing_context(row.id))
            if description is not None:
                row.description = description
            row.updated_at = time.time()
            row.save()
            return row, current

        async with self._lock:
            row, current = await self._db.write(change)
            former = self._values.pop(key, None)
            if former is not None and former != current:
                self._retired.append((key, former))
            if current is None:  # still unreadable, under its new name
                self._unreadable.discard(key)
                self._unreadable.add(target)
            else:
                self._unreadable.discard(key)
                self._values[target] = current
            self._refresh()
        self._bus.emit(
            VaultSecretUpdated(key=target, value_changed=value is not None, user_id=user_id)
        )
        logger.info("vault secret %s updated", target)
        return self._view(row)

    async def delete(self, key: str, *, user_id: str | None = None) -> None:
        """Remove a secret (``SecretNotFound`` if there is none)."""

        def remove() -> None:
            if not VaultSecretRecord.delete().where(VaultSecretRecord.key == key).execute():
                raise SecretNotFound(f"There is no secret named {key}.")

        async with self._lock:
            await self._db.write(remove)
            self._unreadable.discard(key)
            former = self._values.pop(key, None)
            if former is not None:
                self._retired.append((key, former))
            self._refresh()
        self._bus.emit(VaultSecretDeleted(key=key, user_id=user_id))
        logger.info("vault secret %s deleted", key)

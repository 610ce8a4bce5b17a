"""Channel connections an administrator configures: their type, label, settings (secrets
sealed with the instance's key, never shown) and the Kins they talk to.

The settings are validated against the channel type's ``settings_model`` through
``kinbot_core.schema_settings``; a change that leaves a secret empty or as shown keeps it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from kinbot_core.channels.types import ChannelType
from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import (
    ChannelBindingRecord,
    ChannelConnectionRecord,
    ChannelDeliveryRecord,
    KinRecord,
)
from kinbot_core.plugins import Registries
from kinbot_core.schema_settings import SchemaSettings, SettingsKeyChanged

MAX_LABEL_LENGTH = 100
#: Kins one connection may talk to.
MAX_BOUND_KINS = 20
#: Replies given up within this many days count as undelivered on their connection.
UNDELIVERED_DAYS = 7
#: What a connection may be doing: not running (disabled), waiting for its plugin, opening,
#: receiving, retrying after a failure, or failing (repeatedly, or until its settings change).
STATES = ("stopped", "unavailable", "starting", "running", "retrying", "failing")


class ChannelsError(Exception):
    """A request about channels that cannot be done. ``code`` is stable for clients;
    ``status`` is the HTTP status it answers with; ``message`` is for the log and the API."""

    code = "channel_error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConnectionNotFound(ChannelsError):
    code = "channel_not_found"
    status = 404


class ChannelTypeUnknown(ChannelsError):
    code = "channel_type_unknown"


class ConnectionInvalid(ChannelsError):
    """A label or a set of Kins that is not acceptable."""

    code = "channel_invalid"


def sealing_context(connection_id: str) -> str:
    """What a connection's secrets are sealed under (a copy in another row does not open)."""
    return f"channel-connection:{connection_id}"


@dataclass(frozen=True)
class ConnectionView:
    """A configured connection as Settings shows it (secrets as ``{"set": bool}``)."""

    id: str
    type: str
    label: str
    enabled: bool
    state: str
    last_error_code: str | None
    last_error_at: float | None
    kin_ids: tuple[str, ...]
    settings: dict[str, Any]
    created_at: float
    updated_at: float
    #: Replies given up in the last ``UNDELIVERED_DAYS`` days and not sent since (a person
    #: blocked the bot, say: the connection itself may well be running).
    undelivered: int = 0
    #: Why the latest of them was given up (``meta.undelivered``'s code).
    undelivered_code: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "kin_ids": list(self.kin_ids)}


class ConnectionService:
    """Create, change, list and remove configured connections (the runner starts them)."""

    def __init__(
        self, db: Database, registries: Registries, master_key: Callable[[], bytes]
    ) -> None:
        self._db = db
        self._registries = registries
        self._master_key = master_key

    def channel_type(self, name: str) -> ChannelType:
        """The registered channel type ``name``, or ``ChannelTypeUnknown``."""
        channel_type: ChannelType | None = self._registries.channels.get(name)
        if channel_type is None:
            raise ChannelTypeUnknown(f"No enabled plugin provides the channel type {name!r}.")
        return channel_type

    def _schema(self, type_name: str) -> SchemaSettings[BaseModel]:
        return SchemaSettings(self.channel_type(type_name).settings_model)

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())

    async def list_all(self) -> list[ConnectionView]:
        """Every connection, oldest first."""
        rows, bindings, undelivered = await self._db.read(_load_all, _undelivered_since())
        return [
            self._view(row, bindings.get(row.id, ()), undelivered.get(row.id, (0, None)))
            for row in rows
        ]

    async def get(self, connection_id: str) -> ConnectionView:
        """One connection, or ``ConnectionNotFound``."""
        row, kin_ids = await self._load(connection_id)
        undelivered = await self._db.read(_undelivered, _undelivered_since(), connection_id)
        return self._view(row, kin_ids, undelivered.get(connection_id, (0, None)))

    async def create(
        self,
        type_name: str,
        label: str,
        settings: Mapping[str, Any],
        kin_ids: Sequence[str],
        *,
        enabled: bool = True,
    ) -> ConnectionView:
        """Validate and store a new connection (``SettingsInvalid`` for bad settings)."""
        schema = self._schema(type_name)
        instance = schema.validate(settings)
        label = _label(label)
        kins = _kins(kin_ids)
        connection_id = uuid.uuid4().hex
        sealed = schema.seal(instance, self._box(), sealing_context(connection_id))

        def insert() -> None:
            _check_kins(kins)
            now = time.time()
            ChannelConnectionRecord.create(
                id=connection_id,
                type=type_name,
                label=label,
                settings=sealed,
                enabled=enabled,
                created_at=now,
                updated_at=now,
            )
            _bind(connection_id, kins)

        await self._db.write(insert)
        return await self.get(connection_id)

    async def update(
        self,
        connection_id: str,
        *,
        label: str | None = None,
        settings: Mapping[str, Any] | None = None,
        kin_ids: Sequence[str] | None = None,
        enabled: bool | None = None,
    ) -> ConnectionView:
        """Change what is given; ``settings`` is merged (a secret left empty is kept)."""
        row, _ = await self._load(connection_id)
        changes: dict[str, Any] = {}
        if label is not None:
            changes["label"] = _label(label)
        if enabled is not None:
            changes["enabled"] = enabled
        if settings is not None:
            schema = self._schema(row.type)
            try:
                merged = schema.merge(await self.settings_of(connection_id), settings)
            except SettingsKeyChanged:  # its secrets are entered again: the rest is kept
                merged = schema.merge(None, {**schema.plain_values(row.settings), **settings})
            changes["settings"] = schema.seal(merged, self._box(), sealing_context(connection_id))
            # New settings deserve a fresh start: an old failure says nothing of them.
            changes.update(last_error_code=None, last_error_at=None)
        kins = _kins(kin_ids) if kin_ids is not None else None

        def apply() -> None:
            if (
                not ChannelConnectionRecord.select()
                .where(ChannelConnectionRecord.id == connection_id)
                .exists()
            ):
                raise ConnectionNotFound("No such channel connection.")
            if kins is not None:
                _check_kins(kins)
                ChannelBindingRecord.delete().where(
                    ChannelBindingRecord.connection == connection_id
                ).execute()
                _bind(connection_id, kins)
            ChannelConnectionRecord.update(updated_at=time.time(), **changes).where(
                ChannelConnectionRecord.id == connection_id
            ).execute()

        await self._db.write(apply)
        return await self.get(connection_id)

    async def delete(self, connection_id: str) -> None:
        """Remove a connection with its identities, pairings and deliveries."""
        deleted = await self._db.write(
            lambda: (
                ChannelConnectionRecord.delete()
                .where(ChannelConnectionRecord.id == connection_id)
                .execute()
            )
        )
        if not deleted:
            raise ConnectionNotFound("No such channel connection.")

    async def settings_of(self, connection_id: str) -> BaseModel:
        """The connection's validated settings, secrets revealed (for opening it only)."""
        row, _ = await self._load(connection_id)
        return self._schema(row.type).open(
            row.settings, self._box(), sealing_context(connection_id)
        )

    async def secret_values(self, connection_id: str) -> list[str]:
        """The connection's secret values (for scrubbing them from the log)."""
        row, _ = await self._load(connection_id)
        schema = self._schema(row.type)
        opened = schema.open(row.settings, self._box(), sealing_context(connection_id))
        values = schema.raw_values(opened)
        return [str(values[name]) for name in schema.secret_fields if values.get(name)]

    async def set_state(self, connection_id: str, state: str, error_code: str | None) -> bool:
        """Record what the connection is doing (``error_code``: why it is not running);
        returns whether anything changed."""

        def apply() -> bool:
            row = ChannelConnectionRecord.get_or_none(ChannelConnectionRecord.id == connection_id)
            if row is None or (row.state, row.last_error_code) == (state, error_code):
                return False
            row.state = state
            if error_code is not None or state == "running":
                row.last_error_code = error_code
                row.last_error_at = time.time() if error_code else None
            row.save()
            return True

        changed: bool = await self._db.write(apply)
        return changed

    async def _load(self, connection_id: str) -> tuple[ChannelConnectionRecord, tuple[str, ...]]:
        def load() -> tuple[ChannelConnectionRecord, tuple[str, ...]] | None:
            row = ChannelConnectionRecord.get_or_none(ChannelConnectionRecord.id == connection_id)
            if row is None:
                return None
            return row, _bound_kins(connection_id)

        found = await self._db.read(load)
        if found is None:
            raise ConnectionNotFound("No such channel connection.")
        return found

    def _view(
        self,
        row: ChannelConnectionRecord,
        kin_ids: Sequence[str],
        undelivered: tuple[int, str | None] = (0, None),
    ) -> ConnectionView:
        channel_type: ChannelType | None = self._registries.channels.get(row.type)
        shown: dict[str, Any] = {}
        if channel_type is not None:
            schema = SchemaSettings(channel_type.settings_model)
            try:
                shown = schema.present(
                    schema.open(row.settings, self._box(), sealing_context(row.id))
                )
            except (ValueError, RuntimeError):  # unreadable or no longer valid: shown empty
                shown = schema.present(None)
        return ConnectionView(
            id=row.id,
            type=row.type,
            label=row.label,
            enabled=bool(row.enabled),
            state=row.state if row.enabled else "stopped",
            last_error_code=row.last_error_code,
            last_error_at=row.last_error_at,
            kin_ids=tuple(kin_ids),
            settings=shown,
            created_at=row.created_at,
            updated_at=row.updated_at,
            undelivered=undelivered[0],
            undelivered_code=undelivered[1],
        )


def _label(label: str) -> str:
    cleaned = " ".join(label.split())
    if not cleaned or len(cleaned) > MAX_LABEL_LENGTH:
        raise ConnectionInvalid(f"A name of 1 to {MAX_LABEL_LENGTH} characters is needed.")
    return cleaned


def _kins(kin_ids: Sequence[str]) -> list[str]:
    kins = list(dict.fromkeys(kin_ids))
    if not kins:
        raise ConnectionInvalid("A channel talks to at least one Kin.")
    if len(kins) > MAX_BOUND_KINS:
        raise ConnectionInvalid(f"A channel talks to {MAX_BOUND_KINS} Kins at most.")
    return kins


def _check_kins(kin_ids: Sequence[str]) -> None:
    found = {
        row.id
        for row in KinRecord.select(KinRecord.id).where(
            KinRecord.id.in_(list(kin_ids)) & KinRecord.task_id.is_null()
        )
    }
    missing = [kin_id for kin_id in kin_ids if kin_id not in found]
    if missing:
        raise ConnectionInvalid("A channel talks to existing Kins only.")


def _bind(connection_id: str, kin_ids: Sequence[str]) -> None:
    for position, kin_id in enumerate(kin_ids):
        ChannelBindingRecord.create(connection=connection_id, kin=kin_id, position=position)


def _bound_kins(connection_id: str) -> tuple[str, ...]:
    return tuple(
        row.__data__["kin"]
        for row in ChannelBindingRecord.select()
        .where(ChannelBindingRecord.connection == connection_id)
        .order_by(ChannelBindingRecord.position)
    )


def _load_all(
    undelivered_since: float,
) -> tuple[
    list[ChannelConnectionRecord],
    dict[str, tuple[str, ...]],
    dict[str, tuple[int, str | None]],
]:
    rows = list(ChannelConnectionRecord.select().order_by(ChannelConnectionRecord.created_at))
    bindings: dict[str, list[str]] = {}
    for binding in ChannelBindingRecord.select().order_by(ChannelBindingRecord.position):
        bindings.setdefault(binding.__data__["connection"], []).append(binding.__data__["kin"])
    return (
        rows,
        {key: tuple(value) for key, value in bindings.items()},
        _undelivered(undelivered_since),
    )


def _undelivered_since() -> float:
    return time.time() - UNDELIVERED_DAYS * 86400


def _undelivered(
    since: float, connection_id: str | None = None
) -> dict[str, tuple[int, str | None]]:
    """Per connection: how many deliveries were given up since ``since`` (and are still),
    and the code of the latest."""
    condition = (ChannelDeliveryRecord.status == "failed") & (
        ChannelDeliveryRecord.updated_at >= since
    )
    if connection_id is not None:
        condition &= ChannelDeliveryRecord.connection == connection_id
    found: dict[str, tuple[int, str | None]] = {}
    query = (
        ChannelDeliveryRecord.select(
            ChannelDeliveryRecord.connection,
            ChannelDeliveryRecord.last_error_code,
        )
        .where(condition)
        .order_by(ChannelDeliveryRecord.updated_at)
    )
    for row in query:
        connection: str = row.__data__["connection"]
        found[connection] = (found.get(connection, (0, None))[0] + 1, row.last_error_code)
    return found

"""Providers' configurations: validated, tested, stored encrypted under the master key, and
shown with their secrets as masked hints only."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from kinbot_core.config import Settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import ProviderRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import ProviderAdded, ProviderRemoved
from kinbot_core.events.catalogue import ProviderError as ProviderErrorEvent
from kinbot_core.plugins import Registries
from kinbot_core.providers.context_windows import ContextWindows
from kinbot_core.providers.detail import shown_detail
from kinbot_core.providers.errors import ProviderConfigError, ProviderError
from kinbot_core.providers.interfaces import Provider, ProviderType
from kinbot_core.providers.naming import default_name, name_taken, test_failed, valid_name
from kinbot_core.providers.redaction import (
    looks_secret,
    public_config,
    redact,
    secret_hints,
    without_address,
)
from kinbot_core.providers.resolution import dump_models, load_models
from kinbot_core.providers.types import ConnectionReport, ModelInfo

logger = logging.getLogger(__name__)

Kind = Literal["ai", "search"]
#: Which registry holds the types of each kind of provider.
REGISTRY_OF_KIND = {"ai": "providers", "search": "search_providers"}
#: The code of a provider whose settings this master key cannot open.
UNREADABLE = "provider_settings_unreadable"


@dataclass(frozen=True)
class ProviderView:
    """A configured provider as the API shows it: secrets only as masked hints."""

    id: str
    kind: str
    type: str
    name: str
    capabilities: tuple[str, ...]
    config: dict[str, Any]
    secrets: dict[str, str]
    models_fetched_at: float | None
    created_at: float
    #: Its settings were sealed under another master key (a backup restored without its
    #: key): they show empty, and the provider fails until they are entered again.
    unreadable: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "capabilities": list(self.capabilities)}


class ProviderConfigs:
    """The configuration half of ``ProviderService``, which mixes it in and holds what it
    uses."""

    _db: Database
    _bus: EventBus
    _registries: Registries
    _settings: Settings
    _master_key: Callable[[], bytes]
    _instances: dict[str, Provider]
    windows: ContextWindows

    if TYPE_CHECKING:

        def _changed(self) -> None: ...

        def _type(self, kind: Kind, name: str) -> ProviderType: ...

        async def instance(self, provider_id: str) -> Provider: ...

    async def configured(self, kind: Kind) -> list[ProviderView]:
        """Configured providers of one kind, oldest first."""
        rows = await self._db.read(
            lambda: list(
                ProviderRecord.select()
                .where(ProviderRecord.kind == kind)
                .order_by(ProviderRecord.created_at)
            )
        )
        return [self._view(row) for row in rows]

    async def get(self, provider_id: str, kind: Kind | None = None) -> ProviderView:
        """One configured provider, or ``ProviderConfigError`` (404 in the API)."""
        return self._view(await self._record(provider_id, kind))

    async def _record(self, provider_id: str, kind: Kind | None = None) -> ProviderRecord:
        row: ProviderRecord | None = await self._db.read(
            lambda: ProviderRecord.get_or_none(ProviderRecord.id == provider_id)
        )
        if row is None or (kind is not None and row.kind != kind):
            raise UnknownProvider("No such provider.")
        return row

    async def test_unsaved(
        self, kind: Kind, type_name: str, config: Mapping[str, Any]
    ) -> ConnectionReport:
        """Test a configuration before saving it (the onboarding screens)."""
        provider_type = self._type(kind, type_name)
        normalised = provider_type.validate_config(config)
        provider = provider_type.create(normalised, timeout=self._settings.llm_timeout_seconds)
        try:
            return await self._test(provider, normalised)
        finally:
            await provider.aclose()

    async def add(
        self, kind: Kind, type_name: str, name: str, config: Mapping[str, Any]
    ) -> ProviderView:
        """Validate, test and store a provider; its capabilities are those detected.

        Raises ``ProviderConfigError`` for an invalid configuration or a failed test.
        """
        provider_type = self._type(kind, type_name)
        normalised = provider_type.validate_config(config)
        name = valid_name(name)
        provider = provider_type.create(normalised, timeout=self._settings.llm_timeout_seconds)
        report = await self._test(provider, normalised)
        if not report.ok:
            await provider.aclose()
            raise test_failed(report)
        provider_id = uuid.uuid4().hex
        now = time.time()

        def insert() -> ProviderRecord:
            if ProviderRecord.select().where(ProviderRecord.name == name).exists():
                raise name_taken(name)
            return ProviderRecord.create(
                id=provider_id,
                kind=kind,
                type=type_name,
                name=name,
                config_sealed=self._seal(provider_id, normalised),
                secret_hints=json.dumps(secret_hints(provider_type, normalised)),
                capabilities=json.dumps(list(report.capabilities)),
                models=dump_models(report.models) if report.models else None,
                models_fetched_at=now if report.models else None,
                created_at=now,
                updated_at=now,
            )

        try:
            row = await self._db.write(insert)
        except BaseException:
            await provider.aclose()
            raise
        self._changed()
        self._instances[provider_id] = provider
        self._bus.emit(ProviderAdded(provider_id=provider_id, provider_type=type_name))
        return self._view(row)

    async def update(
        self,
        provider_id: str,
        *,
        kind: Kind,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> ProviderView:
        """Rename a provider and/or change its configuration (secrets left out are kept).

        A new configuration is tested, and the capabilities detected again.
        """
        row = await self._record(provider_id, kind)
        provider_type = self._type(kind, row.type)
        try:
            current = self._open(row)
        except ProviderConfigError as error:
            if error.code != UNREADABLE:
                raise
            current = {}  # entered again from scratch: nothing of the old settings is known
        changes_given = {k: v for k, v in (config or {}).items() if v is not None}
        secret_fields = {f.name for f in provider_type.config_fields if f.secret}
        moved = changes_given.get("base_url", current.get("base_url")) != current.get("base_url")
        if moved and any(current.get(name) for name in secret_fields - set(changes_given)):
            # A stored key is never sent to a new address without being given again.
            raise ProviderConfigError(
                "Give the API key again when changing the base URL.", code="provider_key_again"
            )
        merged = {**current, **changes_given}
        normalised = provider_type.validate_config(merged)
        new_name = valid_name(name) if name is not None else row.name
        changes: dict[str, Any] = {"name": new_name, "updated_at": time.time()}
        replacement: Provider | None = None
        if normalised != current:
            replacement = provider_type.create(
                normalised, timeout=self._settings.llm_timeout_seconds
            )
            report = await self._test(replacement, normalised)
            if not report.ok:
                await replacement.aclose()
                raise test_failed(report)
            changes.update(
                config_sealed=self._seal(provider_id, normalised),
                secret_hints=json.dumps(secret_hints(provider_type, normalised)),
                capabilities=json.dumps(list(report.capabilities)),
                models=dump_models(report.models) if report.models else None,
                models_fetched_at=time.time() if report.models else None,
            )

        def save() -> ProviderRecord:
            taken = ProviderRecord.select().where(
                (ProviderRecord.name == new_name) & (ProviderRecord.id != provider_id)
            )
            if taken.exists():
                raise name_taken(new_name)
            ProviderRecord.update(**changes).where(ProviderRecord.id == provider_id).execute()
            return ProviderRecord.get_by_id(provider_id)

        updated = await self._db.write(save)
        self._changed()
        self.windows.forget(provider_id)
        if replacement is not None:
            previous = self._instances.pop(provider_id, None)
            self._instances[provider_id] = replacement
            if previous is not None:
                await previous.aclose()
        return self._view(updated)

    async def remove(self, provider_id: str, *, kind: Kind) -> None:
        """Delete a provider and close its clients."""
        await self._record(provider_id, kind)
        await self._db.write(
            lambda: ProviderRecord.delete().where(ProviderRecord.id == provider_id).execute()
        )
        self._changed()
        self.windows.forget(provider_id)
        instance = self._instances.pop(provider_id, None)
        if instance is not None:
            await instance.aclose()
        self._bus.emit(ProviderRemoved(provider_id=provider_id))

    async def test(self, provider_id: str, *, kind: Kind | None = None) -> ConnectionReport:
        """Test a stored provider now."""
        row = await self._record(provider_id, kind)
        provider = await self.instance(provider_id)
        self.windows.forget(provider_id)
        return await self._test(provider, self._open(row))

    async def models(
        self, provider_id: str, *, kind: Kind | None = None, refresh: bool = False
    ) -> list[ModelInfo]:
        """The provider's models, from the cache unless ``refresh`` or never fetched."""
        row = await self._record(provider_id, kind)
        if row.models is not None and not refresh:
            return load_models(row.models)
        provider = await self.instance(provider_id)
        listed: list[ModelInfo] = []
        try:
            if provider.llm is not None:
                listed += await provider.llm.list_models()
            if provider.embedding is not None:
                listed += await provider.embedding.list_models()
        except ProviderError as error:
            self._report(provider_id, error, self._open(row))
            raise self._sanitised(error, self._open(row)) from None
        await self._db.write(
            lambda: (
                ProviderRecord.update(models=dump_models(listed), models_fetched_at=time.time())
                .where(ProviderRecord.id == provider_id)
                .execute()
            )
        )
        return listed

    async def _test(self, provider: Provider, config: Mapping[str, Any]) -> ConnectionReport:
        """Test ``provider``. A failure keeps its parameters (secrets masked), and the
        provider's own words as ``params["detail"]``, without secrets or addresses of this
        machine's network (``shown_detail``)."""
        try:
            report = await provider.test_connection()
        except ProviderError as error:
            sanitised = self._sanitised(error, config)
            detail = shown_detail(sanitised.detail)
            params = {
                key: redact(value, config) if isinstance(value, str) else value
                for key, value in error.params.items()
                if key != "detail"
            }
            return ConnectionReport(
                ok=False,
                message=sanitised.message,
                code=error.code,
                params={**params, "detail": detail} if detail else params,
            )
        params = {
            key: redact(value, config) if isinstance(value, str) else value
            for key, value in report.params.items()
        }
        if isinstance(params.get("detail"), str):
            detail = shown_detail(without_address(str(params.pop("detail")), config))
            params.update({"detail": detail} if detail else {})
        return ConnectionReport(
            ok=report.ok,
            capabilities=report.capabilities,
            message=redact(report.message, config),
            models=report.models,
            code=report.code,
            params=params,
        )

    def _report(
        self,
        provider_id: str,
        error: ProviderError,
        config: Mapping[str, Any],
        retrying: bool = False,
    ) -> None:
        message = redact(error.message, config)
        logger.warning("provider %s: %s%s", provider_id, message, " (retrying)" if retrying else "")
        self._bus.emit(ProviderErrorEvent(provider_id=provider_id, error=message))

    def _sanitised(self, error: ProviderError, config: Mapping[str, Any]) -> ProviderError:
        error.message = redact(error.message, config)
        error.args = (error.message,)
        if error.detail:  # shown to members as the provider's words: no address of ours
            error.detail = without_address(redact(error.detail, config), config)
        return error

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())

    def _seal(self, provider_id: str, config: Mapping[str, Any]) -> bytes:
        return self._box().seal(json.dumps(dict(config)).encode(), f"provider:{provider_id}")

    def _open(self, row: ProviderRecord) -> dict[str, Any]:
        """The provider's settings; ``ProviderConfigError`` (``UNREADABLE``) when they were
        sealed under another master key."""
        try:
            opened: dict[str, Any] = json.loads(
                self._box().open(row.config_sealed, f"provider:{row.id}")
            )
        except DecryptionError:
            raise ProviderConfigError(
                f"The settings of provider {row.name} were sealed under another master key "
                "(a backup restored without its key): enter them again, or put the original "
                "key back.",
                code="provider_settings_unreadable",
                params={"provider": row.name},
            ) from None
        return opened

    def _view(self, row: ProviderRecord) -> ProviderView:
        provider_type = self._registries[REGISTRY_OF_KIND[row.kind]].get(row.type)
        secret_names = (
            {f.name for f in provider_type.config_fields if f.secret} if provider_type else set()
        )
        try:
            config, unreadable = self._open(row), False
        except ProviderConfigError as error:
            if error.code != UNREADABLE:
                raise
            config, unreadable = {}, True
        return ProviderView(
            id=row.id,
            kind=row.kind,
            type=row.type,
            name=row.name,
            capabilities=tuple(json.loads(row.capabilities)),
            config=public_config(
                {k: v for k, v in config.items() if k not in secret_names and not looks_secret(k)}
            ),
            # Worded again from the key (the stored hints are those of when it was saved).
            secrets={}
            if unreadable
            else secret_hints(provider_type, config)
            if provider_type
            else json.loads(row.secret_hints),
            models_fetched_at=row.models_fetched_at,
            created_at=row.created_at,
            unreadable=unreadable,
        )


__all__ = ["Kind", "ProviderConfigs", "ProviderView", "UnknownProvider", "default_name"]


class UnknownProvider(ProviderConfigError):
    """No provider with that id (of that kind)."""

    code = "not_found"

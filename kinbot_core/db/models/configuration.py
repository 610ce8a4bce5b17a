"""What administrators configure: platform settings, plugins, providers and onboarding."""

from __future__ import annotations

import json
import time
from typing import Any

import peewee

from kinbot_core.db.models.base import BaseModel


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


class PluginSettingsRecord(BaseModel):
    """A plugin's saved settings: ``SchemaSettings.seal`` output (secrets sealed inside)."""

    plugin = peewee.TextField(primary_key=True)
    stored = peewee.TextField()
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "plugin_settings"

"""peewee models of the base tables. Later areas define theirs beside their own code.

Every model is bound to ``database_proxy``, which ``Database.open`` points at the open
database: one open database per process at a time.
"""

from __future__ import annotations

import time

import peewee

database_proxy = peewee.DatabaseProxy()


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


class PluginState(BaseModel):
    """An administrator's choice to enable or disable a plugin, applied at every start."""

    name = peewee.TextField(primary_key=True)
    enabled = peewee.BooleanField()
    updated_at = peewee.FloatField(default=time.time)

"""People's accounts, their signed-in browsers and the invitations that create accounts."""

from __future__ import annotations

import time

import peewee

from kinbot_core.db.models.base import BaseModel


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

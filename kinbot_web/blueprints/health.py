"""``GET /api/health``: is the server up, is the database usable, which plugins run, and
what each messaging channel connection is doing."""

from __future__ import annotations

import logging

from pydantic import BaseModel
from quart import Blueprint
from quart_schema import validate_response

from kinbot_core import __version__
from kinbot_web.app_context import current_platform
from kinbot_web.auth import public

logger = logging.getLogger(__name__)
blueprint = Blueprint("health", __name__)


class DatabaseHealth(BaseModel):
    ok: bool
    driver: str | None = None
    sqlite_version: str | None = None
    sqlite_vec_version: str | None = None
    fts5: bool | None = None
    journal_mode: str | None = None
    migrations: list[str] = []
    error: str | None = None


class PluginHealth(BaseModel):
    """Public, so names and states only: versions and load errors are for administrators."""

    name: str
    enabled: bool


class ChannelHealth(BaseModel):
    """A messaging channel connection: its type and what it is doing, for monitoring (no
    name, no setting)."""

    id: str
    type: str
    #: ``running``, ``starting``, ``retrying``, ``failing``, ``stopped`` or ``unavailable``.
    state: str
    #: Why it is retrying or failing (``channel_auth_failed``, ``channel_unavailable``…).
    error_code: str | None = None


class BackupHealth(BaseModel):
    """The last good backup the server made (scheduled or asked for): when and how big.
    Never where: a path says too much about the machine."""

    last_at: float | None = None
    last_size_bytes: int | None = None


class Health(BaseModel):
    status: str
    version: str
    database: DatabaseHealth
    plugins: list[PluginHealth]
    channels: list[ChannelHealth] = []
    backup: BackupHealth = BackupHealth()


@blueprint.get("/api/health")
@public
@validate_response(Health, 200)
@validate_response(Health, 503)
async def health() -> tuple[Health, int]:
    """Report the server's health; 503 when the database cannot be queried."""
    platform = current_platform()
    try:
        info = await platform.db.info()
        database = DatabaseHealth(ok=True, **info.__dict__)
    except Exception:
        logger.exception("health check: database unavailable")
        database = DatabaseHealth(ok=False, error="the database cannot be queried")
    plugins = [PluginHealth(name=p.name, enabled=p.enabled) for p in platform.list_plugins()]
    channels: list[ChannelHealth] = []
    backup = BackupHealth()
    if database.ok:
        channels = [ChannelHealth(**entry) for entry in await platform.channels.health()]
        last = await platform.backups.last_success()
        if last is not None:
            backup = BackupHealth(last_at=last[0], last_size_bytes=last[1])
    status = "ok" if database.ok else "error"
    health = Health(
        status=status,
        version=__version__,
        database=database,
        plugins=plugins,
        channels=channels,
        backup=backup,
    )
    return health, (200 if database.ok else 503)

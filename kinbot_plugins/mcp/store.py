"""The MCP servers administrators configure, and which Kin may use which server.

Environment variables (stdio) and headers (Streamable HTTP) often hold credentials: they are
sealed under the master key, and shown back only as ``********`` (a ``${vault:KEY}``
reference, which holds no secret, is shown as written).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import peewee

from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.db.models import BaseModel, KinRecord

Transport = Literal["stdio", "http"]
MASK = "********"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
VAULT_REFERENCE = re.compile(r"\$\{vault:([A-Za-z0-9_.-]+)\}")


class McpServerRecord(BaseModel):
    """A configured MCP server (table ``mcp_server``, migration 0014)."""

    id = peewee.TextField(primary_key=True)
    name = peewee.TextField(unique=True)
    transport = peewee.TextField()
    command = peewee.TextField(null=True)
    args = peewee.TextField(default="[]")
    url = peewee.TextField(null=True)
    sealed_secrets = peewee.BlobField(null=True)
    enabled = peewee.BooleanField(default=True)
    created_at = peewee.FloatField(default=time.time)
    updated_at = peewee.FloatField(default=time.time)

    class Meta:
        table_name = "mcp_server"


class KinMcpServerRecord(BaseModel):
    """A Kin may use an MCP server's tools (table ``kin_mcp_server``)."""

    kin = peewee.ForeignKeyField(KinRecord, column_name="kin_id", on_delete="CASCADE")
    server = peewee.ForeignKeyField(McpServerRecord, column_name="server_id", on_delete="CASCADE")

    class Meta:
        table_name = "kin_mcp_server"
        primary_key = peewee.CompositeKey("kin", "server")


class McpConfigError(Exception):
    """An invalid server configuration or assignment; the message says what to fix."""

    code = "invalid_mcp_server"


class McpServerNameTaken(McpConfigError):
    """Another MCP server already has this name (names are compared ignoring case)."""

    code = "mcp_server_name_taken"

    def __init__(self, name: str) -> None:
        super().__init__(f"An MCP server is already named {name!r}.")
        self.name = name


class McpServerNotFound(McpConfigError):
    """No MCP server has this id."""

    code = "not_found"


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server's full configuration (secrets in clear: never send this to a client)."""

    id: str
    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    created_at: float = 0.0
    #: Its ``env`` and ``headers`` were sealed under another master key (a backup restored
    #: without its key): they read empty, and the server is not started until saved again.
    unreadable: bool = False

    def scrub(self, text: str) -> str:
        """``text`` (an error message, say) without this server's secret values."""
        secrets = [*self.env.values(), *self.headers.values()]
        if self.url and "?" in self.url:
            secrets.append(self.url.split("?", 1)[1])
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= 4:
                text = text.replace(secret, MASK)
        return text

    def public(self) -> dict[str, Any]:
        """The configuration as an administrator sees it: secret values masked."""
        return {
            "command": self.command,
            "args": list(self.args),
            "url": self.url,
            "env": {key: _masked(value) for key, value in self.env.items()},
            "headers": {key: _masked(value) for key, value in self.headers.items()},
        }


def _masked(value: str) -> str:
    return value if VAULT_REFERENCE.fullmatch(value) else MASK


def validated(fields: Mapping[str, Any], previous: ServerConfig | None = None) -> ServerConfig:
    """A configuration built from the API's fields (over ``previous`` for an update).

    A masked value (``********``) in ``env`` or ``headers`` keeps the stored value of that key.
    Raises ``McpConfigError``.
    """
    base = previous or ServerConfig(id=str(uuid.uuid4()), name="", transport="stdio")
    changes = {key: value for key, value in fields.items() if value is not None}
    for key in ("env", "headers"):
        if key in changes:
            kept = getattr(base, key)
            changes[key] = {
                name: kept.get(name, "") if value == MASK else value
                for name, value in dict(changes[key]).items()
            }
            if any(value == "" for value in changes[key].values()):
                raise McpConfigError(f"A {key} value is empty (or masked without a stored value).")
    if "args" in changes:
        changes["args"] = tuple(changes["args"])
    config = replace(base, **changes, unreadable=False)
    if not NAME.fullmatch(config.name):
        raise McpConfigError(
            "The name must be 1 to 32 letters, digits, '-' or '_' (it prefixes the tool names)."
        )
    if config.transport == "stdio":
        if not (config.command or "").strip():
            raise McpConfigError("A stdio server needs the command that starts it.")
        bad = [name for name in config.env if not ENV_NAME.fullmatch(name)]
        if bad:
            raise McpConfigError(f"Invalid environment variable name(s): {', '.join(bad)}.")
        config = replace(config, url=None, headers={})
    elif config.transport == "http":
        url = (config.url or "").strip()
        if not re.match(r"^https?://[^\s/]+", url):
            raise McpConfigError("A Streamable HTTP server needs an http:// or https:// URL.")
        bad = [name for name in config.headers if not HEADER_NAME.fullmatch(name)]
        if bad:
            raise McpConfigError(f"Invalid header name(s): {', '.join(bad)}.")
        config = replace(config, url=url, command=None, args=(), env={})
    else:
        raise McpConfigError("The transport must be 'stdio' or 'http'.")
    return config


class McpStore:
    """Reads and writes the ``mcp_server`` and ``kin_mcp_server`` tables."""

    def __init__(self, db: Database, master_key: bytes) -> None:
        self._db = db
        self._box = SecretBox(master_key)

    async def all(self) -> list[ServerConfig]:
        """Every configured server, oldest first."""
        rows = await self._db.read(
            lambda: list(McpServerRecord.select().order_by(McpServerRecord.created_at))
        )
        return [self._config(row) for row in rows]

    async def get(self, server_id: str) -> ServerConfig:
        """One server, or ``McpServerNotFound``."""
        row = await self._db.read(lambda: McpServerRecord.get_or_none(id=server_id))
        if row is None:
            raise McpServerNotFound("No such MCP server.")
        return self._config(row)

    async def save(self, config: ServerConfig, *, new: bool) -> ServerConfig:
        """Insert or update ``config``; ``McpServerNameTaken`` when the name is taken."""

        def write() -> None:
            clash = McpServerRecord.select().where(
                (peewee.fn.lower(McpServerRecord.name) == config.name.lower())
                & (McpServerRecord.id != config.id)
            )
            if clash.exists():
                raise McpServerNameTaken(config.name)
            now = time.time()
            values = {
                "name": config.name,
                "transport": config.transport,
                "command": config.command,
                "args": json.dumps(list(config.args)),
                "url": config.url,
                "sealed_secrets": self._seal(config),
                "enabled": config.enabled,
                "updated_at": now,
            }
            if new:
                McpServerRecord.insert(id=config.id, created_at=now, **values).execute()
            else:
                McpServerRecord.update(**values).where(McpServerRecord.id == config.id).execute()

        await self._db.write(write)
        return await self.get(config.id)

    async def delete(self, server_id: str) -> None:
        """Remove a server and its assignments; ``McpServerNotFound`` if unknown."""
        deleted = await self._db.write(
            lambda: McpServerRecord.delete().where(McpServerRecord.id == server_id).execute()
        )
        if not deleted:
            raise McpServerNotFound("No such MCP server.")

    async def servers_of(self, kin_id: str) -> list[str]:
        """The ids of the servers a Kin may use."""

        rows = self._db.read_kept(  # every turn asks
            "select s.id from mcp_server s join kin_mcp_server k on k.server_id = s.id "
            "where k.kin_id = ? order by s.created_at",
            (kin_id,),
            [("kin_mcp_server", kin_id), ("mcp_server", None)],
        )
        return [str(row[0]) for row in rows]

    async def assign(self, kin_id: str, server_ids: list[str]) -> list[str]:
        """Replace the servers a Kin may use; ``McpServerNotFound`` names an unknown id."""

        def write() -> list[str]:
            wanted = list(dict.fromkeys(server_ids))
            known = {
                row.id
                for row in McpServerRecord.select(McpServerRecord.id).where(
                    McpServerRecord.id.in_(wanted)
                )
            }
            unknown = [server_id for server_id in wanted if server_id not in known]
            if unknown:
                raise McpServerNotFound(f"No MCP server has the id {unknown[0]!r}.")
            KinMcpServerRecord.delete().where(KinMcpServerRecord.kin == kin_id).execute()
            for server_id in wanted:
                KinMcpServerRecord.insert(kin=kin_id, server=server_id).execute()
            return wanted

        return await self._db.write(write)

    def _seal(self, config: ServerConfig) -> bytes:
        secrets = json.dumps({"env": config.env, "headers": config.headers}).encode()
        return self._box.seal(secrets, f"mcp_server:{config.id}")

    def _config(self, row: McpServerRecord) -> ServerConfig:
        secrets: dict[str, dict[str, str]] = {"env": {}, "headers": {}}
        unreadable = False
        if row.sealed_secrets:
            try:
                opened = self._box.open(bytes(row.sealed_secrets), f"mcp_server:{row.id}")
                secrets = json.loads(opened)
            except DecryptionError:  # kept as it is until an administrator saves it again
                unreadable = True
        return ServerConfig(
            id=row.id,
            name=row.name,
            transport="http" if row.transport == "http" else "stdio",
            command=row.command,
            args=tuple(json.loads(row.args)),
            url=row.url,
            env=dict(secrets.get("env", {})),
            headers=dict(secrets.get("headers", {})),
            enabled=bool(row.enabled),
            created_at=row.created_at,
            unreadable=unreadable,
        )

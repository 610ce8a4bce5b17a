"""Every configured MCP server of one platform: their connections and their tools for Kins."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import weakref
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kinbot_core.events import Event
from kinbot_core.events.catalogue import PluginDisabled
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.mcp.shared import CallFailed, Timeouts, ToolInfo
from kinbot_plugins.mcp.store import VAULT_REFERENCE, McpConfigError, McpStore, ServerConfig

if TYPE_CHECKING:
    import mcp_types

    from kinbot_plugins.mcp.connection import ServerConnection

logger = logging.getLogger(__name__)
#: A server's ``error_code`` while its secrets cannot be opened (another master key).
UNREADABLE = "mcp_settings_unreadable"

#: What provider APIs accept as a tool name.
_TOOL_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_TOOL_NAME_MAX = 64
#: How long a turn's start waits for a server still making its first connection.
FIRST_CONNECTION_WAIT = 1.5
#: The plugin's entry point name: when an administrator disables it, the servers stop.
PLUGIN_NAME = "mcp"


def tool_name(server: str, tool: str) -> str:
    """``<server>__<tool>`` within the provider rule ``^[a-zA-Z0-9_-]{1,64}$`` (a long name is
    cut and made unique again by a short hash of the full name)."""
    name = _TOOL_NAME_CHARS.sub("_", f"{server}__{tool}")
    if len(name) <= _TOOL_NAME_MAX:
        return name
    digest = hashlib.sha256(f"{server}__{tool}".encode()).hexdigest()[:8]
    return f"{name[: _TOOL_NAME_MAX - 9]}_{digest}"


class McpTool:
    """One tool of an MCP server, as a Kin's tool (namespaced by its server's name)."""

    prompt_hint = ""

    def __init__(self, manager: McpManager, server: ServerConfig, info: ToolInfo) -> None:
        self._manager = manager
        self.server_id = server.id
        self.server_name = server.name
        self.tool = info.name
        self.name = tool_name(server.name, info.name)
        self.description = f"[MCP server {server.name}] {info.description}".strip()
        self.parameters = info.input_schema

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        """Call the tool on its server; failures come back as ``ToolError``."""
        connection = self._manager.connections.get(self.server_id)
        if connection is None:
            raise ToolError(f"The MCP server {self.server_name!r} is no longer configured.")
        try:
            result = await connection.call(self.tool, dict(arguments or {}))
        except CallFailed as failed:
            raise ToolError(str(failed)) from None
        text = result_text(result)
        if result.is_error:
            raise ToolError(text or f"The tool {self.tool} failed.")
        return text


def result_text(result: mcp_types.CallToolResult) -> str:
    """A tool result as text for the model (other content kinds are named, not inlined)."""
    import mcp_types  # loaded with the connection that gave the result

    parts: list[str] = []
    for item in result.content:
        if isinstance(item, mcp_types.TextContent):
            parts.append(item.text)
        elif isinstance(item, mcp_types.ImageContent | mcp_types.AudioContent):
            parts.append(f"[{item.type} content, {item.mime_type}]")
        elif isinstance(item, mcp_types.ResourceLink):
            parts.append(f"[resource {item.uri}]")
        elif isinstance(item, mcp_types.EmbeddedResource):
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {resource.uri}]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, default=str))
    return "\n".join(parts)


class McpManager:
    """The connections of one platform's MCP servers, kept in step with the store."""

    def __init__(self, platform: Any) -> None:
        self.platform = platform
        self.connections: dict[str, ServerConnection] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._store: McpStore | None = None
        self._started = False
        self._watching = False
        self._lock = asyncio.Lock()

    @property
    def store(self) -> McpStore:
        """The server configurations (the platform's database and master key)."""
        if self._store is None:
            self._store = McpStore(self.platform.db, self.platform.master_key)
        return self._store

    def timeouts(self) -> Timeouts:
        settings = self.platform.settings
        return Timeouts(
            connect=settings.mcp_connect_timeout_seconds,
            call=settings.mcp_call_timeout_seconds,
            health_interval=settings.mcp_health_interval_seconds,
            reconnect_max=settings.mcp_reconnect_max_seconds,
        )

    async def start(self) -> None:
        """Connect every enabled server (once, until ``stop``)."""
        self._watch_plugin_state()
        async with self._lock:
            if self._started:
                return
            self._started = True
            for config in await self.store.all():
                self._connect(config)

    def _watch_plugin_state(self) -> None:
        # Subscribed as the core, not as the plugin: a disabled plugin's own subscriptions are
        # dropped before the bus tells anyone it was disabled.
        if not self._watching:
            self._watching = True
            self.platform.bus.on(PluginDisabled, self._plugin_disabled)

    def _plugin_disabled(self, event: Event) -> None:
        if isinstance(event, PluginDisabled) and event.plugin == PLUGIN_NAME:
            self.platform.spawn(self.stop(), name="mcp:stop")

    async def sync(self, server_id: str) -> None:
        """Follow a change of one server's configuration: reconnect, connect or drop it."""
        await self.start()
        async with self._lock:
            await self._drop(server_id)
            with contextlib.suppress(McpConfigError):
                self._connect(await self.store.get(server_id))

    def reconnect(self, server_id: str) -> bool:
        """Reconnect a server now; ``False`` when it has no connection (disabled)."""
        connection = self.connections.get(server_id)
        if connection is None:
            return False
        connection.reconnect()
        return True

    def status(self, config: ServerConfig) -> dict[str, Any]:
        """A server's health for the API."""
        connection = self.connections.get(config.id)
        if connection is None and config.unreadable and config.enabled:
            return {"state": "failed", "error_code": UNREADABLE, "error_params": {}, "tools": []}
        if connection is None:
            return {"state": "disabled" if not config.enabled else "stopped", "tools": []}
        return connection.status()

    async def tools_for(self, kin_id: str) -> list[McpTool]:
        """The tools of the servers assigned to a Kin that are connected now (a server still
        making its first connection is waited for a moment)."""
        await self.start()
        tools: list[McpTool] = []
        for server_id in await self.store.servers_of(kin_id):
            connection = self.connections.get(server_id)
            if connection is None:
                continue
            if not connection.first_attempt.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(connection.first_attempt.wait(), FIRST_CONNECTION_WAIT)
            if connection.state != "connected":
                continue
            tools.extend(McpTool(self, connection.config, info) for info in connection.tools)
        return tools

    async def resolve(self, config: ServerConfig) -> ServerConfig:
        """``config`` with its ``${vault:KEY}`` references replaced by the vault's values."""

        async def filled(values: dict[str, str]) -> dict[str, str]:
            result = {}
            for name, value in values.items():
                for key in set(VAULT_REFERENCE.findall(value)):
                    secret = await self._vault_value(key, config.name)
                    value = value.replace(f"${{vault:{key}}}", secret)
                result[name] = value
            return result

        return replace(config, env=await filled(config.env), headers=await filled(config.headers))

    async def _vault_value(self, key: str, server: str) -> str:
        vault = getattr(self.platform, "vault", None)
        if vault is None:
            raise RuntimeError(f"the vault is not available to resolve ${{vault:{key}}}")
        try:
            value: str = await vault.read_value(key, kin_id=f"mcp:{server}", turn=None)
        except Exception as error:
            raise RuntimeError(f"vault secret {key}: {error}") from None
        return value

    async def stop(self) -> None:
        """Close every connection (``start`` connects them again)."""
        async with self._lock:
            self._started = False
            for server_id in list(self._tasks):
                await self._drop(server_id)

    def _connect(self, config: ServerConfig) -> None:
        if not config.enabled:
            return
        if config.unreadable:
            logger.warning(
                "MCP server %s not started: its secrets were sealed under another master key "
                "(enter them again in Settings, or put the original key back)",
                config.name,
            )
            return
        from kinbot_plugins.mcp.connection import ServerConnection  # imports the MCP SDK

        connection = ServerConnection(config, self.timeouts(), self.resolve)
        task = self.platform.spawn(connection.run(), name=f"mcp-server:{config.name}")
        if task is None:
            return
        self.connections[config.id] = connection
        self._tasks[config.id] = task
        task.add_done_callback(lambda _t, sid=config.id: self._forget(sid, _t))

    def _forget(self, server_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(server_id) is task:
            self._tasks.pop(server_id, None)
            self.connections.pop(server_id, None)

    async def _drop(self, server_id: str) -> None:
        task = self._tasks.pop(server_id, None)
        self.connections.pop(server_id, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


_managers: weakref.WeakKeyDictionary[Any, McpManager] = weakref.WeakKeyDictionary()


def manager_of(platform: Any) -> McpManager:
    """The MCP manager of ``platform`` (one per platform)."""
    manager = _managers.get(platform)
    if manager is None:
        manager = _managers[platform] = McpManager(platform)
    return manager

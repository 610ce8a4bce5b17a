"""One MCP server's connection: connect, list its tools, watch its health, reconnect.

Each connection attempt runs in its own task, which enters the SDK's ``Client`` and stays in
it until the server fails (a call finds the connection closed, a health check fails) or the
connection is stopped; the supervisor then waits (1 s, doubling up to
``mcp_reconnect_max_seconds``) and tries again. Tool calls come from the turns' tasks and are
bounded by their own timeout, so a dead or slow server never holds a turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from kinbot_plugins.mcp.failures import described, explained, health_status_of, status_of
from kinbot_plugins.mcp.shared import CallFailed, Timeouts, ToolInfo
from kinbot_plugins.mcp.store import ServerConfig

logger = logging.getLogger(__name__)

#: Resolves a server's configuration into what the transport gets (vault references filled).
Resolver = Callable[[ServerConfig], Awaitable[ServerConfig]]
_CLIENT_INFO = mcp_types.Implementation(name="kinbot", version="0.1.0")
_MAX_TOOL_PAGES = 50
#: The codes of a server's ``error_code`` in its status (worded by the web interface).
STATUS_ERROR_CODES = (
    "mcp_no_answer",
    "mcp_failed",
    "mcp_command_not_found",
    "mcp_command_not_runnable",
    "mcp_unreachable",
    "mcp_tls_failed",
    "mcp_unauthorized",
    "mcp_not_found",
    "mcp_reconnecting",
    "mcp_health_failed",
    "mcp_closed",
    "mcp_settings_unreadable",
)


class ServerConnection:
    """The live connection to one server, kept up by ``run`` (a background task)."""

    def __init__(self, config: ServerConfig, timeouts: Timeouts, resolve: Resolver) -> None:
        self.config = config
        self.timeouts = timeouts
        self._resolve = resolve
        self.state = "connecting"
        self.error: str | None = None
        #: What went wrong as a code the interface words (``STATUS_ERROR_CODES``), its
        #: parameters, and the server's own words (no exception class name) when it said any.
        self.error_code: str | None = None
        self.error_params: dict[str, Any] = {}
        self.tools: list[ToolInfo] = []
        self.connected_at: float | None = None
        self.attempts = 0
        self.next_attempt_at: float | None = None
        self.first_attempt = asyncio.Event()
        self._client: Client | None = None
        self._broken = asyncio.Event()
        self._retry_now = asyncio.Event()

    def status(self) -> dict[str, Any]:
        """The health shown in Settings."""
        return {
            "state": self.state,
            "error": self.error,
            "error_code": self.error_code,
            "error_params": self.error_params,
            "tools": [{"name": t.name, "description": t.description} for t in self.tools],
            "connected_at": self.connected_at,
            "attempts": self.attempts,
            "next_attempt_at": self.next_attempt_at,
        }

    def reconnect(self) -> None:
        """Drop the current connection (if any) and connect again without waiting."""
        self._broken.set()
        self._retry_now.set()

    async def run(self) -> None:
        """Keep the connection up until cancelled."""
        delay = 1.0
        while True:
            self.attempts += 1
            self.state, self.next_attempt_at = "connecting", None
            self._broken.clear()
            self._retry_now.clear()
            was_connected = await self._attempt()
            self.first_attempt.set()
            if was_connected:
                delay = 1.0
            self.state = "failed"
            self.next_attempt_at = time.time() + delay
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._retry_now.wait(), delay)
            delay = min(delay * 2, self.timeouts.reconnect_max)

    async def _attempt(self) -> bool:
        """One connection, until it breaks; whether it got connected."""
        ready = asyncio.Event()
        session = asyncio.create_task(self._session(ready), name=f"mcp:{self.config.name}")
        waiter = asyncio.create_task(ready.wait())
        try:
            await asyncio.wait(
                {session, waiter}, timeout=self.timeouts.connect, return_when="FIRST_COMPLETED"
            )
            if not ready.is_set() and not session.done():
                self.error = f"No answer within {self.timeouts.connect:g} seconds."
                self._coded("mcp_no_answer", seconds=self.timeouts.connect)
                session.cancel()
            await asyncio.wait({session})
        finally:
            waiter.cancel()
            if not session.done():
                session.cancel()
                with contextlib.suppress(BaseException):
                    await session
            self._client = None
            self.connected_at = None
        failure = None if session.cancelled() else session.exception()
        if failure is not None:
            self.error = self.config.scrub(described(failure))
            self.error_code, self.error_params = status_of(failure, self.config)
            logger.warning("MCP server %s: %s", self.config.name, self.error)
        return ready.is_set()

    async def _session(self, ready: asyncio.Event) -> None:
        config = await self._resolve(self.config)
        transport = _transport(config)
        try:
            await self._serve(config, transport, ready)
        except Exception as exc:
            failure = explained(exc, getattr(transport, "refusal", None))
            if failure is exc:
                raise
            raise failure from exc

    async def _serve(self, config: ServerConfig, transport: Any, ready: asyncio.Event) -> None:
        async with Client(
            transport,
            read_timeout_seconds=self.timeouts.connect,
            client_info=_CLIENT_INFO,
        ) as client:
            self.tools = await _list_tools(client)
            self._client = client
            self.state, self.error = "connected", None
            self._coded(None)
            self.connected_at = time.time()
            ready.set()
            logger.info("MCP server %s connected: %d tools", config.name, len(self.tools))
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._broken.wait(), self.timeouts.health_interval)
                if self._broken.is_set():
                    if self.error is None:
                        self.error = "Reconnecting."
                        self._coded("mcp_reconnecting")
                    return
                try:
                    self.tools = await _list_tools(client, refresh=True)
                except Exception as exc:
                    failure = explained(exc, getattr(transport, "refusal", None))
                    self.error = f"Health check failed: {self.config.scrub(described(failure))}"
                    self.error_code, self.error_params = health_status_of(failure, self.config)
                    return

    def _coded(self, code: str | None, **params: Any) -> None:
        self.error_code, self.error_params = code, params

    async def call(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call ``tool``; ``CallFailed`` when the server is down, fails or is too slow."""
        client = self._client
        if client is None or self.state != "connected":
            raise CallFailed(
                f"The MCP server {self.config.name!r} is not connected "
                f"({self.error or self.state})."
            )
        limit = self.timeouts.call
        try:
            # The SDK's own timeout first; ours a moment later, should the SDK not give up.
            async with asyncio.timeout(limit + 2):
                return await client.call_tool(tool, arguments, read_timeout_seconds=limit)
        except TimeoutError:
            raise CallFailed(f"The tool {tool} did not answer within {limit:g} seconds.") from None
        except MCPError as error:
            if error.code == mcp_types.CONNECTION_CLOSED:
                self.error = "The server closed the connection (it may have crashed)."
                self._coded("mcp_closed")
                self._broken.set()
                raise CallFailed(
                    f"The MCP server {self.config.name!r} closed the connection during the call "
                    "(it may have crashed); it is being restarted."
                ) from None
            if "timed out" in error.message:
                raise CallFailed(
                    f"The tool {tool} did not answer within {limit:g} seconds."
                ) from None
            raise CallFailed(f"The MCP server refused the call: {error.message}") from None
        except Exception as exc:
            self._broken.set()
            raise CallFailed(
                f"The MCP server {self.config.name!r} failed: {self.config.scrub(described(exc))}"
            ) from None


def _transport(config: ServerConfig) -> Any:
    if config.transport == "http":
        return _HttpTransport(config.url or "", config.headers)
    return StdioServerParameters(
        command=config.command or "", args=list(config.args), env=dict(config.env)
    )


class _HttpTransport:
    """Streamable HTTP with the configured headers (the SDK takes them on its HTTP client)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self._url = url
        self._headers = headers
        self._stack = contextlib.AsyncExitStack()
        #: The last message's refusal (401, 403 or 404): the SDK makes it an MCP error that
        #: does not say the status.
        self.refusal: httpx2.HTTPStatusError | None = None

    async def __aenter__(self) -> Any:
        client = await self._stack.enter_async_context(create_mcp_http_client(self._headers))
        client.event_hooks["response"].append(self._note_refusal)
        return await self._stack.enter_async_context(
            streamable_http_client(self._url, http_client=client)
        )

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.__aexit__(*exc)

    async def _note_refusal(self, response: httpx2.Response) -> None:
        if response.request.method != "POST":  # messages are POSTed; the event stream is a GET
            return
        status = response.status_code
        self.refusal = None
        if status in (401, 403, 404):
            self.refusal = httpx2.HTTPStatusError(
                f"The server answered {status} {response.reason_phrase}.",
                request=response.request,
                response=response,
            )


async def _list_tools(client: Client, *, refresh: bool = False) -> list[ToolInfo]:
    tools: list[ToolInfo] = []
    cursor: str | None = None
    for _page in range(_MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
        for tool in page.tools:
            schema = dict(tool.input_schema or {})
            schema.setdefault("type", "object")
            schema.setdefault("properties", {})
            tools.append(ToolInfo(tool.name, tool.description or "", schema))
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools

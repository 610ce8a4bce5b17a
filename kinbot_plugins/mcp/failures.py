"""Why an MCP server could not be reached, as the status code the interface words.

The common causes (a stdio command not found or not runnable, an HTTP server unreachable,
failing TLS, refusing KinBot's credentials or without an MCP endpoint at its URL) get their
own code, and no text from the operating system or a library; anything else is
``mcp_failed`` with what the failure says. An MCP error's message is the server's own words.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from typing import Any

import httpx2
from mcp.shared.exceptions import MCPError

from kinbot_plugins.mcp.store import ServerConfig


def status_of(exc: BaseException, config: ServerConfig) -> tuple[str, dict[str, Any]]:
    """The ``error_code`` and ``error_params`` of a connection attempt that failed with
    ``exc``: ``mcp_command_not_found`` and ``mcp_command_not_runnable`` with the configured
    ``command``, ``mcp_unreachable``, ``mcp_tls_failed``, ``mcp_unauthorized``,
    ``mcp_not_found``, else ``mcp_failed`` with ``detail`` (scrubbed of the server's secrets).
    """
    failure = _first(exc)
    if config.transport == "stdio" and isinstance(failure, FileNotFoundError):
        return "mcp_command_not_found", {"command": config.command or ""}
    if config.transport == "stdio" and isinstance(failure, PermissionError):
        return "mcp_command_not_runnable", {"command": config.command or ""}
    if config.transport == "http" and not isinstance(failure, MCPError):
        if isinstance(failure, httpx2.HTTPStatusError):
            status = failure.response.status_code
            if status in (401, 403):
                return "mcp_unauthorized", {}
            if status == 404:
                return "mcp_not_found", {}
        causes = list(_causes(failure))
        if any(isinstance(cause, ssl.SSLError) for cause in causes):
            return "mcp_tls_failed", {}
        unreachable = (httpx2.ConnectError, ConnectionRefusedError, socket.gaierror)
        if any(isinstance(cause, unreachable) for cause in causes):
            return "mcp_unreachable", {}
    return "mcp_failed", {"detail": config.scrub(said(failure))}


def health_status_of(exc: BaseException, config: ServerConfig) -> tuple[str, dict[str, Any]]:
    """Like ``status_of`` for a health check that failed on a connected server: its
    ``mcp_health_failed`` has a ``detail`` only when the server said something (an MCP error).
    A 404 then means the server ended the session, not a wrong URL."""
    code, params = status_of(exc, config)
    if code not in ("mcp_failed", "mcp_not_found"):
        return code, params
    told = next((cause for cause in _causes(_first(exc)) if isinstance(cause, MCPError)), None)
    return "mcp_health_failed", {"detail": config.scrub(said(told))} if told else {}


def explained(exc: BaseException, refusal: httpx2.HTTPStatusError | None) -> BaseException:
    """``exc``, or the HTTP ``refusal`` behind it (raised from ``exc``): the SDK turns a
    refused message into an MCP error that does not say the HTTP status."""
    if refusal is None or not isinstance(_first(exc), MCPError):
        return exc
    refusal.__cause__ = exc
    return refusal


def said(exc: BaseException) -> str:
    """What a failure says, without its class name (shown to people)."""
    exc = _first(exc)
    return (exc.message if isinstance(exc, MCPError) else str(exc))[:300]


def described(exc: BaseException) -> str:
    """A failure in English for administrators and the log: its class name and message."""
    exc = _first(exc)
    if isinstance(exc, MCPError):
        return exc.message
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def _first(exc: BaseException) -> BaseException:
    """The failure itself, out of the task groups' exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from or while handling (httpx2 wraps the OS error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 20:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__

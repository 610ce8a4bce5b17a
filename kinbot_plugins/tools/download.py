"""``download_file(url, path)``: the platform downloads a file into the Kin's workspace.

Kin code may have no network at all; this tool fetches for it, through the same guard as
``fetch_page`` (``guarded_http``: public addresses only unless ``fetch_allowed_networks``
says otherwise, every redirect hop checked), streaming at most ``download_max_bytes`` within
``download_timeout_seconds`` into a temporary file beside the destination, renamed into
place only when complete (``workspace_output``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kinbot_core.net_guard import AddressPolicy
from kinbot_core.tools import FunctionTool, ToolContext, ToolError, object_schema, required_text
from kinbot_plugins.tools.guarded_http import FetchError, guarded_get, tool_address_policy
from kinbot_plugins.tools.workspace_output import StagedFile, open_destination
from kinbot_plugins.tools.workspace_paths import confined, relative_name, workspace_of

if TYPE_CHECKING:
    import aiohttp

USER_AGENT = "KinBot/0.1 (+download_file)"
CHUNK = 256 * 1024


async def download(
    url: str, policy: AddressPolicy, root: Path, target: Path, max_bytes: int
) -> dict[str, Any]:
    """Download ``url`` into ``target`` (a confined path of the workspace ``root``): its
    final URL, size and content type. ``FetchError`` or ``ToolError`` otherwise, leaving
    nothing behind."""
    async with guarded_get(url, policy, USER_AGENT) as response:
        if response.status >= 400:
            raise FetchError(f"The server answered HTTP {response.status} for {response.url}.")
        declared = response.content_length
        if declared is not None and declared > max_bytes:
            raise FetchError(_too_large(max_bytes, declared))
        folder = await asyncio.to_thread(open_destination, root, target)
        try:
            staged = await asyncio.to_thread(StagedFile, folder, target.name)
            try:
                size = await _stream(response, staged, max_bytes)
                await asyncio.to_thread(staged.publish)
            except BaseException:
                staged.discard()  # also when cancelled: synchronous, and quick
                raise
        finally:
            os.close(folder)
        return {
            "path": relative_name(root, target),
            "size": size,
            "content_type": response.content_type or "application/octet-stream",
            "url": str(response.url),
        }


async def _stream(response: aiohttp.ClientResponse, staged: StagedFile, max_bytes: int) -> int:
    size = 0
    async for chunk in response.content.iter_chunked(CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(_too_large(max_bytes))
        await asyncio.to_thread(staged.write, chunk)
    return size


def _too_large(limit: int, declared: int | None = None) -> str:
    size = f" ({declared} bytes)" if declared is not None else ""
    return f"The file is larger than the download limit of {limit} bytes{size}; nothing was saved."


async def _download_file(context: ToolContext, arguments: dict[str, Any]) -> Any:
    url = required_text(arguments, "url")
    root = await workspace_of(context)
    target = confined(root, arguments.get("path", ""))
    settings = context.platform.settings
    policy = tool_address_policy(settings)
    limit = settings.download_timeout_seconds
    try:
        async with asyncio.timeout(limit):
            return await download(url, policy, root, target, settings.download_max_bytes)
    except TimeoutError:
        raise ToolError(
            f"The download did not finish within {limit:g} seconds; nothing was saved."
        ) from None
    except FetchError as error:
        raise ToolError(str(error)) from None
    except OSError as error:  # a full disk, a path through a file…
        raise ToolError(f"Could not save the file: {error.strerror}.") from None


DOWNLOAD_FILE = FunctionTool(
    "download_file",
    "Download a file from an http(s) URL into your workspace at 'path' (created or "
    "replaced; folders created as needed). Private and local network addresses are refused, "
    "redirects included. Bounded in size and time (by default 100 MiB and 5 minutes); on "
    "failure nothing is saved. Returns the path, size, content type and final URL.",
    object_schema(
        {
            "url": {"type": "string", "description": "The absolute http(s) URL of the file."},
            "path": {
                "type": "string",
                "description": "Where to save it, relative to your workspace (e.g. "
                "'data/report.pdf').",
            },
        },
        ["url", "path"],
    ),
    _download_file,
)

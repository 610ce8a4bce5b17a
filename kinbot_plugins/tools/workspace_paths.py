"""Confinement to a Kin's workspace: turning a path a model wrote into a real path inside it.

Shared by the workspace tools and the custom tools. Real paths are compared, so ``..`` and
symbolic links (anywhere along the path) that lead outside the workspace are refused.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from kinbot_core.tools import ToolContext, ToolError

#: Longest relative path accepted (characters).
MAX_PATH_CHARS = 1024


async def workspace_root(platform: Any, kin_id: str) -> Path:
    """The real path of the Kin's workspace directory (created if missing). A sub-Kin works
    in the workspace of the Kin it was made from."""
    kin = await platform.kins.get(kin_id, include_tasks=True)
    return await asyncio.to_thread(_real_directory, Path(kin.workspace))


async def workspace_of(context: ToolContext) -> Path:
    """The real path of the calling Kin's workspace directory (created if missing)."""
    return await workspace_root(context.platform, context.kin_id)


def _real_directory(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path.resolve(strict=True)


def confined(root: Path, relative: str, *, allow_root: bool = False) -> Path:
    """The real path of ``relative`` inside the workspace ``root`` (a real path itself).

    Raises ``ToolError`` for an absolute path, a home-relative path, a NUL byte, or any path
    whose real location (``..`` and symbolic links resolved) is outside ``root``. The
    workspace itself is accepted only with ``allow_root`` (listing it, say).
    """
    if not isinstance(relative, str) or not relative.strip():
        raise ToolError("'path' must be a non-empty path relative to your workspace.")
    if "\x00" in relative or len(relative) > MAX_PATH_CHARS:
        raise ToolError("'path' is not a valid path.")
    if os.path.isabs(relative) or relative.startswith("~"):
        raise ToolError(
            f"'{relative}' is an absolute path: give a path relative to your workspace "
            "(e.g. 'tools/script.py')."
        )
    real = Path(os.path.realpath(root / relative))
    if real == root:
        if allow_root:
            return real
        raise ToolError(f"'{relative}' is your workspace itself, not a file in it.")
    if root not in real.parents:
        raise ToolError(f"'{relative}' leads outside your workspace; only paths inside it work.")
    return real


def relative_name(root: Path, path: Path) -> str:
    """``path`` as the model should write it: relative to the workspace, with ``/``."""
    return path.relative_to(root).as_posix()

"""``generate_image(prompt, name?)``: an image made by the image provider, saved in the Kin's
workspace (``images/``). Offered only while a provider with the image capability is
configured."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from kinbot_core import KinRef, hookimpl
from kinbot_core.providers.errors import ProviderError
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    optional_text,
    required_text,
)
from kinbot_plugins.tools.workspace_paths import confined, workspace_of

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


class GenerateImageTool:
    """Generate an image and save it under ``images/`` in the Kin's workspace."""

    name = "generate_image"
    description = (
        "Generate an image from a text prompt with the image provider and save it in your "
        "workspace (images/). Returns the file's path in the workspace."
    )
    parameters = object_schema(
        {
            "prompt": {"type": "string", "description": "What the image shows, in detail."},
            "name": {
                "type": "string",
                "description": "File name without extension (letters, digits, - and _).",
            },
        },
        ["prompt"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> Any:
        arguments = named_arguments(self, arguments)
        prompt = required_text(arguments, "prompt")
        stem = _UNSAFE.sub("-", optional_text(arguments, "name") or "").strip("-")[:60]
        try:
            image = await context.platform.providers.generate_image(prompt)
        except ProviderError as error:
            raise ToolError(f"The image could not be generated: {error.message}") from error
        extension = _EXTENSIONS.get(image.mime_type, "png")
        root = await workspace_of(context)
        relative = f"images/{stem or 'image'}-{int(time.time())}.{extension}"
        path = confined(root, relative)
        await asyncio.to_thread(_write, path, image.data)
        return {
            "path": relative,
            "bytes": len(image.data),
            "mime_type": image.mime_type,
            "revised_prompt": image.revised_prompt,
        }


def _write(path: Any, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)


GENERATE_IMAGE = GenerateImageTool()


@hookimpl
async def tools_for_kin(kin: KinRef, platform: Any) -> list[Tool] | None:
    """``generate_image`` while a provider with the image capability is configured."""
    coverage = await platform.providers.coverage()
    return [GENERATE_IMAGE] if coverage.providers.get("image") else None

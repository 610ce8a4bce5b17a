"""Avatar images: checked by decoding them, re-encoded small, stored in the data directory."""

from __future__ import annotations

import asyncio
import io
import os
import secrets
from pathlib import Path

from PIL import Image

from kinbot_core.accounts.errors import AvatarRejected

ACCEPTED_FORMATS = {"PNG", "JPEG", "WEBP", "GIF"}
AVATAR_SIZE = 512
#: Refuse images whose pixel count could exhaust memory when decoded (decompression bombs).
MAX_PIXELS = 40_000_000


def normalise_avatar(data: bytes, max_bytes: int) -> bytes:
    """A WebP of at most 512x512 made from ``data``, or ``AvatarRejected`` saying why.

    Re-encoding drops metadata (EXIF location…) and anything else hidden in the file.
    """
    if len(data) > max_bytes:
        raise AvatarRejected(f"The image is larger than {max_bytes // 1024} KiB.")
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format not in ACCEPTED_FORMATS:
                raise AvatarRejected("Use a PNG, JPEG, WebP or GIF image.")
            if image.width * image.height > MAX_PIXELS:
                raise AvatarRejected("The image has too many pixels.")
            image.load()
            picture = image.convert("RGBA")
    except AvatarRejected:
        raise
    except Exception as exc:  # Pillow raises many kinds (ValueError, SyntaxError…) for a bad file
        raise AvatarRejected("The file is not an image KinBot can read.") from exc
    picture.thumbnail((AVATAR_SIZE, AVATAR_SIZE))
    out = io.BytesIO()
    picture.save(out, format="WEBP", quality=85)
    return out.getvalue()


class AvatarStore:
    """Avatar files under ``<data dir>/avatars``, written atomically."""

    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes

    async def save(self, owner: str, data: bytes) -> str:
        """Check and store an image; returns its file name (to record on the owner)."""
        image = await asyncio.to_thread(normalise_avatar, data, self.max_bytes)
        name = f"{owner}-{secrets.token_hex(8)}.webp"
        await asyncio.to_thread(self._write, name, image)
        return name

    def _write(self, name: str, image: bytes) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.directory / f".{name}.tmp"
        temporary.write_bytes(image)
        os.replace(temporary, self.directory / name)

    def path(self, name: str) -> Path:
        """The file of a stored avatar (names are generated, never taken from a request)."""
        return self.directory / Path(name).name

    async def delete(self, name: str | None) -> None:
        """Remove a stored avatar if it exists."""
        if name:
            await asyncio.to_thread(self.path(name).unlink, missing_ok=True)

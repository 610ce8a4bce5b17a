"""Generated Kin avatars: from the Kin's identity (a hidden prompt) or from a user's prompt,
through the first configured provider with the image capability. Upload stays on
``PUT /api/kins/<id>/avatar``."""

from __future__ import annotations

import asyncio
import io
from typing import Literal

from PIL import Image
from pydantic import BaseModel, Field, model_validator
from quart import Blueprint
from quart_schema import validate_request

from kinbot_core.kins.service import KinView
from kinbot_web.app_context import current_platform
from kinbot_web.asked_by import asked_by_person
from kinbot_web.auth import signed_in
from kinbot_web.errors import ApiError

blueprint = Blueprint("kin_avatars", __name__)

#: Generated images are shrunk to this before being stored as the avatar.
AVATAR_SIDE = 512
_FIELD_CHARS = 400


class AvatarGenerateIn(BaseModel):
    mode: Literal["auto", "prompt"]
    prompt: str | None = Field(None, max_length=4000)

    @model_validator(mode="after")
    def _prompt_for_prompt_mode(self) -> AvatarGenerateIn:
        if self.mode == "prompt" and not (self.prompt or "").strip():
            raise ValueError("mode 'prompt' needs a non-empty prompt")
        return self


def avatar_prompt(kin: KinView) -> str:
    """The hidden prompt of the automatic mode, from the Kin's name, role, character and
    expertise."""

    def cut(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= _FIELD_CHARS else text[:_FIELD_CHARS] + "…"

    lines = [
        "A square avatar portrait for an AI assistant character, friendly and expressive, "
        "simple clean background, no text or letters in the image.",
        f"Its name: {cut(kin.name)}.",
    ]
    if kin.role.strip():
        lines.append(f"Its role: {cut(kin.role)}.")
    if kin.character.strip():
        lines.append(f"Its personality: {cut(kin.character)}.")
    if kin.expertise.strip():
        lines.append(f"Its expertise, to suggest through props or style: {cut(kin.expertise)}.")
    return "\n".join(lines)


def _shrunk(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        converted = image.convert("RGBA")
    converted.thumbnail((AVATAR_SIDE, AVATAR_SIDE))
    out = io.BytesIO()
    converted.save(out, format="WEBP", quality=90)
    return out.getvalue()


async def _image_available() -> bool:
    coverage = await current_platform().providers.coverage()
    return bool(coverage.providers.get("image"))


@blueprint.get("/api/kins/<kin_id>/avatar/modes")
@signed_in
async def avatar_modes(kin_id: str) -> dict[str, object]:
    """The ways this Kin's avatar can be made now: ``upload`` always; ``auto`` and ``prompt``
    only while a provider with the image capability is configured."""
    await current_platform().kins.get(kin_id)
    image = await _image_available()
    return {"modes": ["upload", "auto", "prompt"] if image else ["upload"], "image": image}


@blueprint.post("/api/kins/<kin_id>/avatar/generate")
@signed_in
@validate_request(AvatarGenerateIn)
async def generate_avatar(kin_id: str, data: AvatarGenerateIn) -> dict[str, object]:
    """Generate the Kin's avatar: ``{"mode": "auto"}`` (from its identity) or ``{"mode":
    "prompt", "prompt": "..."}``. 409 when no image provider is configured; a provider
    failure leaves the current avatar as it was."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    if not await _image_available():
        raise ApiError(
            409, "no_image_provider", "Configure a provider with image generation first."
        )
    prompt = avatar_prompt(kin) if data.mode == "auto" else (data.prompt or "").strip()
    with asked_by_person(kin_id):
        generated = await platform.providers.generate_image(prompt)
    try:
        image = await asyncio.to_thread(_shrunk, generated.data)
    except Exception:  # Pillow raises many kinds (OSError, ValueError, SyntaxError…)
        raise ApiError(
            502, "bad_image", "The image provider returned an unreadable image."
        ) from None
    kin = await platform.kins.set_avatar(kin_id, platform.accounts.avatars, image)
    return {"kin": kin.to_dict(), "mode": data.mode}

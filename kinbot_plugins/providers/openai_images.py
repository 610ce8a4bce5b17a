"""OpenAI's image generation (``/images/generations``)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from kinbot_core.providers import GeneratedImage, MalformedResponse, ProviderError
from kinbot_core.usage import report_usage
from kinbot_plugins.providers._common import translate_stainless
from kinbot_plugins.providers.openai_sdk import sdk

if TYPE_CHECKING:
    import openai

DEFAULT_IMAGE_MODEL = "gpt-image-1"


class OpenAIImages:
    """Image generation through ``/images/generations``."""

    def __init__(self, client: openai.AsyncOpenAI, label: str, *, model: str) -> None:
        self._client = client
        self._label = label
        self._model = model

    async def generate(
        self, prompt: str, *, size: str = "1024x1024", model: str | None = None
    ) -> GeneratedImage:
        chosen = model or self._model
        extra: dict[str, Any] = (
            {"response_format": "b64_json"} if chosen.startswith("dall-e") else {}
        )
        try:
            response = await self._client.images.generate(
                model=chosen,
                prompt=prompt,
                size=size,
                n=1,
                **extra,
            )
            image = (response.data or [None])[0]
            if image is None:
                raise MalformedResponse(f"{self._label} returned no image.")
            if image.b64_json:
                data = base64.b64decode(image.b64_json)
            elif image.url:
                import httpx

                async with httpx.AsyncClient(timeout=60) as http:
                    fetched = await http.get(image.url)
                    fetched.raise_for_status()
                    data = fetched.content
            else:
                raise MalformedResponse(f"{self._label} returned an image without data.")
            report_usage(model=chosen, units=1)
        except ProviderError:
            raise
        except Exception as exc:
            raise translate_stainless(exc, sdk(), self._label) from exc
        return GeneratedImage(
            data=data, mime_type=_sniff_image(data), revised_prompt=image.revised_prompt
        )


def _sniff_image(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"

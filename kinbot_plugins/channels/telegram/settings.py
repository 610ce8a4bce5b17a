"""What an administrator fills in for a Telegram connection."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SecretStr,
    ValidationInfo,
    field_validator,
)
from pydantic.config import JsonDict

DEFAULT_BASE_URL = "https://api.telegram.org/bot"
DEFAULT_BASE_FILE_URL = "https://api.telegram.org/file/bot"


def _fr(title: str, description: str | None = None, **more: JsonValue) -> JsonDict:
    """The French words of a field (or the model), as ``schema_settings`` reads them."""
    words: JsonDict = {"title": title, **more}
    if description is not None:
        words["description"] = description
    return {"i18n": {"fr": words}}


class TelegramSettings(BaseModel):
    """A Telegram bot made with @BotFather."""

    model_config = ConfigDict(
        extra="forbid",
        title="Telegram",
        json_schema_extra=_fr("Telegram", "Un bot Telegram créé avec @BotFather."),
    )

    bot_token: SecretStr = Field(
        title="Bot token",
        description="The token @BotFather gave when you created the bot (123456:ABC…).",
        min_length=20,
        max_length=200,
        json_schema_extra=_fr(
            "Jeton du bot",
            "Le jeton donné par @BotFather à la création du bot (123456:ABC…).",
        ),
    )
    mode: Literal["polling", "webhook"] = Field(
        "polling",
        title="How messages arrive",
        description=(
            "Polling asks Telegram for new messages and works anywhere, with no public "
            "address. A webhook has Telegram call KinBot: it needs the public https address."
        ),
        json_schema_extra={
            "enum_titles": {"polling": "Polling (no public address needed)", "webhook": "Webhook"},
            **_fr(
                "Réception des messages",
                "L'interrogation demande les nouveaux messages à Telegram et marche partout, "
                "sans adresse publique. Un webhook fait appeler KinBot par Telegram : il faut "
                "son adresse https publique.",
                enum_titles={
                    "polling": "Interrogation (sans adresse publique)",
                    "webhook": "Webhook",
                },
            ),
        },
    )
    webhook_url: str | None = Field(
        None,
        validate_default=True,
        title="Public address of KinBot (webhook)",
        description="The https address Telegram reaches this KinBot at, e.g. "
        "https://kinbot.example.org. Only for the webhook mode (http is accepted with a "
        "self-hosted Bot API server).",
        max_length=500,
        json_schema_extra=_fr(
            "Adresse publique de KinBot (webhook)",
            "L'adresse https où Telegram joint ce KinBot, par ex. https://kinbot.example.org. "
            "Seulement pour le mode webhook (http est accepté avec un serveur Bot API "
            "auto-hébergé).",
        ),
    )
    base_url: str = Field(
        DEFAULT_BASE_URL,
        title="Bot API address",
        description="Change it only for a self-hosted Bot API server; the token is appended.",
        max_length=500,
        json_schema_extra=_fr(
            "Adresse de l'API Bot",
            "À changer seulement pour un serveur Bot API auto-hébergé ; le jeton y est ajouté.",
        ),
    )
    base_file_url: str = Field(
        DEFAULT_BASE_FILE_URL,
        title="Bot API file address",
        description="Where files are downloaded from (with a self-hosted Bot API server).",
        max_length=500,
        json_schema_extra=_fr(
            "Adresse des fichiers de l'API Bot",
            "D'où les fichiers sont téléchargés (avec un serveur Bot API auto-hébergé).",
        ),
    )
    poll_timeout_seconds: int = Field(
        30,
        ge=1,
        le=50,
        title="Polling wait (seconds)",
        description="How long one request waits for new messages before asking again.",
        json_schema_extra=_fr(
            "Attente de l'interrogation (secondes)",
            "Combien de temps une requête attend de nouveaux messages avant de redemander.",
        ),
    )

    @field_validator("base_url", "base_file_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// address")
        return value

    @field_validator("webhook_url")
    @classmethod
    def _public_address(cls, value: str | None, info: ValidationInfo) -> str | None:
        value = (value or "").strip().rstrip("/") or None
        if info.data.get("mode") == "webhook":
            # Telegram's own servers call https only (they refuse another address); a
            # self-hosted Bot API server may call http.
            parts = urlsplit(value or "")
            if parts.scheme not in ("https", "http") or not parts.hostname:
                raise ValueError("the public address is needed in webhook mode")
        return value

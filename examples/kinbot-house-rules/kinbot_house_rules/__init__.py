"""House rules for every Kin: an example KinBot plugin.

Each rule is added to the system prompt before every LLM call, and the rules are served at
``GET /api/ext/house_rules/rules``. Its settings (Settings → Plugins → house_rules) are the
household's quiet hours, added as one more rule, and an optional display token: with one, a
screen at home may read the rules at ``GET /api/ext/house_rules/display`` without an account,
sending ``Authorization: Bearer <token>``; without one, that address stays closed.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, SecretStr
from quart import request
from werkzeug.exceptions import Unauthorized

from kinbot_core import ChatContext, PluginRoute, hookimpl

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

#: The plugin's name: its entry point's, which its settings are stored under.
PLUGIN = "house_rules"
RULES_ENV = "KINBOT_HOUSE_RULES"
DEFAULT_RULES = (
    "Call everyone by the name they chose for themselves.",
    "Never repeat one person's private messages to another.",
)
SECTION_TITLE = "House rules:"
#: What Settings → Plugins says the plugin does, by language (else the package's summary).
KINBOT_DESCRIPTION = {
    "en": "Gives every Kin the household's rules, and shows them on a screen at home.",
    "fr": "Donne à chaque Kin les règles de la maison, et les affiche sur un écran à la maison.",
}


class HouseRulesSettings(BaseModel):
    """What an administrator may set for the house rules."""

    model_config = ConfigDict(
        title="House rules",
        json_schema_extra={
            "description": "The household's quiet hours, and a token for a screen at home.",
            "i18n": {
                "fr": {
                    "title": "Règles de la maison",
                    "description": "Les heures calmes de la maison, et un jeton pour un écran "
                    "de la maison.",
                }
            },
        },
    )

    quiet_hours: str = Field(
        "",
        title="Quiet hours",
        description="When the house is quiet, such as 21:30-07:00: Kins are told to keep "
        "their answers short then. Empty: no quiet hours.",
        pattern=r"^(\d\d:\d\d-\d\d:\d\d)?$",
        json_schema_extra={
            "i18n": {
                "fr": {
                    "title": "Heures calmes",
                    "description": "Quand la maison est au calme, par exemple 21:30-07:00 : "
                    "les Kins sont priés de répondre brièvement. Vide : pas d'heures calmes.",
                }
            }
        },
    )
    display_token: SecretStr | None = Field(
        None,
        title="Display token",
        description="Lets a screen at home read the rules at /api/ext/house_rules/display "
        "with this token. Without one, that address stays closed.",
        min_length=16,
        json_schema_extra={
            "i18n": {
                "fr": {
                    "title": "Jeton d'affichage",
                    "description": "Permet à un écran de la maison de lire les règles à "
                    "/api/ext/house_rules/display avec ce jeton. Sans jeton, cette adresse "
                    "reste fermée.",
                }
            }
        },
    )


def settings_of(platform: Platform) -> HouseRulesSettings:
    """The settings in force (read at each use: a save takes effect at once)."""
    return platform.plugin_settings.get(PLUGIN, HouseRulesSettings)


def house_rules(settings: HouseRulesSettings | None = None) -> list[str]:
    """The rules in force: ``KINBOT_HOUSE_RULES`` split on ``;``, or the defaults; then the
    quiet hours, when set."""
    configured = os.environ.get(RULES_ENV, "")
    rules = [rule.strip() for rule in configured.split(";") if rule.strip()] or list(DEFAULT_RULES)
    if settings is not None and settings.quiet_hours:
        rules.append(f"Quiet hours are {settings.quiet_hours}: keep answers short then.")
    return rules


def rules_section(settings: HouseRulesSettings | None = None) -> str:
    """The system prompt section listing the rules."""
    return "\n".join([SECTION_TITLE, *(f"- {rule}" for rule in house_rules(settings))])


@hookimpl
def register_settings(register: Callable[[type[BaseModel]], None]) -> None:
    register(HouseRulesSettings)


@hookimpl
def before_chat(context: ChatContext, platform: Platform) -> None:
    context.system_prompt.append(rules_section(settings_of(platform)))


async def list_rules(platform: Platform) -> dict[str, list[str]]:
    return {"rules": house_rules(settings_of(platform))}


async def display_rules(platform: Platform) -> dict[str, list[str]]:
    """The rules for a screen at home, which sends the display token (no account needed)."""
    token = settings_of(platform).display_token
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").encode()
    if token is None or not hmac.compare_digest(given, token.get_secret_value().encode()):
        raise Unauthorized("Send the display token set in the plugin's settings.")
    return {"rules": house_rules(settings_of(platform))}


@hookimpl
def register_routes(register: Callable[[PluginRoute], None]) -> None:
    register(PluginRoute("/rules", list_rules))
    register(PluginRoute("/display", display_rules, access="public"))

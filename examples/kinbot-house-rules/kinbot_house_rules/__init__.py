"""House rules for every Kin: an example KinBot plugin.

Each rule is added to the system prompt before every LLM call, and the rules are served at
``GET /api/ext/house_rules/rules``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from kinbot_core import ChatContext, PluginRoute, hookimpl

RULES_ENV = "KINBOT_HOUSE_RULES"
DEFAULT_RULES = (
    "Call everyone by the name they chose for themselves.",
    "Never repeat one person's private messages to another.",
)
SECTION_TITLE = "House rules:"


def house_rules() -> list[str]:
    """The rules in force: ``KINBOT_HOUSE_RULES`` split on ``;``, or the defaults."""
    configured = os.environ.get(RULES_ENV, "")
    rules = [rule.strip() for rule in configured.split(";") if rule.strip()]
    return rules or list(DEFAULT_RULES)


def rules_section() -> str:
    """The system prompt section listing the rules."""
    return "\n".join([SECTION_TITLE, *(f"- {rule}" for rule in house_rules())])


@hookimpl
def before_chat(context: ChatContext) -> None:
    context.system_prompt.append(rules_section())


async def list_rules() -> dict[str, list[str]]:
    return {"rules": house_rules()}


@hookimpl
def register_routes(register: Callable[[PluginRoute], None]) -> None:
    register(PluginRoute("/rules", list_rules))

"""The Vault tools: ``get_secret``, ``store_secret`` and ``redact_message``, over
``platform.vault``.

What ``get_secret`` returns is a tool result like any other, and tool results are stored
with every vault value masked: the stored message (and so the history, summaries, memories
and the web UI) holds ``[SECRET: KEY]``. Only the model of the turn that called the tool is
shown the value, in its context for the rest of that turn (``VaultService.reveal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    required_text,
)
from kinbot_core.vault import RedactionError, VaultError
from kinbot_core.vault.pending import PendingSecretError

#: The hidden instruction on secrets.
PROMPT_HINT = (
    "Secrets (API keys, tokens, passwords) are kept in the Vault. Read one with "
    "get_secret(key) only when a task needs it, and never write a secret's value in a reply. "
    "A secret pasted in the chat is usually hidden on arrival as [PENDING SECRET N]: store "
    "it with store_secret under a key that says what it is (e.g. GITHUB_TOKEN) when the "
    "sender wants it kept. If you see a secret in clear in a message, call redact_message at "
    "once with that message's id and its text where the secret is replaced by a placeholder "
    "such as [SECRET: GITHUB_TOKEN], and tell the sender an administrator should store it in "
    "the Vault."
)


class GetSecretTool:
    """``get_secret(key)``: the value of a Vault secret, for this turn's work."""

    name = "get_secret"
    description = (
        "Read the value of a secret of the Vault by its key (e.g. GITHUB_TOKEN), to use it in "
        "this turn (in another tool's arguments, say). Never repeat the value in a reply. "
        "Stored conversation history keeps only a placeholder."
    )
    parameters: dict[str, Any] = object_schema(
        {"key": {"type": "string", "description": "The secret's key, e.g. GITHUB_TOKEN."}},
        ["key"],
    )
    prompt_hint = PROMPT_HINT

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> str:
        """Return the value (stored masked, shown to the model for this turn)."""
        arguments = named_arguments(self, arguments)
        key = required_text(arguments, "key")
        vault = context.platform.vault
        try:
            value: str = await vault.read_value(key, kin_id=context.kin_id, turn=context.trigger_id)
        except VaultError as exc:
            known = ", ".join(vault.keys()) or "none"
            raise ToolError(f"{exc.message} Secrets in the Vault: {known}.") from exc
        return value


class StoreSecretTool:
    """``store_secret(key, message_id?, secret_number?, description?)``: a secret hidden on
    arrival (``[PENDING SECRET N]``) moved into the Vault, without the model seeing it."""

    name = "store_secret"
    description = (
        "Store in the Vault, under a new key, a secret that was hidden from a message of this "
        "conversation as [PENDING SECRET N] (you never see its value). The message then shows "
        "[SECRET: KEY], and get_secret(key) reads the value when a task needs it."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "key": {
                "type": "string",
                "description": "A new key in upper snake case, saying what it is: GITHUB_TOKEN.",
            },
            "message_id": {
                "type": "integer",
                "description": (
                    "The id of the message holding it; leave it out for the message you are "
                    "answering now."
                ),
            },
            "secret_number": {
                "type": "integer",
                "description": "N of [PENDING SECRET N]; may be left out when there is one.",
            },
            "description": {"type": "string", "description": "What the secret is for."},
        },
        ["key"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Store; return ``{"status": "stored", "key", "placeholder", "message_id"}``."""
        arguments = named_arguments(self, arguments)
        key = required_text(arguments, "key")
        given = arguments.get("message_id")
        message_id = _message_id(context.trigger_id if given is None else given)
        description = arguments.get("description") or ""
        if not isinstance(description, str):
            raise ToolError("'description' must be a string.")
        pending = context.platform.vault.pending
        number = arguments.get("secret_number")
        if number is None:
            numbers = await pending.numbers(message_id)
            if len(numbers) != 1:
                hidden = ", ".join(f"[PENDING SECRET {n}]" for n in numbers) or "none"
                raise ToolError(
                    f"Say which secret with secret_number; hidden in message {message_id}: "
                    f"{hidden}."
                )
            number = numbers[0]
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number.strip())
        if isinstance(number, bool) or not isinstance(number, int):
            raise ToolError("'secret_number' must be a whole number (N of [PENDING SECRET N]).")
        try:
            stored = await pending.store(context.kin_id, message_id, number, key, description)
        except (PendingSecretError, VaultError) as exc:
            raise ToolError(exc.message) from exc
        return {
            "status": "stored",
            "key": stored.secret.key,
            "placeholder": stored.secret.to_dict()["placeholder"],
            "message_id": message_id,
        }


class RedactMessageTool:
    """``redact_message(message_id, redacted_text)``: take a pasted secret out of history."""

    name = "redact_message"
    description = (
        "Replace the stored text of a message of this conversation (one where someone pasted "
        "a secret) by redacted_text: the same message with each secret replaced by a "
        "placeholder such as [SECRET: GITHUB_TOKEN]. The original text is then gone for good."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "message_id": {
                "type": "integer",
                "description": (
                    "The id of the message to redact; leave it out for the message you are "
                    "answering now."
                ),
            },
            "redacted_text": {
                "type": "string",
                "description": "The message's text with each secret replaced by a placeholder.",
            },
        },
        ["redacted_text"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Redact; return ``{"status": "redacted", "message_id"}``, with what else was made
        from the old text (the summary, memories) and may still quote the secret."""
        arguments = named_arguments(self, arguments)
        given = arguments.get("message_id")
        message_id = _message_id(context.trigger_id if given is None else given)
        text = arguments.get("redacted_text")
        if not isinstance(text, str):
            raise ToolError("'redacted_text' is required and must be a string.")
        try:
            done = await context.platform.vault.redact(context.kin_id, message_id, text)
        except RedactionError as exc:
            raise ToolError(exc.message) from exc
        result: dict[str, Any] = {"status": "redacted", "message_id": done.message_id}
        if done.memory_ids:
            result["memories_from_it"] = list(done.memory_ids)
            result["memories_note"] = (
                "These memories were extracted from the old text: if one quotes the secret, "
                "rewrite it with update_memory or remove it with forget."
            )
        if done.in_summary:
            result["summary_note"] = (
                "The conversation summary was made before this redaction and may quote the "
                "secret: tell the user, who can purge the summary."
            )
        return result


def _message_id(value: Any) -> int:
    if value is None or isinstance(value, bool):
        raise ToolError("'message_id' must be a message id (an integer).")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise ToolError("'message_id' must be a message id (an integer).")


#: The tools this plugin contributes, in registration order.
TOOLS: tuple[Tool, ...] = (GetSecretTool(), StoreSecretTool(), RedactMessageTool())


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

"""The Vault tools: ``get_secret`` and ``redact_message``, over ``platform.vault``.

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

#: The hidden instruction on secrets.
PROMPT_HINT = (
    "Secrets (API keys, tokens, passwords) are kept in the Vault. Read one with "
    "get_secret(key) only when a task needs it, and never write a secret's value in a reply. "
    "When someone pastes a secret in the chat, tell them an administrator should store it in "
    "the Vault, and call redact_message at once with that message's id and its text where the "
    "secret is replaced by a placeholder such as [SECRET: GITHUB_TOKEN]."
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
TOOLS: tuple[Tool, ...] = (GetSecretTool(), RedactMessageTool())


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)

"""The summary call's prompt: the previous summary and the exchanges to fold, as a transcript."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kinbot_core.kins.service import MessageView

#: A folded message longer than this is shortened in the transcript.
MAX_MESSAGE_CHARS = 6000

SYSTEM_PROMPT = (
    "You maintain the working memory of {name}, an AI assistant (a Kin of KinBot) that has one "
    "continuous conversation with a family or a small group. Older parts of that conversation "
    "are replaced by your summary in the assistant's context, so the summary must let it carry "
    "on without them.\n\n"
    "Write the new summary: merge the previous summary (if any) with the new exchanges. Keep "
    "who said what, facts about people, preferences, decisions, commitments, open questions "
    "and tasks in progress, with dates when given; drop greetings and small talk. Refer to "
    "people by name. Never copy passwords, keys, tokens or other secrets: write [secret] "
    "instead. Write plain prose or short bullet points, in the language of the conversation, "
    "and nothing but the summary."
)


def transcript_line(message: MessageView, kin_name: str) -> str | None:
    """One folded message as the summary model reads it (``None``: not worth showing)."""
    content = message.content
    if len(content) > MAX_MESSAGE_CHARS:
        content = content[:MAX_MESSAGE_CHARS] + " […]"
    if message.role == "user":
        return f"[{message.sender_name or message.source}] {content}"
    if message.role == "assistant":
        lines = [f"[{kin_name}] {content}"] if content.strip() else []
        for call in message.tool_calls or ():
            arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
            lines.append(f"[{kin_name} calls the tool {call.get('name')}] {arguments}")
        return "\n".join(lines) or None
    if message.role == "tool":
        kind = "error" if message.is_error else "result"
        return f"[tool {message.sender_name or ''} {kind}] {content}"
    if message.role == "system" and content.strip():
        return f"[KinBot] {content}"
    return None


def summary_request_text(
    previous_summary: str | None, messages: Sequence[MessageView], kin_name: str
) -> str:
    """The user message of the summary call."""
    lines = [line for m in messages if (line := transcript_line(m, kin_name)) is not None]
    previous = previous_summary.strip() if previous_summary else "(none yet)"
    return (
        f"Previous summary:\n{previous}\n\n"
        "New exchanges to fold into it, oldest first:\n" + "\n".join(lines)
    )

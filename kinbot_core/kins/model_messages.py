"""A Kin's session as the model reads it: each stored message turned into a provider-neutral
message dict (``model_message``; a window of them taken from its first user message, tool
calls ``paired`` with their results: ``model_window``), then, after the ``before_chat``
hooks, into the ``ChatMessage``s of the call (``chat_messages``); its tools' definitions into
``ToolSpec``s (``tool_specs``). ``kinbot_core.kins.window_messages`` keeps a Kin's window
converted from one turn to the next.

A turn converts the same hundred-odd messages as the Kin's turn before; the views are kept
from turn to turn (``KeptViews``), so what a view turns into is kept with it: its label, and
the ``ChatMessage`` of a plain message (frozen, shared). A hook that changed a message dict
makes it read differently, and so converted anew.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kinbot_core.identity_memo import IdentityMemo
from kinbot_core.kins.views import MessageView
from kinbot_core.providers import ChatMessage, ToolCallRequest, ToolSpec
from kinbot_core.uploads import ModelAttachment, with_attachments

#: Conversions kept (labels, plain messages): sixteen Kins' windows of two hundred.
KEPT_CONVERSIONS = 4096
_labels: IdentityMemo[str] = IdentityMemo(KEPT_CONVERSIONS)
_plain: dict[tuple[str, str, str | None, bool], ChatMessage] = {}
#: The tools of calls, as ``tool_specs`` made them: by each tool's name, description and the
#: identity of its schema (built once, never changed in place; the specs keep it alive).
_specs: dict[tuple[tuple[Any, Any, int], ...], tuple[ToolSpec, ...]] = {}
KEPT_SPECS = 64

#: A detected secret's placeholder (``kinbot_core.vault.arrival``).
PENDING_SECRET = re.compile(r"\[PENDING SECRET (\d+)\]")
SOURCE_LABELS = {
    "kin": "Kin ",
    "task": "Task ",
    "cron": "Cron ",
    "system": "System ",
    "webhook": "Webhook ",
}


#: How a message from another Kin is labelled (``{id}``: the request id): a request, an
#: inform, or an inform answering a request (a reply).
KIN_MESSAGE_LABELS = {
    ("request", True): "request {id}: answer it with reply",
    ("inform", False): "inform: for your information, do not reply to it",
    ("inform", True): "reply to your request {id}: for your information, do not reply to it",
}


#: Told to the model after a message in which secrets were detected and hidden.
PENDING_SECRET_NOTE = (
    "\n[KinBot: {hidden} in this message (id {id}) looked like a secret and was hidden; its "
    "value is never shown to you. If it is one, store it in the Vault with store_secret(key, "
    "message_id={id}, secret_number=N) for [PENDING SECRET N], then read it with get_secret "
    "when a task needs it. If it is clearly not a secret, ask the sender to press "
    '"Not a secret" on it in the chat.]'
)


def labelled(message: MessageView) -> str:
    """An incoming message as the model sees it: who wrote it (and, from another Kin, whether
    it is a request, an inform or a reply), then what they wrote, then a note on secrets
    hidden in it, if any. The same view (kept from turn to turn, ``KeptViews``) gets the
    same string: the cache of ``chat_messages`` then finds it without hashing it again."""
    kept = _labels.get(message)
    return kept if kept is not None else _labels.keep(message, _label(message))


def _label(message: MessageView) -> str:
    label = SOURCE_LABELS.get(message.source, "")
    kind = KIN_MESSAGE_LABELS.get((message.kin_message_type or "", bool(message.request_id)))
    detail = f" · {kind.format(id=message.request_id)}" if kind else ""
    text = f"[{label}{message.sender_name or message.source}{detail}] {message.content}"
    numbers = sorted({int(number) for number in PENDING_SECRET.findall(message.content)})
    if message.redaction_pending and numbers:
        hidden = ", ".join(f"[PENDING SECRET {number}]" for number in numbers)
        text += PENDING_SECRET_NOTE.format(hidden=hidden, id=message.id)
    return text


def model_message(
    message: MessageView, attachments: Mapping[str, ModelAttachment], *, vision: bool
) -> dict[str, Any] | None:
    """One message as a provider-neutral dict (``None`` for one the model does not read)."""
    if message.role == "user":
        entry = {"role": "user", "content": labelled(message)}
        if message.attachments:
            entry = with_attachments(entry, message.attachments, attachments, vision=vision)
        return entry
    if message.role == "assistant":
        return {
            "role": "assistant",
            "content": message.content,
            "tool_calls": message.tool_calls or [],
        }
    if message.role == "tool":
        return {
            "role": "tool",
            "content": message.content,
            "tool_call_id": message.tool_call_id,
            "is_error": message.is_error,
        }
    return None


def has_tool_parts(message: MessageView) -> bool:
    """Whether a message is a tool call or a tool's result (``paired`` has work then)."""
    return message.role == "tool" or (message.role == "assistant" and bool(message.tool_calls))


def model_window(messages: list[dict[str, Any]], tool_parts: bool) -> list[dict[str, Any]]:
    """A window's message dicts as a call takes them: from its first user message (the
    window may cut a tool exchange in two), calls and results ``paired`` when it has any."""
    start = 0
    while start < len(messages) and messages[start]["role"] != "user":
        start += 1
    if start:
        messages = messages[start:]
    return paired(messages) if tool_parts else messages


def paired(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call followed by its result, every result after its call: calls left
    without a result (a turn stopped, failed or cut by a restart) get an "interrupted"
    result, and stray results are dropped, as every provider requires. A message added to
    the session while tools ran (a task's result, say) moves after the results."""
    result: list[dict[str, Any]] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message["role"] == "tool":
            continue  # a result whose call is not in the window
        result.append(message)
        calls = message.get("tool_calls") or []
        if message["role"] != "assistant" or not calls:
            continue
        answers: dict[str, dict[str, Any]] = {}
        unanswered = {call["id"] for call in calls}
        deferred: list[dict[str, Any]] = []
        while index < len(messages) and messages[index]["role"] in ("tool", "user"):
            following = messages[index]
            if following["role"] == "user":
                if not unanswered:
                    break
                deferred.append(following)
            else:
                answers.setdefault(following.get("tool_call_id") or "", following)
                unanswered.discard(following.get("tool_call_id"))
            index += 1
        for call in calls:
            result.append(
                answers.get(call["id"])
                or {
                    "role": "tool",
                    "content": "Interrupted: this tool call did not run.",
                    "tool_call_id": call["id"],
                    "is_error": True,
                }
            )
        result.extend(deferred)
    return result


def chat_messages(messages: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    """The dicts (possibly changed by ``before_chat``) as ``ChatMessage``s. One without tool
    calls or images that reads as one already converted gets the same (frozen) object."""
    converted = []
    for message in messages:
        calls = message.get("tool_calls")
        images = message.get("images")
        if not calls and not images:
            key = (
                message["role"],
                message.get("content") or "",
                message.get("tool_call_id"),
                bool(message.get("is_error")),
            )
            made = _plain.get(key)
            if made is None:
                made = ChatMessage(key[0], key[1], tool_call_id=key[2], is_error=key[3])
                if len(_plain) >= KEPT_CONVERSIONS:
                    _plain.clear()
                _plain[key] = made
            converted.append(made)
            continue
        converted.append(
            ChatMessage(
                message["role"],
                message.get("content") or "",
                tuple(images) if images else (),
                tuple(
                    ToolCallRequest(
                        call["id"],
                        call["name"],
                        call.get("arguments") or {},
                        call.get("extra") or {},
                    )
                    for call in calls
                )
                if calls
                else (),
                message.get("tool_call_id"),
                bool(message.get("is_error")),
            )
        )
    return tuple(converted)


def tool_specs(tools: list[dict[str, Any]]) -> tuple[ToolSpec, ...]:
    """The tools' definitions (possibly changed by ``before_chat``) as the call's
    ``ToolSpec``s. The same definitions as a call before get the same (frozen) tuple, which
    a provider may then keep what it made of."""
    key = tuple((tool["name"], tool["description"], id(tool["parameters"])) for tool in tools)
    specs = _specs.get(key)
    if specs is None:
        specs = tuple(ToolSpec(t["name"], t["description"], t["parameters"]) for t in tools)
        if len(_specs) >= KEPT_SPECS:
            _specs.clear()
        _specs[key] = specs
    return specs

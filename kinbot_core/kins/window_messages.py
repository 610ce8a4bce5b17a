"""A Kin's window as the model reads it, converted once per message and kept between turns.

From one turn of a Kin to the next, its window (``SessionWindows``) holds the same message
views but for the newest few. Turning the two hundred of them into provider-neutral dicts
(``model_messages``), those into ``ChatMessage``s and counting their tokens took a Python
pass over every message for each, on every turn. Here each view's conversions are kept with
it, in window order, and only the views that are new or changed are converted (and every
view from the first one with attached files on: its files are read for each turn). The
``before_chat`` hooks get copies of the dicts; when the messages come back from them (and
from fitting) as they were given, the kept ``ChatMessage``s and tokens are used as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kinbot_core.compacting.tokens import IMAGE_TOKENS, message_tokens
from kinbot_core.identity_memo import identical_prefix
from kinbot_core.kins.model_messages import (
    chat_messages,
    has_tool_parts,
    model_message,
    model_window,
)
from kinbot_core.kins.views import MessageView
from kinbot_core.providers import ChatMessage
from kinbot_core.uploads import ModelAttachment

#: Kins whose converted window is kept (as ``SessionWindows`` keeps their windows).
KEPT_KINS = 16


@dataclass(frozen=True)
class WindowMessages:
    """A window's messages for one call: the dicts as made (not to be changed: ``given``
    hands out copies), and, when the window has no tool exchange to pair, their
    ``ChatMessage``s and tokens."""

    messages: list[dict[str, Any]]
    chats: tuple[ChatMessage, ...] | None
    tokens: int | None

    def given(self) -> list[dict[str, Any]]:
        """Copies of the messages, for the hooks to change as they like."""
        return list(map(dict.copy, self.messages))

    def unchanged(self, messages: list[dict[str, Any]]) -> bool:
        """Whether ``messages`` read as these (the kept chats and tokens are theirs)."""
        return self.chats is not None and messages == self.messages


@dataclass
class _Kept:
    """A Kin's window as last converted: its views, and what they gave, in order."""

    views: list[MessageView]
    vision: bool
    #: The messages the views gave (those the model reads), and their ``ChatMessage``s.
    messages: list[dict[str, Any]] = field(default_factory=list)
    chats: list[ChatMessage] = field(default_factory=list)
    #: For each view, what the views before it gave: messages, tokens, views in a tool
    #: exchange, views with attached files (one entry more: the whole window's). Running
    #: totals, counted from the first entry: when views leave the window's start, the
    #: entries after them are kept as they are rather than counted again from zero.
    shown_before: list[int] = field(default_factory=lambda: [0])
    tokens_before: list[int] = field(default_factory=lambda: [0])
    tool_parts_before: list[int] = field(default_factory=lambda: [0])
    attached_before: list[int] = field(default_factory=lambda: [0])

    def cut(self, views: list[MessageView], vision: bool) -> _Kept:
        """What of this window a window of ``views`` reuses: the views it held that ``views``
        begin with (after those that left its start, when its session was compacted)."""
        start = 0
        if views and self.views and views[0] is not self.views[0]:
            start = next((i for i, kept in enumerate(self.views) if kept is views[0]), 0)
        end = start + identical_prefix(self.views[start:], views)
        if self.vision != vision:
            end = start
        if self.attached_before[end] > self.attached_before[start]:
            # converted anew from the first view with attached files (read for each turn)
            end = next(i for i in range(start, end) if self.views[i].attachments)
        if start == 0:
            shown = self.shown_before[end] - self.shown_before[0]
            return _Kept(
                self.views[:end],
                vision,
                self.messages[:shown],
                self.chats[:shown],
                self.shown_before[: end + 1],
                self.tokens_before[: end + 1],
                self.tool_parts_before[: end + 1],
                self.attached_before[: end + 1],
            )
        first = self.shown_before[start] - self.shown_before[0]
        last = self.shown_before[end] - self.shown_before[0]
        return _Kept(
            self.views[start:end],
            vision,
            self.messages[first:last],
            self.chats[first:last],
            self.shown_before[start : end + 1],
            self.tokens_before[start : end + 1],
            self.tool_parts_before[start : end + 1],
            self.attached_before[start : end + 1],
        )

    def add(self, view: MessageView, attachments: Mapping[str, ModelAttachment]) -> None:
        """Convert one more view of the window."""
        self.views.append(view)
        message = model_message(view, attachments, vision=self.vision)
        tokens = 0
        if message is not None:
            tokens = message_tokens(message.get("content") or "", message.get("tool_calls") or None)
            tokens += IMAGE_TOKENS * len(message.get("images") or ())
            self.messages.append(message)
            self.chats.append(chat_messages([message])[0])
        self.shown_before.append(self.shown_before[0] + len(self.messages))
        self.tokens_before.append(self.tokens_before[-1] + tokens)
        self.tool_parts_before.append(self.tool_parts_before[-1] + has_tool_parts(view))
        self.attached_before.append(self.attached_before[-1] + bool(view.attachments))


_kept: dict[str, _Kept] = {}


def window_messages(
    kin_id: str,
    views: list[MessageView],
    attachments: Mapping[str, ModelAttachment],
    *,
    vision: bool,
) -> WindowMessages:
    """The Kin's window (``views``, oldest first) as messages for a call, converting only
    what its window did not hold at its last call (see the module's docstring)."""
    kept = _kept.pop(kin_id, None)
    window = kept.cut(views, vision) if kept is not None else _Kept([], vision)
    for view in views[len(window.views) :]:
        window.add(view, attachments)
    window.views = views
    _kept[kin_id] = window
    if len(_kept) > KEPT_KINS:
        del _kept[next(iter(_kept))]  # the Kin converted longest ago
    messages = window.messages
    if window.tool_parts_before[-1] > window.tool_parts_before[0]:
        return WindowMessages(model_window(messages, True), None, None)
    fitted = model_window(messages, False)
    start = len(messages) - len(fitted)  # the messages before the first user message
    tokens_before = window.tokens_before
    tokens = tokens_before[-1] - tokens_before[0]
    if start:  # less the tokens of the views that gave those messages
        first_shown = window.shown_before.index(window.shown_before[0] + start)
        tokens -= tokens_before[first_shown] - tokens_before[0]
    return WindowMessages(fitted, tuple(window.chats[start:]), tokens)

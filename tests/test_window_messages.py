"""A Kin's window converted for its calls, kept between turns: always what converting it anew
gives, converting only what changed, and never trusting messages a hook changed."""

from __future__ import annotations

import uuid
from dataclasses import replace

from kinbot_core.kins.model_messages import chat_messages
from kinbot_core.kins.prompt_budget import messages_tokens
from kinbot_core.kins.views import MessageView
from kinbot_core.kins.window_messages import WindowMessages, window_messages
from kinbot_core.uploads import ModelAttachment

PHOTO = ModelAttachment("oven.png", "image", "image/png", image=b"\x89PNG")
NOTES = ModelAttachment("notes.txt", "document", "text/plain", text="Preheat to 220 C.")
LOADED = {"u-photo": PHOTO, "u-notes": NOTES}


def view(id: int, role: str = "user", content: str = "", **extra: object) -> MessageView:
    fields: dict[str, object] = {
        "id": id, "kin_id": "k1", "role": role, "source": "user" if role == "user" else "kin",
        "sender_id": None, "sender_name": "Nico" if role == "user" else "Chef",
        "content": content or f"message {id}", "tool_calls": None, "tool_call_id": None,
        "is_error": False, "status": "done", "turn_of": None, "created_at": 0.0, **extra,
    }  # fmt: skip
    return MessageView(**fields)  # type: ignore[arg-type]


def anew(views: list[MessageView], vision: bool = False) -> WindowMessages:
    """The window converted for a Kin never converted before, counted on its own."""
    messages = window_messages(uuid.uuid4().hex, views, LOADED, vision=vision).messages
    return WindowMessages(messages, chat_messages(messages), messages_tokens(messages))


def check(kin: str, views: list[MessageView], vision: bool = False) -> WindowMessages:
    """The kept conversion, checked against converting the window anew."""
    kept = window_messages(kin, views, LOADED, vision=vision)
    expected = anew(views, vision)
    assert kept.messages == expected.messages
    if kept.chats is not None:
        assert kept.chats == expected.chats
        assert kept.tokens == expected.tokens
    return kept


def test_turn_after_turn_it_reads_as_the_window_converted_anew() -> None:
    photo = [{"id": "u-photo", "filename": "oven.png", "kind": "image"}]
    notes = [{"id": "u-notes", "filename": "notes.txt", "kind": "document"}]
    window = [view(1, "assistant", "Before the cut"), view(2), view(3, "assistant")]
    turns = [
        window,  # starts with a reply: the window begins at its first user message
        [*window, view(4, attachments=photo), view(5, "assistant")],
        # the turn's message changed where it is (its status), a new one came after it
        [*window, replace(view(4, attachments=photo), status="done"), view(5, "assistant")],
        [*window, view(4, attachments=photo), view(5, "assistant"), view(6, attachments=notes)],
        [*window[1:], view(7), view(8, "system"), view(9, "assistant")],  # compacted
        [view(10)],
    ]
    for views in turns:
        for vision in (False, True):
            check("kin-a", views, vision)
    call = {"id": "t1", "name": "get_time", "arguments": {}}
    with_tools = [view(1), view(2, "assistant", "", tool_calls=[call]), view(3)]
    assert check("kin-a", with_tools).chats is None  # paired anew: no kept chats
    assert check("kin-a", [view(1), view(3)]).chats is not None
    tail = [view(11), view(12, "assistant")]
    assert check("kin-e", [*with_tools, *tail]).chats is None
    assert check("kin-e", [with_tools[2], *tail]).chats is not None  # the exchange left


def test_what_the_window_held_before_is_not_converted_again() -> None:
    views = [view(1), view(2, "assistant"), view(3), view(4, "assistant"), view(5)]
    first = check("kin-b", views[:3])
    second = check("kin-b", views)
    assert all(a is b for a, b in zip(first.messages, second.messages, strict=False))
    # compacted: the oldest views left the window's start
    slid = check("kin-b", [*views[2:], view(6, "assistant")])
    assert all(a is b for a, b in zip(slid.messages, second.messages[2:], strict=False))
    other_kin = check("kin-c", views[:3])  # another Kin's window is its own
    assert other_kin.messages[0] is not first.messages[0]


def test_a_full_window_sliding_turn_after_turn_reads_as_converted_anew() -> None:
    # As in a long session: each turn adds a message and its reply, the oldest two leave.
    call = {"id": "t1", "name": "get_time", "arguments": {}}
    photo = [{"id": "u-photo", "filename": "oven.png", "kind": "image"}]
    session = [view(1, "assistant", "After the summary")]
    for n in range(2, 40, 2):
        asked = view(n, attachments=photo) if n == 12 else view(n)
        answered = view(n + 1, "assistant", "", tool_calls=[call]) if n == 20 else None
        session += [asked, answered or view(n + 1, "assistant")]
    for end in range(6, len(session) + 1, 2):
        held = session[end - 6 : end]
        kept = check("kin-f", held)
        if not any(v.tool_calls for v in held) and held[0].role == "user":
            assert kept.chats is not None and kept.tokens == anew(held).tokens


def test_a_message_a_hook_changed_is_not_taken_for_the_kept_one() -> None:
    window = check("kin-d", [view(1, content="Is the oven hot?"), view(2, "assistant")])
    given = window.given()
    assert window.unchanged(given)
    given[0]["content"] += " (asked twice)"
    assert not window.unchanged(given)
    assert window.messages[0]["content"] == "[Nico] Is the oven hot?"  # the kept one is intact
    shorter = window.given()[1:]
    assert not window.unchanged(shorter)

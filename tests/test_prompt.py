"""The structure of the system prompt (docs/prompt-system.md)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from kinbot_core.contact_digest import ContactDigest, ContactSummary
from kinbot_core.kins.model_messages import chat_messages, labelled, tool_specs
from kinbot_core.kins.prompt import build_sections
from kinbot_core.kins.service import KinView, MessageView
from kinbot_core.kins.window_messages import window_messages
from kinbot_core.memory import MemoryContext
from kinbot_core.providers import ChatMessage, ToolSpec
from kinbot_core.tools import Speaker

KIN = KinView(
    id="k1", name="Chef", role="Family cook", avatar=None, character="Warm and brief.",
    expertise="Vegetarian cooking.", model="gpt-4o", tools=(), workspace="/tmp/k1",
    state="idle", last_error=None, created_at=0.0, updated_at=0.0,
)  # fmt: skip


class Hinted:
    name = "create_contact"
    description = "Add someone to your contacts."
    parameters: dict[str, object] = {"type": "object", "properties": {}}
    prompt_hint = "Keep your contact registry up to date."

    async def run(self, context: object, arguments: dict[str, object]) -> object:
        return None


def sections(**overrides: object) -> list[str]:
    arguments: dict[str, object] = {
        "speaker": Speaker("user", "u1", "Marie"),
        "language": "fr",
        "contacts": ContactDigest(
            (ContactSummary("c1", "Nicolas", "human"), ContactSummary("c2", "Scout", "kin"))
        ),
        "tools": [Hinted()],
        "memory": MemoryContext(
            summary="We planned the week.", memories=["Marie is allergic to peanuts"]
        ),
        "now": datetime(2026, 12, 2, 18, 30, tzinfo=UTC),
        **overrides,
    }
    return build_sections(KIN, **arguments)  # type: ignore[arg-type]


def test_the_sections_come_in_their_documented_order() -> None:
    built = sections()
    headers = [s.splitlines()[0] if s.startswith("##") else "identity" for s in built]
    assert headers == [
        "identity",
        "## Character",
        "## Expertise",
        "## Who is speaking",
        "## Contacts",
        "## Summary of earlier exchanges",
        "## Relevant memories",
        "## Tools",
        "## Now",
    ]
    assert built[0].startswith("You are Chef, Family cook, a Kin of KinBot")
    assert "Marie (a person using KinBot, user id u1)" in built[3]
    assert "Answer in French" in built[3]
    assert "- Nicolas (human, id c1)" in built[4] and "- Scout (kin, id c2)" in built[4]
    assert "- Marie is allergic to peanuts" in built[6]
    assert "- create_contact: Add someone to your contacts." in built[7]
    assert built[7].endswith("Keep your contact registry up to date.")
    assert "Wednesday 02 December 2026, 18:30" in built[8]


def test_empty_parts_are_left_out_or_said() -> None:
    built = sections(memory=None, contacts=ContactDigest(), tools=[])
    assert not any(s.startswith("## Relevant memories") for s in built)
    assert "## Contacts\nYour contact registry is empty." in built
    assert "## Tools\nYou have no tools in this session." in built


def test_a_registry_longer_than_the_prompt_lists_says_how_to_find_the_rest() -> None:
    listed = tuple(ContactSummary(f"c{n}", f"Person {n}", "human") for n in range(3))
    section = sections(contacts=ContactDigest(listed, unlisted=1_800))[4]
    assert section.splitlines()[1:] == [
        "Some of the people and Kins you know (details: get_contact):",
        "- Person 0 (human, id c0)",
        "- Person 1 (human, id c1)",
        "- Person 2 (human, id c2)",
        "And 1,800 more, not listed here: look them up with search_contacts before saying you "
        "do not know someone or adding them again.",
    ]
    none_listed = sections(contacts=ContactDigest(unlisted=12))[4]
    assert none_listed == (
        "## Contacts\nYou know 12 people and Kins, not listed here: look them up with "
        "search_contacts before saying you do not know someone or adding them again."
    )


def test_other_speakers_are_named_for_what_they_are() -> None:
    kin_speaker = sections(speaker=Speaker("kin", "k2", "Scout"), language="en")
    assert "the Kin Scout (Kin id k2)" in kin_speaker[3]
    cron = sections(speaker=Speaker("cron", "c9", "Morning digest"), language="en")
    assert "the scheduled job Morning digest" in cron[3]


def message(
    id: int, role: str, source: str, name: str, content: str, **extra: object
) -> MessageView:
    fields: dict[str, object] = {
        "id": id, "kin_id": "k1", "role": role, "source": source, "sender_id": None,
        "sender_name": name, "content": content, "tool_calls": None, "tool_call_id": None,
        "is_error": False, "status": "done", "turn_of": None, "created_at": 0.0, **extra,
    }  # fmt: skip
    return MessageView(**fields)  # type: ignore[arg-type]


def converted(history: list[MessageView]) -> list[dict[str, Any]]:
    """The window's messages as a turn of a Kin never converted before gets them."""
    return window_messages(uuid.uuid4().hex, history, {}, vision=False).given()


def test_the_conversation_names_each_author_and_never_starts_mid_exchange() -> None:
    history = [
        message(1, "tool", "kin", "get_time", "09:30", tool_call_id="t0"),
        message(2, "user", "user", "Nico", "Hello"),
        message(3, "system", "system", "KinBot", "an error notice"),
        message(4, "user", "kin", "Scout", "Report ready"),
        message(5, "assistant", "kin", "Chef", "Thanks!"),
    ]
    assert labelled(history[3]) == "[Kin Scout] Report ready"
    assert converted(history) == [
        {"role": "user", "content": "[Nico] Hello"},
        {"role": "user", "content": "[Kin Scout] Report ready"},
        {"role": "assistant", "content": "Thanks!", "tool_calls": []},
    ]


def test_tool_calls_are_always_paired_with_results() -> None:
    call = {"id": "t1", "name": "get_time", "arguments": {}}
    history = [
        message(1, "user", "user", "Nico", "What time is it?"),
        message(2, "assistant", "kin", "Chef", "", tool_calls=[call]),
        # stopped before the tool ran: no result stored
        message(3, "user", "user", "Nico", "Never mind."),
        message(4, "tool", "kin", "get_time", "stray", tool_call_id="t9"),
    ]
    messages = converted(history)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[2] == {
        "role": "tool",
        "content": "Interrupted: this tool call did not run.",
        "tool_call_id": "t1",
        "is_error": True,
    }


def test_a_message_converted_again_reads_as_its_dict_reads_now() -> None:
    history = [
        message(1, "user", "user", "Nico", "Hello"),
        message(2, "assistant", "kin", "Chef", "Hi!"),
    ]
    first = chat_messages(converted(history))
    again = converted(history)
    assert chat_messages(again) == first
    assert all(a is b for a, b in zip(chat_messages(again), first, strict=True))
    again[1]["content"] = "Hi, Nico!"  # a before_chat hook changed it
    changed = chat_messages(again)
    assert changed[0] is first[0]
    assert changed[1] == ChatMessage("assistant", "Hi, Nico!")
    assert labelled(replace(history[0], content="Bye")) == "[Nico] Bye"


def test_sections_written_again_follow_what_changed() -> None:
    tool, contacts = Hinted(), ContactDigest((ContactSummary("c1", "Nicolas", "human"),))
    first = sections(tools=[tool], contacts=contacts)
    assert sections(tools=[tool], contacts=contacts) == first
    tool.description = "Add a person or a Kin to your contacts."  # changed in place
    assert (
        "- create_contact: Add a person or a Kin to your contacts."
        in sections(tools=[tool], contacts=contacts)[7]
    )
    tool.prompt_hint = ""
    assert sections(tools=[tool], contacts=contacts)[7].endswith("to your contacts.")
    # A contact added: the service gives a new digest (it never changes one it gave).
    more = ContactDigest((*contacts.listed, ContactSummary("c2", "Scout", "kin")))
    assert "- Scout (kin, id c2)" in sections(tools=[tool], contacts=more)[4]
    assert "Scout" not in sections(tools=[tool], contacts=contacts)[4]


def test_the_same_tool_definitions_give_the_same_specs_until_a_hook_changes_one() -> None:
    schema = {"type": "object", "properties": {}}
    definitions = [{"name": "get_weather", "description": "The weather.", "parameters": schema}]
    first = tool_specs(definitions)
    assert first == (ToolSpec("get_weather", "The weather.", schema),)
    assert tool_specs([dict(definition) for definition in definitions]) is first
    changed = [{**definitions[0], "description": "Today's weather."}]  # a before_chat hook
    assert tool_specs(changed) == (ToolSpec("get_weather", "Today's weather.", schema),)
    other_schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    assert tool_specs([{**definitions[0], "parameters": other_schema}])[0].parameters == (
        other_schema
    )

"""The Chat Completions body of a request: what a call keeps from the call before (the wire
objects of the same messages, the JSON of the same tools) reads as what it was made from."""

from __future__ import annotations

import orjson

from kinbot_core.providers import ChatMessage, ChatRequest, ImagePart, ToolSpec
from kinbot_plugins.providers.chat_wire import wire_messages, wire_tools

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def written(value: object) -> object:
    return orjson.loads(orjson.dumps(value))


def test_the_same_messages_and_tools_are_written_as_before() -> None:
    hello = ChatMessage("user", "[Nico] Hello")
    tools = (ToolSpec("get_weather", "The weather.", SCHEMA),)
    request = ChatRequest(model="gpt-4o", system="Be brief.", messages=(hello,), tools=tools)
    first = wire_messages(request)
    assert first == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "[Nico] Hello"},
    ]
    assert wire_messages(request)[1] is first[1]
    function = {"name": "get_weather", "description": "The weather.", "parameters": SCHEMA}
    assert written({"tools": wire_tools(tools)}) == {
        "tools": [{"type": "function", "function": function}]
    }
    assert wire_tools(tools) is wire_tools(tools)


def test_other_messages_and_tools_are_written_anew() -> None:
    reply = ChatMessage("assistant", "Sunny.")
    other = ChatMessage("assistant", "Rainy.")
    request = ChatRequest(model="gpt-4o", system="", messages=(reply, other))
    assert wire_messages(request) == [
        {"role": "assistant", "content": "Sunny."},
        {"role": "assistant", "content": "Rainy."},
    ]
    tools = (ToolSpec("get_weather", "The weather.", SCHEMA),)
    more = (*tools, ToolSpec("get_time", "The time.", {"type": "object"}))
    assert wire_tools(tools) is not wire_tools(more)
    names = [tool["function"]["name"] for tool in orjson.loads(orjson.dumps(wire_tools(more)))]
    assert names == ["get_weather", "get_time"]


def test_a_picture_is_sent_each_time_and_not_kept() -> None:
    seen = ChatMessage("user", "Look", images=(ImagePart(b"\x89PNG", "image/png"),))
    request = ChatRequest(model="gpt-4o", system="", messages=(seen,))
    first, again = wire_messages(request)[0], wire_messages(request)[0]
    assert first == again and first is not again
    assert first["content"][1]["image_url"]["url"] == "data:image/png;base64,iVBORw=="


def test_a_kins_next_call_reuses_what_its_messages_began_with() -> None:
    window = tuple(ChatMessage("user" if i % 2 else "assistant", f"m{i}") for i in range(1, 6))
    picture = ChatMessage("user", "Look", images=(ImagePart(b"\x89PNG", "image/png"),))
    first = wire_messages(ChatRequest(model="gpt-4o", messages=(*window, picture)))
    longer = (*window, picture, ChatMessage("assistant", "A cake."))
    second = wire_messages(ChatRequest(model="gpt-4o", messages=longer))
    assert second == [*first, {"role": "assistant", "content": "A cake."}]
    assert all(a is b for a, b in zip(first[:5], second[:5], strict=True))
    assert second[5] is not first[5]  # the picture is written anew
    changed = (*window[:3], ChatMessage("user", "m4, edited"), window[4])
    third = wire_messages(ChatRequest(model="gpt-4o", messages=changed))
    assert [m["content"] for m in third] == ["m1", "m2", "m3", "m4, edited", "m5"]

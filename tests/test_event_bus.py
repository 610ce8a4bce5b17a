"""The event bus: the catalogue, ordered delivery, wildcards, isolation of handlers."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from kinbot_core import Event
from kinbot_core.events import CORE_EVENTS, EventBus, UnknownEventType
from kinbot_core.events.catalogue import KinCreated, KinDeleted, UserLogin

SPEC_SECTION_13 = {
    "kin.created", "kin.deleted", "kin.message.received", "kin.message.sent",
    "task.spawned", "task.status.changed", "task.completed", "task.failed",
    "cron.created", "cron.triggered", "cron.execution.completed",
    "contact.created", "contact.updated",
    "user.login", "user.logout", "user.created",
    "provider.added", "provider.removed", "provider.error",
}  # fmt: skip


def bus_with_catalogue(**kwargs: object) -> EventBus:
    bus = EventBus(**kwargs)  # type: ignore[arg-type]
    for event_class in CORE_EVENTS:
        bus.register_type(event_class)
    return bus


def test_the_catalogue_holds_every_event_of_the_specification() -> None:
    names = {event_class.type for event_class in CORE_EVENTS}
    assert names >= SPEC_SECTION_13
    assert "plugin.error" in names
    assert all(event_class.description for event_class in CORE_EVENTS)


async def test_subscribers_receive_events_in_order_by_type_prefix_or_all() -> None:
    bus = bus_with_catalogue()
    exact: list[str] = []
    prefix: list[str] = []
    everything: list[str] = []
    bus.on(KinCreated, lambda e: exact.append(e.type))
    bus.on("kin.*", lambda e: prefix.append(e.type))
    bus.on("*", lambda e: everything.append(e.type))
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    bus.emit(UserLogin(user_id="u1"))
    bus.emit(KinDeleted(kin_id="k1"))
    await bus.flush()
    assert exact == ["kin.created"]
    assert prefix == ["kin.created", "kin.deleted"]
    assert everything == ["kin.created", "user.login", "kin.deleted"]


async def test_a_subscriber_added_after_events_of_its_type_gets_the_next_ones() -> None:
    bus = bus_with_catalogue()
    early: list[str] = []
    late: list[str] = []
    first, second = KinCreated(kin_id="k1", name="Chef"), KinCreated(kin_id="k2", name="Scribe")
    bus.on("kin.*", lambda e: early.append(e.id))
    bus.emit(first)
    bus.on(KinCreated, lambda e: late.append(e.id))
    bus.emit(second)
    await bus.flush()
    assert (early, late) == ([first.id, second.id], [second.id])


async def test_emit_returns_before_async_handlers_run_and_unsubscribe_stops_delivery() -> None:
    bus = bus_with_catalogue()
    seen: list[str] = []

    async def handler(event: Event) -> None:
        await asyncio.sleep(0)
        seen.append(event.id)

    unsubscribe = bus.on("kin.created", handler)
    first = KinCreated(kin_id="k1", name="Chef")
    bus.emit(first)
    assert seen == []
    await bus.flush()
    assert seen == [first.id]
    unsubscribe()
    bus.emit(KinCreated(kin_id="k2", name="Scribe"))
    await bus.flush()
    assert seen == [first.id]


async def test_a_failing_or_slow_handler_delays_and_breaks_nobody_else() -> None:
    failures: list[tuple[str, str]] = []
    bus = bus_with_catalogue(
        handler_timeout=0.05,
        on_handler_error=lambda owner, event, exc: failures.append((owner, type(exc).__name__)),
    )
    delivered: list[str] = []

    def broken(event: Event) -> None:
        raise RuntimeError("nope")

    async def stuck(event: Event) -> None:
        await asyncio.sleep(30)

    bus.on("*", broken, owner="broken_plugin")
    bus.on("*", stuck, owner="stuck_plugin")
    bus.on("*", lambda e: delivered.append(e.type), owner="healthy_plugin")
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    bus.emit(KinDeleted(kin_id="k1"))
    await bus.flush()
    assert delivered == ["kin.created", "kin.deleted"]
    assert sorted(set(failures)) == [
        ("broken_plugin", "RuntimeError"),
        ("stuck_plugin", "TimeoutError"),
    ]


async def test_unknown_event_types_are_refused() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Undeclared(Event):
        type = "garden.watered"

    bus = bus_with_catalogue()
    with pytest.raises(UnknownEventType):
        bus.emit(Undeclared())
    bus.register_type(Undeclared, owner="garden")
    bus.emit(Undeclared())
    bus.unregister_types("garden")
    with pytest.raises(UnknownEventType):
        bus.emit(Undeclared())


def test_an_event_type_cannot_be_declared_twice_by_different_classes() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Impostor(Event):
        type = "kin.created"

    bus = bus_with_catalogue()
    with pytest.raises(UnknownEventType, match="already declared"):
        bus.register_type(Impostor, owner="impostor")


def test_events_serialise_with_their_payload() -> None:
    event = KinCreated(kin_id="k1", name="Chef")
    data = event.to_dict()
    assert data["type"] == "kin.created"
    assert data["payload"] == {"kin_id": "k1", "name": "Chef"}
    assert data["id"] == event.id


async def test_a_plugin_cannot_take_over_a_core_event_type() -> None:
    bus = bus_with_catalogue()
    bus.register_type(KinCreated, owner="sneaky")
    bus.unregister_types("sneaky")
    bus.emit(KinCreated(kin_id="k1", name="Chef"))  # still in the catalogue
    with pytest.raises(ValueError):
        bus.unregister_types("core")


async def test_unsubscribing_with_pending_events_does_not_hang_flush() -> None:
    bus = bus_with_catalogue()
    gate = asyncio.Event()

    async def blocked(event: Event) -> None:
        await gate.wait()

    unsubscribe = bus.on("*", blocked)
    for index in range(3):
        bus.emit(KinCreated(kin_id=str(index), name="Chef"))
    await asyncio.sleep(0)
    unsubscribe()
    await asyncio.wait_for(bus.flush(), 5)


async def test_close_delivers_what_is_queued_then_drops_later_events() -> None:
    bus = bus_with_catalogue()
    seen: list[str] = []

    async def slow(event: Event) -> None:
        await asyncio.sleep(0.01)
        seen.append(event.type)

    bus.on("*", slow)
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    await bus.close(grace=5)
    assert seen == ["kin.created"]
    bus.emit(KinDeleted(kin_id="k1"))
    await bus.flush()
    assert seen == ["kin.created"]


async def test_plain_handlers_are_called_after_emit_returns_in_order_with_the_rest() -> None:
    bus = bus_with_catalogue()
    seen: list[tuple[str, str]] = []

    async def slow(event: Event) -> None:
        await asyncio.sleep(0)
        seen.append(("async", event.type))

    bus.on("*", lambda e: seen.append(("plain", e.type)))
    bus.on("*", slow)
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    bus.emit(KinDeleted(kin_id="k1"))
    assert seen == []  # the publisher is never held up by a handler
    await bus.flush()
    assert [kind for kind in seen if kind[0] == "plain"] == [
        ("plain", "kin.created"),
        ("plain", "kin.deleted"),
    ]
    assert [kind for kind in seen if kind[0] == "async"] == [
        ("async", "kin.created"),
        ("async", "kin.deleted"),
    ]


async def test_a_plain_function_giving_an_awaitable_is_awaited_in_order_within_the_timeout() -> (
    None
):
    failures: list[str] = []
    bus = bus_with_catalogue(
        handler_timeout=0.05, on_handler_error=lambda owner, event, exc: failures.append(owner)
    )
    seen: list[str] = []

    async def note(event: Event, rounds: int) -> None:
        for _ in range(rounds):  # gives the loop to whatever else is ready, meanwhile
            await asyncio.sleep(0)
        seen.append(event.type)

    async def stuck(event: Event) -> None:
        await asyncio.sleep(30)

    bus.on("kin.*", lambda e: note(e, 3 if e.type == "kin.created" else 0), owner="wrapped")
    bus.on("user.*", lambda e: stuck(e), owner="stuck")
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    bus.emit(KinDeleted(kin_id="k1"))
    bus.emit(UserLogin(user_id="u1"))
    await bus.flush()
    assert seen == ["kin.created", "kin.deleted"]  # the slower first one still comes first
    assert failures == ["stuck"]


async def test_events_emitted_by_a_handler_come_in_a_later_round() -> None:
    bus = bus_with_catalogue()
    seen: list[str] = []

    def answer(event: Event) -> None:
        seen.append(event.type)
        if isinstance(event, KinCreated):
            bus.emit(KinDeleted(kin_id=event.kin_id))

    bus.on("kin.*", answer)
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    await asyncio.sleep(0)
    assert seen == ["kin.created"]  # the loop went round between the two
    await bus.flush()
    assert seen == ["kin.created", "kin.deleted"]


async def test_a_plain_handler_unsubscribed_before_its_turn_gets_nothing() -> None:
    bus = bus_with_catalogue()
    seen: list[str] = []
    unsubscribe = bus.on("*", lambda e: seen.append(e.type))
    bus.emit(KinCreated(kin_id="k1", name="Chef"))
    unsubscribe()
    await bus.flush()
    assert seen == []

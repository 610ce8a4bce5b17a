"""How much the plugin machinery costs on the hot path of a turn.

Prints, per ``before_chat`` call, the time through KinBot's async ``HookCaller`` and through
pluggy's own synchronous call, for 1 and 10 implementations (sync and async), and the
event bus's delivery rate. Run: ``.venv/bin/python -m benchmarks.hook_overhead``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

import pluggy

import hookspecs
from kinbot_core import ChatContext, KinRef, hookimpl
from kinbot_core.events import CORE_EVENTS, EventBus
from kinbot_core.events.catalogue import KinMessageSent
from kinbot_core.plugins import HookCaller

KIN = KinRef(id="k1", name="Chef", model="gpt-4o")
CALLS = 20_000


class SyncSection:
    @hookimpl
    def before_chat(self, context: ChatContext) -> None:
        context.extra["n"] = context.extra.get("n", 0) + 1


class AsyncSection:
    @hookimpl
    async def before_chat(self, context: ChatContext) -> None:
        context.extra["n"] = context.extra.get("n", 0) + 1


def manager_with(plugin_class: type, count: int) -> pluggy.PluginManager:
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    for module in hookspecs.SPEC_MODULES:
        manager.add_hookspecs(module)
    for index in range(count):
        manager.register(plugin_class(), name=f"p{index}")
    return manager


async def per_call_us(call: Callable[[], Awaitable[object]]) -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(CALLS):
            await call()
        samples.append((time.perf_counter() - started) / CALLS * 1e6)
    return statistics.median(samples)


async def measure(manager: pluggy.PluginManager, with_pluggy: bool) -> tuple[float, float | None]:
    """Microseconds per call through HookCaller, and through pluggy when asked."""
    caller = HookCaller(manager, timeout=10, report=lambda *failure: None)
    context = ChatContext(model="gpt-4o")

    async def through_caller() -> object:
        return await caller.call("before_chat", kin=KIN, context=context)

    async def through_pluggy() -> object:
        return manager.hook.before_chat(kin=KIN, context=context)

    theirs = await per_call_us(through_pluggy) if with_pluggy else None
    return await per_call_us(through_caller), theirs


async def main() -> None:
    print(f"before_chat, median of 5 x {CALLS} calls (microseconds per call)")
    print(f"{'implementations':<22}{'HookCaller':>12}{'pluggy (sync)':>16}")
    for label, plugin_class, count in [
        ("1 sync", SyncSection, 1),
        ("10 sync", SyncSection, 10),
        ("1 async", AsyncSection, 1),
        ("10 async", AsyncSection, 10),
    ]:
        # pluggy cannot await: an async implementation only gives it a coroutine.
        ours, theirs = await measure(manager_with(plugin_class, count), plugin_class is SyncSection)
        shown = "n/a" if theirs is None else f"{theirs:.2f}"
        print(f"{label:<22}{ours:>12.2f}{shown:>16}")

    bus = EventBus()
    for event_class in CORE_EVENTS:
        bus.register_type(event_class)
    received = 0

    def handler(event: object) -> None:
        nonlocal received
        received += 1

    for _ in range(10):
        bus.on("*", handler)
    events = 50_000
    started = time.perf_counter()
    for index in range(events):
        bus.emit(KinMessageSent(kin_id="k1", message_id=str(index)))
    await bus.flush()
    elapsed = time.perf_counter() - started
    print(
        f"event bus: {events} events x 10 subscribers delivered in {elapsed:.2f} s "
        f"({received / elapsed:,.0f} deliveries/s)"
    )


if __name__ == "__main__":
    asyncio.run(main())

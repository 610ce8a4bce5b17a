"""The async hook caller: awaiting, argument passing, isolation of observers, fail-closed policy."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kinbot_core import ChatContext, HookVeto, KinRef, Outcome, ToolCall, hookimpl
from kinbot_core.events.catalogue import PluginError
from kinbot_core.platform import Platform
from kinbot_core.plugins import HookCaller, PluginManager

KIN = KinRef(id="kin-1", name="Chef", model="gpt-4o")


class Recorder:
    def __init__(self) -> None:
        self.failures: list[tuple[str, str, BaseException]] = []

    def __call__(self, plugin: str, hook: str, exc: BaseException) -> None:
        self.failures.append((plugin, hook, exc))


def caller(*plugins: tuple[str, object], timeout: float = 1.0) -> tuple[HookCaller, Recorder]:
    manager = PluginManager()
    for name, plugin in plugins:
        manager.register(plugin, name)
    recorder = Recorder()
    return HookCaller(manager.pluggy, timeout=timeout, report=recorder), recorder


class SyncSection:
    @hookimpl
    def before_chat(self, context: ChatContext) -> None:
        context.system_prompt.append("sync")


class AsyncSection:
    @hookimpl
    async def before_chat(self, kin: KinRef, context: ChatContext) -> None:
        await asyncio.sleep(0)
        context.system_prompt.append(f"async for {kin.name}")


class Exploding:
    @hookimpl
    def before_chat(self, context: ChatContext) -> None:
        raise ValueError("boom")


class Sleeper:
    @hookimpl
    async def before_chat(self, context: ChatContext) -> None:
        await asyncio.sleep(30)


async def test_sync_and_async_implementations_both_run_in_pluggy_order() -> None:
    hooks, recorder = caller(("first", SyncSection()), ("second", AsyncSection()))
    context = ChatContext(model="gpt-4o")
    await hooks.call("before_chat", kin=KIN, context=context)
    # pluggy calls the last registered implementation first
    assert context.system_prompt == ["async for Chef", "sync"]
    assert recorder.failures == []


async def test_an_observer_that_raises_is_isolated_and_the_others_run() -> None:
    hooks, recorder = caller(("good", SyncSection()), ("bad", Exploding()))
    context = ChatContext(model="gpt-4o")
    await hooks.call("before_chat", kin=KIN, context=context)
    assert context.system_prompt == ["sync"]
    [(plugin, hook, exc)] = recorder.failures
    assert (plugin, hook, str(exc)) == ("bad", "before_chat", "boom")


async def test_an_observer_that_hangs_is_cut_off_by_the_timeout() -> None:
    hooks, recorder = caller(("good", SyncSection()), ("slow", Sleeper()), timeout=0.05)
    context = ChatContext(model="gpt-4o")
    await hooks.call("before_chat", kin=KIN, context=context)
    assert context.system_prompt == ["sync"]
    assert [(p, type(e)) for p, _h, e in recorder.failures] == [("slow", TimeoutError)]


async def test_a_hook_cut_off_or_cancelled_while_it_waits_is_cancelled_inside() -> None:
    stages: list[str] = []

    class Waiting:
        @hookimpl
        async def before_chat(self, context: ChatContext) -> None:
            stages.append("started")
            await asyncio.sleep(0)
            stages.append("resumed")
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                stages.append("cancelled")
                raise

    hooks, recorder = caller(("waiting", Waiting()), timeout=0.05)
    await hooks.call("before_chat", context=ChatContext(model="gpt-4o"))
    assert stages == ["started", "resumed", "cancelled"]
    assert [type(e) for _p, _h, e in recorder.failures] == [TimeoutError]

    started = asyncio.Event()

    class Busy:  # gives way to the loop without waiting for anything
        @hookimpl
        async def before_chat(self, context: ChatContext) -> None:
            stages.append("started")
            started.set()
            try:
                for _ in range(1000):
                    await asyncio.sleep(0)
            except asyncio.CancelledError:
                stages.append("cancelled")
                raise
            stages.append("finished")

    stages.clear()
    hooks, recorder = caller(("busy", Busy()), timeout=60)
    calling = asyncio.ensure_future(hooks.call("before_chat", context=ChatContext(model="m")))
    await started.wait()
    calling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await calling
    assert stages == ["started", "cancelled"] and recorder.failures == []


async def test_a_hook_waiting_more_than_once_gets_each_result() -> None:
    class Asking:
        @hookimpl
        async def after_chat(self, outcome: Outcome) -> str:
            loop = asyncio.get_running_loop()
            first: asyncio.Future[str] = loop.create_future()
            loop.call_soon(first.set_result, "first")
            second: asyncio.Future[str] = loop.create_future()
            loop.call_soon(second.set_result, "second")
            return f"{await first}, {await second}, {outcome.result}"

    hooks, _ = caller(("asking", Asking()))
    results = await hooks.call(
        "after_chat", kin=KIN, context=ChatContext(model="m"), outcome=Outcome(0.1, result="hi")
    )
    assert results == ["first, second, hi"]


class Vetoer:
    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        if call.name == "get_secret":
            raise HookVeto("secrets are off limits tonight")


class BrokenPolicy:
    @hookimpl
    async def before_tool_call(self, call: ToolCall) -> None:
        raise RuntimeError("policy store unreachable")


class ArgumentRewriter:
    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        call.arguments["limit"] = 5


async def test_a_veto_blocks_the_action_and_names_the_plugin() -> None:
    hooks, _ = caller(("guard", Vetoer()))
    with pytest.raises(HookVeto) as raised:
        await hooks.call("before_tool_call", kin=KIN, call=ToolCall("c1", "get_secret", {}))
    assert raised.value.plugin == "guard"
    assert raised.value.reason == "secrets are off limits tonight"
    assert await hooks.call("before_tool_call", kin=KIN, call=ToolCall("c2", "recall", {})) == []


async def test_a_policy_hook_that_raises_anything_fails_closed() -> None:
    hooks, recorder = caller(("broken", BrokenPolicy()))
    with pytest.raises(HookVeto) as raised:
        await hooks.call("before_tool_call", kin=KIN, call=ToolCall("c1", "recall", {}))
    assert raised.value.plugin == "broken"
    assert "policy store unreachable" in raised.value.reason
    assert [p for p, _h, _e in recorder.failures] == ["broken"]


async def test_a_policy_hook_may_change_the_arguments() -> None:
    hooks, _ = caller(("rewriter", ArgumentRewriter()))
    call = ToolCall("c1", "search_history", {"query": "rome"})
    await hooks.call("before_tool_call", kin=KIN, call=call)
    assert call.arguments == {"query": "rome", "limit": 5}


async def test_a_veto_raised_from_an_observer_does_not_stop_the_caller() -> None:
    class VetoInObserver:
        @hookimpl
        def after_tool_call(self, outcome: Outcome) -> None:
            raise HookVeto("too late to veto")

    hooks, recorder = caller(("late", VetoInObserver()))
    call = ToolCall("c1", "recall", {})
    await hooks.call("after_tool_call", kin=KIN, call=call, outcome=Outcome(duration=0.1))
    assert [p for p, _h, _e in recorder.failures] == ["late"]


async def test_results_are_collected_and_only_declared_arguments_passed() -> None:
    seen: list[dict[str, Any]] = []

    class Reporter:
        @hookimpl
        def after_chat(self, outcome: Outcome) -> str:
            seen.append({"outcome": outcome})
            return f"took {outcome.duration}"

    hooks, _ = caller(("reporter", Reporter()))
    context = ChatContext(model="m")
    results = await hooks.call(
        "after_chat", kin=KIN, context=context, outcome=Outcome(duration=1.5, result="hi")
    )
    assert results == ["took 1.5"]
    assert seen[0]["outcome"].ok


async def test_an_implementation_returning_an_awaitable_is_awaited() -> None:
    class Deferred:
        @hookimpl
        def after_chat(self, outcome: Outcome) -> asyncio.Future[str]:
            answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            answer.set_result(f"later: {outcome.result}")
            return answer

    hooks, _ = caller(("deferred", Deferred()))
    results = await hooks.call(
        "after_chat", kin=KIN, context=ChatContext(model="m"), outcome=Outcome(0.1, result="hi")
    )
    assert results == ["later: hi"]


async def test_unknown_hooks_are_a_programming_error() -> None:
    hooks, _ = caller()
    with pytest.raises(AttributeError):
        await hooks.call("before_everything")


async def test_a_failing_observer_is_published_on_the_event_bus(platform: Platform) -> None:
    platform.plugins.register(Exploding(), "exploding")
    received: list[PluginError] = []
    platform.bus.on(PluginError, received.append)  # type: ignore[arg-type]
    context = ChatContext(model="gpt-4o")
    await platform.hooks.call("before_chat", kin=KIN, context=context)
    await platform.bus.flush()
    assert [(e.plugin, e.hook, e.error) for e in received] == [
        ("exploding", "before_chat", "ValueError: boom")
    ]


async def test_a_policy_hook_that_hangs_fails_closed() -> None:
    class SlowPolicy:
        @hookimpl
        async def on_task_spawn(self) -> None:
            await asyncio.sleep(30)

    hooks, _ = caller(("slow_policy", SlowPolicy()), timeout=0.05)
    from kinbot_core import TaskSpawn

    task = TaskSpawn("t1", "k1", "k1", "research", "await", 1, "gpt-4o")
    with pytest.raises(HookVeto) as raised:
        await hooks.call("on_task_spawn", kin=KIN, task=task)
    assert raised.value.plugin == "slow_policy"
    assert raised.value.reason == "timed out"

"""Meta-tests of the plugin contract, in the style of datasette's: every hookspec is specified,
documented in docs/plugins.md, and exercised through the core's async caller."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pluggy
import pytest

import hookspecs
from hookspecs import is_fail_closed
from hookspecs.types import (
    ChatContext,
    CompactingContext,
    CronTrigger,
    KinRef,
    Outcome,
    TaskSpawn,
    ToolCall,
)
from kinbot_core.plugins import HookCaller

ROOT = Path(__file__).resolve().parents[1]
LIFECYCLE = {
    "before_chat", "after_chat", "before_tool_call", "after_tool_call",
    "before_compacting", "after_compacting", "on_task_spawn", "on_cron_trigger",
    "tools_for_kin",
}  # fmt: skip
REGISTRATION = {
    "register_providers", "register_tools", "register_memory_backends",
    "register_search_providers", "register_routes", "register_events", "register_settings",
    "register_channels",
}  # fmt: skip
POLICY = {"before_tool_call", "on_task_spawn", "on_cron_trigger"}


def all_hookspecs() -> dict[str, Any]:
    specs = {}
    for module in hookspecs.SPEC_MODULES:
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if hasattr(function, f"{hookspecs.PROJECT_NAME}_spec"):
                specs[name] = function
    return specs


def test_the_contract_has_exactly_the_specified_hooks() -> None:
    assert set(all_hookspecs()) == LIFECYCLE | REGISTRATION


def test_policy_hooks_are_marked_fail_closed() -> None:
    assert {name for name, spec in all_hookspecs().items() if is_fail_closed(spec)} == POLICY


@pytest.mark.parametrize("name", sorted(LIFECYCLE | REGISTRATION))
def test_every_hookspec_has_a_docstring_saying_when_it_runs(name: str) -> None:
    doc = inspect.getdoc(all_hookspecs()[name]) or ""
    assert len(doc) > 80
    assert re.search(r"\b(called|calls|runs?)\b", doc, re.IGNORECASE)


def documented_hooks() -> list[str]:
    text = (ROOT / "docs" / "plugins.md").read_text()
    return re.findall(r"^### `(\w+)`", text, re.MULTILINE)


def test_docs_plugins_documents_every_hook_once() -> None:
    assert sorted(documented_hooks()) == sorted(all_hookspecs())


def test_docs_plugins_shows_each_hooks_signature() -> None:
    text = (ROOT / "docs" / "plugins.md").read_text()
    for name, spec in all_hookspecs().items():
        arguments = ", ".join(inspect.signature(spec).parameters)
        assert f"{name}({arguments})" in text, f"signature of {name} missing from docs/plugins.md"


KIN = KinRef(id="k1", name="Chef", model="gpt-4o")
EXAMPLE_ARGUMENTS: dict[str, Any] = {
    "kin": KIN,
    "context": ChatContext(model="gpt-4o"),
    "outcome": Outcome(duration=0.5, result="done"),
    "call": ToolCall("c1", "recall", {"query": "pizza"}),
    "compacting": CompactingContext(message_ids=["m1", "m2"]),
    "task": TaskSpawn("t1", "k1", "k1", "find flights", "await", 1, "gpt-4o"),
    "cron": CronTrigger("c1", "k1", "digest", "0 9 * * *", "summarise the news"),
    "register": lambda item: None,
    "subscribe": lambda pattern, handler: None,
    "platform": object(),
    "approved": False,
}


@pytest.mark.parametrize("name", sorted(LIFECYCLE | REGISTRATION))
async def test_every_hook_reaches_an_async_implementation_with_its_arguments(name: str) -> None:
    spec = all_hookspecs()[name]
    parameters = list(inspect.signature(spec).parameters)
    received: dict[str, Any] = {}

    async def implementation(**kwargs: Any) -> str:
        received.update(kwargs)
        return "seen"

    # An implementation with exactly the spec's parameters, as a plugin author writes it.
    namespace: dict[str, Any] = {"implementation": implementation}
    exec(
        f"async def {name}({', '.join(parameters)}):\n"
        f"    return await implementation({', '.join(f'{p}={p}' for p in parameters)})",
        namespace,
    )
    plugin = type("Plugin", (), {name: staticmethod(hookspecs.hookimpl(namespace[name]))})
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    for module in hookspecs.SPEC_MODULES:
        manager.add_hookspecs(module)
    manager.register(plugin(), name="probe")
    manager.check_pending()
    failures: list[BaseException] = []
    caller = HookCaller(manager, timeout=2, report=lambda p, h, e: failures.append(e))
    arguments = {p: EXAMPLE_ARGUMENTS[p] for p in parameters}
    assert await caller.call(name, **arguments) == ["seen"]
    assert received == arguments
    assert failures == []

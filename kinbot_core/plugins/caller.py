"""Calling hooks from async code: pluggy's registry and order, our awaiting and isolation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Generator, Mapping
from types import CoroutineType
from typing import Any

import pluggy

from hookspecs import HookVeto, is_fail_closed
from kinbot_core.awaitables import is_awaitable

logger = logging.getLogger(__name__)

#: Told of every failing implementation: (plugin name, hook name, exception).
ErrorReporter = Callable[[str, str, BaseException], None]


class HookCaller:
    """Walks a hook's implementations in pluggy's order and awaits what is awaitable.

    pluggy's own calling is synchronous (an ``async def`` implementation would come back as an
    un-awaited coroutine), so the core calls hooks only through this class. Each
    implementation gets just the arguments it declares and ``timeout`` seconds; a failure in an
    observer hook is reported and skipped; in a ``fail_closed`` hook it becomes a ``HookVeto``.
    ``firstresult`` hooks stop at the first non-``None`` value.
    """

    def __init__(
        self,
        pm: pluggy.PluginManager,
        *,
        timeout: float,
        report: ErrorReporter,
        context: Mapping[str, Any] | None = None,
    ):
        self._pm = pm
        self._timeout = timeout
        self._report = report
        #: Arguments every call offers (``platform``), for implementations that declare them.
        self._context = dict(context or {})

    async def call(
        self,
        hook_name: str,
        /,
        *,
        only: str | None = None,
        bind: Callable[[str], Mapping[str, Any]] | None = None,
        failed: set[str] | None = None,
        **kwargs: Any,
    ) -> list[Any]:
        """Call ``hook_name`` with ``kwargs``; return the non-``None`` results in call order.

        ``only`` restricts the call to one plugin. ``bind(plugin_name)`` adds per-plugin
        arguments (registration hooks use it to tell ``register`` who is registering).
        The names of the plugins whose implementation failed are added to ``failed``.
        Raises ``HookVeto`` when a ``fail_closed`` hook refuses.
        """
        caller = getattr(self._pm.hook, hook_name, None)
        if caller is None or caller.spec is None:
            raise AttributeError(f"no hook specification named {hook_name!r}")
        policy = is_fail_closed(caller.spec.function)
        firstresult = bool(caller.spec.opts.get("firstresult"))
        results: list[Any] = []
        for impl in reversed(caller.get_hookimpls()):
            if only is not None and impl.plugin_name != only:
                continue
            available = {**self._context, **kwargs}
            if bind is not None:
                available.update(bind(impl.plugin_name))
            try:
                value = await self._invoke(impl, available)
            except HookVeto as veto:
                veto.plugin = impl.plugin_name
                if failed is not None:
                    failed.add(impl.plugin_name)
                if policy:
                    raise
                self._failed(impl.plugin_name, hook_name, veto)
                continue
            except Exception as exc:
                if failed is not None:
                    failed.add(impl.plugin_name)
                self._failed(impl.plugin_name, hook_name, exc)
                if policy:
                    raise HookVeto(_describe(exc), plugin=impl.plugin_name) from exc
                continue
            if value is not None:
                results.append(value)
                if firstresult:
                    break
        return results

    async def _invoke(self, impl: pluggy.HookImpl, available: Mapping[str, Any]) -> Any:
        try:
            args = {name: available[name] for name in impl.argnames}
        except KeyError as missing:
            raise TypeError(f"hook call must provide argument {missing.args[0]!r}") from None
        args.update({name: available[name] for name in impl.kwargnames if name in available})
        value = impl.function(**args)
        if isinstance(value, CoroutineType):
            # Most implementations finish without waiting for anything: run them up to their
            # first wait, and only a wait runs under the time limit (a timer costs 5 µs).
            try:
                waiting = value.send(None)
            except StopIteration as finished:
                return finished.value
            value = _Continued(value, waiting)
        if is_awaitable(value):
            async with asyncio.timeout(self._timeout):
                value = await value
        return value

    def _failed(self, plugin: str, hook_name: str, exc: BaseException) -> None:
        logger.error(
            "plugin %s failed in %s: %s",
            plugin,
            hook_name,
            _describe(exc),
            exc_info=not isinstance(exc, (TimeoutError, HookVeto)),
        )
        self._report(plugin, hook_name, exc)


class _Continued:
    """A coroutine already run up to its first wait, to be awaited for the rest: what it
    waits for goes to the awaiting task, and what the task sends or throws back goes to it,
    as ``await`` itself would do."""

    def __init__(self, coroutine: CoroutineType[Any, Any, Any], waiting: Any) -> None:
        self._coroutine = coroutine
        self._waiting = waiting

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, waiting = self._coroutine, self._waiting
        while True:
            resume: Callable[[Any], Any]
            try:
                sent = yield waiting
            except BaseException as exc:  # a cancellation (the time limit's, say): into it
                resume, sent = coroutine.throw, exc
            else:
                resume = coroutine.send
            try:
                waiting = resume(sent)
            except StopIteration as finished:
                return finished.value


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"[:500]

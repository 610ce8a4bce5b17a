"""Bounded retries with backoff for transient provider failures."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from kinbot_core.providers.errors import ProviderError, RateLimited

T = TypeVar("T")
#: Told of each failure, and whether it will be retried.
FailureCallback = Callable[[ProviderError, bool], None]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a transient failure is retried."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based): the provider's
        Retry-After when it gave one, else exponential backoff with jitter."""
        if isinstance(error, RateLimited) and error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.max_delay)
        backoff: float = min(self.base_delay * 2**attempt, self.max_delay)
        return backoff * random.uniform(0.8, 1.2)


async def call_with_retries(
    call: Callable[[], Awaitable[T]], policy: RetryPolicy, on_failure: FailureCallback
) -> T:
    """Await ``call()``, retrying transient ``ProviderError``s as the policy allows."""
    attempt = 0
    while True:
        try:
            return await call()
        except ProviderError as error:
            retry = error.transient and attempt < policy.max_retries
            on_failure(error, retry)
            if not retry:
                raise
            await asyncio.sleep(policy.delay(attempt, error))
            attempt += 1


async def stream_with_retries(
    start: Callable[[], AsyncIterator[T]], policy: RetryPolicy, on_failure: FailureCallback
) -> AsyncIterator[T]:
    """Iterate ``start()``; a transient failure before the first item starts it again.

    Once an item has been yielded the stream is not replayed (the consumer has seen it), so
    a later failure is raised as it is.
    """
    attempt = 0
    while True:
        started = False
        try:
            async for item in start():
                started = True
                yield item
            return
        except ProviderError as error:
            retry = error.transient and not started and attempt < policy.max_retries
            on_failure(error, retry)
            if not retry:
                raise
            await asyncio.sleep(policy.delay(attempt, error))
            attempt += 1

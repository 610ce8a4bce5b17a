"""Time per streamed token through KinBot's LLM interface, divided by the same stream read
with the bare SDK, against the same fake server on loopback (target: at most 1.05).

Run: ``.venv/bin/python -m benchmarks.stream_overhead``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

import anthropic
import openai

from benchmarks.fake_process import fake_in_subprocess
from kinbot_core.providers import ChatMessage, ChatRequest, TextDelta
from kinbot_plugins.providers.anthropic_provider import anthropic_type
from kinbot_plugins.providers.openai_provider import openai_type

TOKENS = 2000  # streamed deltas per reply
ROUNDS = 15
KEY = "sk-benchmark"


async def timed(read: Callable[[], Awaitable[int]]) -> float:
    started = time.perf_counter()
    count = await read()
    elapsed = time.perf_counter() - started
    assert count >= TOKENS * 0.9, count
    return elapsed / count


async def compare(
    name: str,
    platform_read: Callable[[], Awaitable[int]],
    sdk_read: Callable[[], Awaitable[int]],
) -> None:
    await platform_read()  # warm both paths up
    await sdk_read()
    ours, theirs = [], []
    for _ in range(ROUNDS):  # interleaved, so machine noise hits both alike
        ours.append(await timed(platform_read))
        theirs.append(await timed(sdk_read))
    ratio = statistics.median(o / t for o, t in zip(ours, theirs, strict=True))
    print(
        f"{name:<10} platform {statistics.median(ours) * 1e6:7.1f} µs/token   "
        f"bare SDK {statistics.median(theirs) * 1e6:7.1f} µs/token   ratio {ratio:.3f}"
    )


async def openai_case(base_url: str) -> None:
    provider = openai_type.create({"api_key": KEY, "base_url": f"{base_url}/v1"}, timeout=60)
    assert provider.llm is not None
    llm = provider.llm
    request = ChatRequest("gpt-4o", (ChatMessage("user", "Tell me a long story."),))
    client = openai.AsyncOpenAI(api_key=KEY, base_url=f"{base_url}/v1", max_retries=0)

    async def platform_read() -> int:
        return sum([1 async for e in llm.chat(request) if isinstance(e, TextDelta)])

    async def sdk_read() -> int:
        stream = await client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": "Tell me a long story."}],
            stream=True,
            stream_options={"include_usage": True},
            max_completion_tokens=4096,
        )
        count = 0
        async for chunk in stream:
            for choice in chunk.choices:
                if choice.delta.content:
                    count += 1
        return count

    await compare("openai", platform_read, sdk_read)
    await provider.aclose()
    await client.close()


async def anthropic_case(base_url: str) -> None:
    provider = anthropic_type.create({"api_key": KEY, "base_url": base_url}, timeout=60)
    llm = provider.llm
    request = ChatRequest("claude-haiku-4-5", (ChatMessage("user", "Tell me a long story."),))
    client = anthropic.AsyncAnthropic(api_key=KEY, base_url=base_url, max_retries=0)

    async def platform_read() -> int:
        return sum([1 async for e in llm.chat(request) if isinstance(e, TextDelta)])

    async def sdk_read() -> int:
        stream = await client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=4096,
            messages=[{"role": "user", "content": "Tell me a long story."}],
            stream=True,
        )
        count = 0
        async for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                count += 1
        return count

    await compare("anthropic", platform_read, sdk_read)
    await provider.aclose()
    await client.close()


async def main() -> None:
    print(
        f"{TOKENS} streamed deltas per reply, fake server in its own process, "
        f"median of {ROUNDS} interleaved rounds"
    )
    with fake_in_subprocess("openai", TOKENS) as base_url:
        await openai_case(base_url)
    with fake_in_subprocess("anthropic", TOKENS) as base_url:
        await anthropic_case(base_url)


if __name__ == "__main__":
    asyncio.run(main())

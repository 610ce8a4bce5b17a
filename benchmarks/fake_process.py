"""Run a fake provider server in its own process (so it does not share the GIL with the
client being measured). Used by the benchmarks:

    python -m benchmarks.fake_process openai 2000 [delay]   # prints the base URL, serves until
                                                            # stdin closes
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.fakes import FakeAnthropic, FakeOpenAI, FakeServer, Reply

FAKES: dict[str, type[FakeServer]] = {"openai": FakeOpenAI, "anthropic": FakeAnthropic}
#: The answer to a memory extraction call, as a model that found nothing to keep gives it.
NO_MEMORIES = Reply(text=json.dumps({"memories": []}))


def is_extraction(body: Any) -> bool:
    """Whether a request is a memory extraction call (its system prompt says so)."""
    if not isinstance(body, dict):
        return False
    system = body.get("system") or (body.get("messages") or [{}])[0].get("content")
    return "You extract durable long-term memories" in str(system)


@contextmanager
def fake_in_subprocess(name: str, words: int, delay: float = 0.0) -> Iterator[str]:
    """Start the fake in a child process (replies of ``words`` words, after ``delay``
    seconds); yield its base URL; stop it afterwards."""
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.fake_process", name, str(words), str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    try:
        yield child.stdout.readline().strip()
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def main() -> None:
    name, words = sys.argv[1], int(sys.argv[2])
    delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    answer = Reply(text="word " * words, chunk_size=5, delay=delay)
    with FAKES[name]() as fake:
        fake.responder = lambda request: NO_MEMORIES if is_extraction(request.body) else answer
        print(fake.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()

"""Run a fake provider server in its own process (so it does not share the GIL with the
client being measured). Used by the benchmarks:

    python -m benchmarks.fake_process openai 2000 [delay]   # prints the base URL, serves until
                                                            # stdin closes
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.fakes import FakeAnthropic, FakeOpenAI, FakeServer, Reply

FAKES: dict[str, type[FakeServer]] = {"openai": FakeOpenAI, "anthropic": FakeAnthropic}


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
    text = "word " * words
    with FAKES[name]() as fake:
        fake.responder = lambda request: Reply(text=text, chunk_size=5, delay=delay)
        print(fake.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()

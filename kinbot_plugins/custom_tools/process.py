"""Running one process for a custom tool: its own session, a time limit, bounded output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import cast

#: How long the output is still read once the process group is killed.
READ_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class ScriptRun:
    """How a run ended: exit code (``None`` when killed at the timeout) and its output."""

    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool


async def run_process(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    stdin: bytes,
    time_limit: float,
    max_output: int,
) -> ScriptRun:
    """Run ``argv`` in its own session and process group, ``stdin`` on its standard input.
    When it ends, after ``time_limit`` seconds, or when the caller is cancelled, its whole
    group is killed (nothing it started there outlives it, nor holds its pipes open). The
    first ``max_output`` bytes of stdout and of stderr are kept, the rest read and dropped."""
    loop = asyncio.get_running_loop()
    starting = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: _Run(loop, max_output),
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    )
    try:
        transport, run = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while it started (forked, its pipes being connected): asyncio, cancelled
        # there, would wait for the end of all the process started, with no time limit. It
        # is let start, then its group goes.
        starting.add_done_callback(_kill_started)
        raise
    timed_out = False
    try:
        # uvloop's pipe transports are not asyncio's classes, but they write and close alike.
        feed = cast(asyncio.WriteTransport, transport.get_pipe_transport(0))
        feed.write(stdin)
        feed.close()
        try:
            async with asyncio.timeout(time_limit):
                await asyncio.shield(run.exited)
        except TimeoutError:
            timed_out = True
        finally:
            # Whatever ended the wait (its end, the time limit, a cancelled turn), the group
            # goes. While any member lives, its id cannot be given to another process.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(transport.get_pid(), signal.SIGKILL)
        await run.exited
        # A descendant that left the group (possible only without a sandbox) may hold the
        # pipes open: stop reading then.
        await asyncio.wait(run.closed, timeout=READ_GRACE_SECONDS)
    finally:
        transport.close()
    stdout, stderr = run.outputs[1], run.outputs[2]
    return ScriptRun(
        exit_code=None if timed_out else transport.get_returncode(),
        stdout=stdout.text(),
        stderr=stderr.text(),
        stdout_truncated=stdout.truncated,
        stderr_truncated=stderr.truncated,
        timed_out=timed_out,
    )


def _kill_started(starting: asyncio.Future[tuple[asyncio.SubprocessTransport, _Run]]) -> None:
    """Kill the process group of a run whose caller was cancelled while it started."""
    if starting.cancelled() or starting.exception() is not None:
        return
    transport, _ = starting.result()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(transport.get_pid(), signal.SIGKILL)
    transport.close()


class _Run(asyncio.SubprocessProtocol):
    """Collects a process's output and tells when it exits (its pipes may outlive it)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int) -> None:
        self.outputs = {1: _Output(limit), 2: _Output(limit)}
        self.exited: asyncio.Future[None] = loop.create_future()
        self._closed = {1: loop.create_future(), 2: loop.create_future()}

    @property
    def closed(self) -> list[asyncio.Future[None]]:
        """Done when stdout, and stderr, are closed."""
        return list(self._closed.values())

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.outputs[fd].add(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self._closed and not self._closed[fd].done():
            self._closed[fd].set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class _Output:
    """The first ``limit`` bytes of a stream; the rest is dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.kept)
        if len(chunk) > room:
            self.truncated = True
        self.kept += chunk[: max(room, 0)]

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")

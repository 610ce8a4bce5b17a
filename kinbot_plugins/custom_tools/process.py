"""Running one process for a custom tool: its own session, a time limit, bounded output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

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
    """Run ``argv`` in its own session and process group; kill the group when the process
    ends or after ``time_limit`` seconds, whichever comes first (so nothing it started in its
    group outlives the run); keep the first ``max_output`` bytes of stdout and of stderr (the
    rest is read and dropped)."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdin and process.stdout and process.stderr
    stdout, stderr = _Output(max_output), _Output(max_output)
    readers = [
        asyncio.ensure_future(_feed(process.stdin, stdin)),
        asyncio.ensure_future(stdout.read(process.stdout)),
        asyncio.ensure_future(stderr.read(process.stderr)),
    ]
    timed_out = False
    try:
        async with asyncio.timeout(time_limit):
            await process.wait()
    except TimeoutError:
        timed_out = True
    finally:
        # The group outlives its leader while any member lives, so its id is not reused.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        # A descendant that left the process group (possible only without a sandbox) may
        # hold the pipes open: stop reading then.
        _done, pending = await asyncio.wait(readers, timeout=READ_GRACE_SECONDS)
        for reader in pending:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    return ScriptRun(
        exit_code=None if timed_out else process.returncode,
        stdout=stdout.text(),
        stderr=stderr.text(),
        stdout_truncated=stdout.truncated,
        stderr_truncated=stderr.truncated,
        timed_out=timed_out,
    )


async def _feed(writer: asyncio.StreamWriter, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        writer.write(data)
        await writer.drain()
        writer.close()


class _Output:
    """The first ``limit`` bytes of a stream; the rest is read and dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    async def read(self, reader: asyncio.StreamReader) -> None:
        while chunk := await reader.read(65536):
            room = self.limit - len(self.kept)
            if len(chunk) > room:
                self.truncated = True
            self.kept += chunk[: max(room, 0)]

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")

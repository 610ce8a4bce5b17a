"""The process layer under custom tools (``run_process``): a run cancelled (its turn stopped)
at any moment, even while it starts, ends at once with everything it started. Cancelled
while asyncio connected its pipes, it used to wait for the end of all it had started, with no
time limit: a stopped turn hung, its script ran on."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from kinbot_plugins.custom_tools.process import run_process
from tests.support.waiting import eventually

#: A bound on waiting for a cancelled run, far above what it takes: past it the run hangs.
CANCELLED_RUN_BOUND = 30.0


def running_in(directory: Path) -> int:
    """How many live processes work in ``directory`` (a run's shell and all it started)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += (entry / "cwd").readlink() == directory
            except OSError:
                continue  # gone, or a zombie
    return count


def nothing_left(directory: Path) -> Callable[[], Awaitable[bool]]:
    """A probe for ``eventually``: no process works in ``directory`` any more, and no task
    runs but the test's own (the run left nothing behind)."""

    async def probe() -> bool:
        return running_in(directory) == 0 and len(asyncio.all_tasks()) == 1

    return probe


def slow_family(directory: Path) -> list[str]:
    """A shell script that starts a child in the background and waits on another: both hold
    the run's output pipes open, for ten minutes."""
    (directory / "slow.sh").write_text("sleep 600 &\nsleep 600\n")
    return ["sh", "slow.sh"]


def kill_what_is_left(directory: Path) -> None:
    """Whatever failed, no process of the test outlives it (nor holds up the loop's end)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cwd").readlink() == directory:
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                continue


@pytest.mark.parametrize("passes", [*range(1, 7), None], ids=[*map(str, range(1, 7)), "running"])
async def test_a_cancelled_run_ends_at_once_with_all_it_started(
    tmp_path: Path, passes: int | None
) -> None:
    env = {"PATH": os.environ["PATH"]}
    run = asyncio.create_task(run_process(slow_family(tmp_path), tmp_path, env, b"", 60, 1000))
    try:
        # Cancelled after a few passes of the loop (before the process is forked, while its
        # pipes are being connected, or just after), or once the script and its children run.
        if passes is None:
            await eventually(three_running(tmp_path), seconds=30)
        for _ in range(passes or 0):
            await asyncio.sleep(0)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(run), CANCELLED_RUN_BOUND)
        await eventually(nothing_left(tmp_path), seconds=30)
    finally:
        kill_what_is_left(tmp_path)


def three_running(directory: Path) -> Callable[[], Awaitable[bool]]:
    """A probe for ``eventually``: the shell and its two children run."""

    async def probe() -> bool:
        return running_in(directory) == 3

    return probe

"""The sandbox's short-lived directories: what a killed server leaves is removed by the next
one to start, what a living one uses is not, and a clean exit leaves nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kinbot_plugins.custom_tools.scratch import LOCK_NAME, PREFIX, Scratch, sweep

#: A process using the sandbox's directories under argv[1]: it says where, then waits.
USER = """\
import sys
from pathlib import Path
from kinbot_plugins.custom_tools.scratch import Scratch
scratch = Scratch(Path(sys.argv[1]))
made = scratch.directory("tmp-")
(made / "file").write_text("a run's file")
print(made, flush=True)
sys.stdin.read()
"""


@pytest.fixture
def users(tmp_path: Path) -> Iterator[list[tuple[subprocess.Popen[str], Path]]]:
    """Two processes using directories under ``tmp_path``, each with the one it made."""
    started = []
    try:
        for _ in range(2):
            process = subprocess.Popen(
                [sys.executable, "-c", USER, str(tmp_path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert process.stdout is not None
            started.append((process, Path(process.stdout.readline().strip())))
        yield started
    finally:
        for process, _ in started:
            process.kill()
            process.wait()


def test_a_killed_process_directories_go_and_a_living_ones_stay(
    tmp_path: Path, users: list[tuple[subprocess.Popen[str], Path]]
) -> None:
    (killed, killed_dir), (living, living_dir) = users
    assert killed_dir.parent != living_dir.parent
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert killed_dir.exists()  # nothing removed it yet

    made = Scratch(tmp_path).directory("probe-")

    assert not killed_dir.parent.exists()
    assert living.poll() is None
    assert (living_dir / "file").read_text() == "a run's file"
    assert made.is_dir() and not any(made.iterdir())
    assert {path.name for path in tmp_path.iterdir()} == {
        living_dir.parent.name,
        made.parent.name,
    }
    assert all(path.name.startswith(PREFIX) for path in tmp_path.iterdir())


def test_a_clean_exit_removes_the_process_directory(
    users: list[tuple[subprocess.Popen[str], Path]],
) -> None:
    process, made = users[0]
    assert process.stdin is not None
    process.stdin.close()  # it reads to the end of its input, then exits
    assert process.wait() == 0
    assert not made.parent.exists()


def test_a_directory_not_made_by_a_process_of_ours_is_left_alone(tmp_path: Path) -> None:
    unlocked = tmp_path / f"{PREFIX}no-lock"  # not ours, or one being made
    unlocked.mkdir()
    (unlocked / "kept").write_text("kept")
    elsewhere = tmp_path / "elsewhere"  # reached through a link: never followed
    elsewhere.mkdir()
    (elsewhere / LOCK_NAME).touch()
    (tmp_path / f"{PREFIX}link").symlink_to(elsewhere)
    older = tmp_path / "kinbot-probe-abc"  # an earlier version's probe
    older.mkdir()

    assert sweep(tmp_path) == []

    assert (unlocked / "kept").exists()
    assert (elsewhere / LOCK_NAME).exists()
    assert older.exists()


def test_the_process_directory_lets_other_users_pass_but_not_list(tmp_path: Path) -> None:
    """A server running as root gives a run's directories to ``nobody``, who must reach
    them; nobody may list which runs there are."""
    scratch = Scratch(tmp_path)
    made = scratch.directory("tmp-")
    assert made.parent.stat().st_mode & 0o777 == 0o711
    assert made.stat().st_mode & 0o777 == 0o700
    scratch.remove()
    assert not made.parent.exists()
    assert os.listdir(tmp_path) == []

"""``kinbot serve`` in its own process, as a user starts it (test support)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

KINBOT = [sys.executable, "-m", "kinbot_web.cli"]
SETUP_LINK = re.compile(r"open (https?://\S+/onboarding\?setup=(\S+)) ")


@dataclass
class KinbotProcess:
    process: subprocess.Popen[str]
    url: str
    log: Path

    def log_text(self) -> str:
        return self.log.read_text()

    def setup_link(self) -> tuple[str, str] | None:
        """The set-up link and code the start-up log shows, if any."""
        found = SETUP_LINK.search(self.log_text())
        return (found.group(1), found.group(2)) if found else None


@contextmanager
def kinbot_serve(
    data_dir: Path, log: Path, host: str = "127.0.0.1", **env_extra: str
) -> Iterator[KinbotProcess]:
    """Start ``kinbot serve`` on ``host`` (a free port) and stop it when the block ends.

    Returns once it listens: its first line on stdout comes after the start-up log.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    env.update(env_extra)
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [*KINBOT, "serve", "--host", host, "--port", "0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
            env=env,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("KinBot is running on http://"):
            raise AssertionError(log.read_text())
        yield KinbotProcess(process, line.rsplit(" ", 1)[1].strip(), log)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def non_loopback_address() -> str | None:
    """An IPv4 address of this machine that is not loopback (its default route's source),
    or ``None``. Connecting a UDP socket sends nothing: the kernel only picks the route."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("198.51.100.1", 9))  # TEST-NET-2: routed like any remote address
        address: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


async def kinbot_command(*args: str, **env_extra: str) -> tuple[int, str]:
    """Run ``kinbot <args>`` in its own process, without blocking the caller's event loop,
    with no ``KINBOT_`` variable of the test's environment but ``env_extra``; its exit code
    and its output (stdout and stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    process = await asyncio.create_subprocess_exec(
        *KINBOT, *args, env={**env, **env_extra},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()

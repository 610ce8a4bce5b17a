"""The ``kinbot`` command, run as a user runs it: in its own process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.distributions import write_distribution

KINBOT = [sys.executable, "-m", "kinbot_web.cli"]


def run_kinbot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KINBOT, *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    env.update(extra)
    return env


def test_plugins_list_on_a_fresh_install_shows_each_builtin_plugin(tmp_path: Path) -> None:
    data_dir = tmp_path / "fresh"
    result = run_kinbot("plugins", "list", "--json", "--data-dir", str(data_dir), env=clean_env())
    assert result.returncode == 0, result.stderr
    plugins = {p["name"]: p for p in json.loads(result.stdout)}
    for name in ("event_log", "metrics"):
        assert plugins[name]["enabled"] is True
        assert plugins[name]["builtin"] is True
        assert plugins[name]["hooks"]
        assert plugins[name]["required"] is None
    table = run_kinbot("plugins", "list", "--data-dir", str(data_dir), env=clean_env())
    assert table.stdout.splitlines()[0].split() == [
        "NAME",
        "VERSION",
        "ENABLED",
        "REQUIRED",
        "HOOKS",
    ]
    assert (data_dir / "kinbot.db").is_file()


def test_plugins_disable_persists_for_the_next_start(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "data")
    disabled = run_kinbot("plugins", "disable", "metrics", "--data-dir", data_dir, env=clean_env())
    assert disabled.returncode == 0, disabled.stderr
    listed = run_kinbot("plugins", "list", "--json", "--data-dir", data_dir, env=clean_env())
    metrics = next(p for p in json.loads(listed.stdout) if p["name"] == "metrics")
    assert metrics["enabled"] is False
    unknown = run_kinbot("plugins", "disable", "nope", "--data-dir", data_dir, env=clean_env())
    assert unknown.returncode == 1
    assert "no plugin named 'nope'" in unknown.stderr


def test_an_invalid_configuration_is_reported_clearly(tmp_path: Path) -> None:
    result = run_kinbot(
        "config", "--data-dir", str(tmp_path), env=clean_env(KINBOT_TASK_MAX_DEPTH="zero")
    )
    assert result.returncode == 2
    assert "invalid configuration" in result.stderr
    assert "task_max_depth" in result.stderr


SLOW_PLUGIN = """
    import asyncio, os, pathlib
    from quart import request
    from kinbot_core import PluginRoute, hookimpl

    async def slow():
        pathlib.Path(os.environ["SLOW_PLUGIN_MARKER"]).touch()
        await asyncio.sleep(float(request.args["seconds"]))
        return {"finished": True}

    @hookimpl
    def register_routes(register):
        register(PluginRoute("/slow", slow))
"""


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    marker: Path

    def slow_request_in_background(self, seconds: float) -> dict[str, httpx.Response]:
        """Start a request that takes ``seconds``; return once the server is handling it."""
        result: dict[str, httpx.Response] = {}

        def request() -> None:
            try:
                url = f"{self.url}/api/plugins/slow/slow?seconds={seconds}"
                result["response"] = httpx.get(url, timeout=60)
            except httpx.TransportError:
                pass

        threading.Thread(target=request, daemon=True).start()
        for _ in range(500):
            if self.marker.exists():
                return result
            time.sleep(0.01)
        raise AssertionError("the slow request never reached the server")


def start_server(tmp_path: Path, **env_extra: str) -> Server:
    site = tmp_path / "site"
    write_distribution(
        site,
        "kinbot-slow",
        modules={"slow_plugin": SLOW_PLUGIN},
        entry_points={"slow": "slow_plugin"},
    )
    marker = tmp_path / "slow-request-started"
    env = clean_env(
        PYTHONPATH=os.pathsep.join([str(site), *sys.path]),
        SLOW_PLUGIN_MARKER=str(marker),
        **env_extra,
    )
    process = subprocess.Popen(
        [*KINBOT, "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("KinBot is running on http://127.0.0.1:"):
        process.kill()
        raise AssertionError(process.communicate()[1])
    return Server(process, line.rsplit(" ", 1)[1].strip(), marker)


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
        server.process.communicate()


def test_serve_answers_health_and_drains_in_flight_requests_on_sigterm(
    tmp_path: Path, servers: list[Server]
) -> None:
    server = start_server(tmp_path)
    servers.append(server)
    health = httpx.get(f"{server.url}/api/health", timeout=10)
    assert health.status_code == 200
    assert health.json()["database"]["sqlite_vec_version"].startswith("v")

    result = server.slow_request_in_background(seconds=1.0)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    assert result["response"].status_code == 200
    assert result["response"].json() == {"finished": True}
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.url}/api/health", timeout=2)


def test_sigterm_does_not_wait_beyond_the_grace_period(
    tmp_path: Path, servers: list[Server]
) -> None:
    server = start_server(tmp_path, KINBOT_SHUTDOWN_GRACE_SECONDS="0.5")
    servers.append(server)
    result = server.slow_request_in_background(seconds=300)
    server.process.send_signal(signal.SIGTERM)
    # The request would take five minutes; the process ends long before that.
    assert server.process.wait(timeout=60) == 0
    # Cut off at the bound: the client gets an error or a closed connection, never a hang.
    assert "response" not in result or result["response"].status_code >= 500

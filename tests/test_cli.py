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
        [*KINBOT, *args], capture_output=True, text=True, timeout=300, env=env, check=False
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


def test_a_configuration_error_never_echoes_the_values(tmp_path: Path) -> None:
    config = tmp_path / "kinbot.toml"
    config.write_text('secret-key = "hunter2-family-vault"\nport = "eighty"\n')
    result = run_kinbot("config", "--config", str(config), env=clean_env())
    assert result.returncode == 2
    assert "secret-key" in result.stderr and "port" in result.stderr
    assert "hunter2" not in result.stderr + result.stdout
    assert "eighty" not in result.stderr


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
        register(PluginRoute("/slow", slow, access="public"))
"""


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    marker: Path

    def slow_request_in_background(
        self, seconds: float
    ) -> tuple[threading.Thread, dict[str, httpx.Response]]:
        """Start a request that takes ``seconds``; return once the server is handling it."""
        result: dict[str, httpx.Response] = {}

        def request() -> None:
            try:
                url = f"{self.url}/api/ext/slow/slow?seconds={seconds}"
                result["response"] = httpx.get(url, timeout=60)
            except httpx.TransportError:
                pass

        thread = threading.Thread(target=request, daemon=True)
        thread.start()
        for _ in range(1000):
            if self.marker.exists():
                return thread, result
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
    log = tmp_path / "server.log"
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [*KINBOT, "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
            env=env,
        )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("KinBot is running on http://127.0.0.1:"):
        process.kill()
        process.wait()
        raise AssertionError(log.read_text())
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
    health = httpx.get(f"{server.url}/api/health", timeout=60)
    assert health.status_code == 200
    assert health.json()["database"]["sqlite_vec_version"].startswith("v")

    thread, result = server.slow_request_in_background(seconds=1.0)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    thread.join(timeout=30)
    assert result["response"].status_code == 200
    assert result["response"].json() == {"finished": True}
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.url}/api/health", timeout=2)


def test_sigterm_does_not_wait_beyond_the_grace_period(
    tmp_path: Path, servers: list[Server]
) -> None:
    server = start_server(tmp_path, KINBOT_SHUTDOWN_GRACE_SECONDS="0.5")
    servers.append(server)
    thread, result = server.slow_request_in_background(seconds=300)
    server.process.send_signal(signal.SIGTERM)
    # The request would take five minutes and the default grace is 10 s: exiting within 8 s
    # shows the configured half second was applied.
    assert server.process.wait(timeout=8) == 0
    thread.join(timeout=30)
    # Cut off at the bound: the client gets an error or a closed connection, never a hang.
    assert "response" not in result or result["response"].status_code >= 500

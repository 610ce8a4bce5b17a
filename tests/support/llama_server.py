"""A real llama.cpp server on 127.0.0.1 for the local-model tests (test support, a pytest
plugin loaded by tests/conftest.py).

The server runs in its own process under the local-models interpreter, a virtualenv outside
the clone that ``make test-local-models`` fills from requirements-local-models.txt (see
docs/local-models-testing.md). Tests marked ``local_models`` ask for it through the
``local_models_python`` fixture:

- ``pytest --local-models=PYTHON`` (what the make target runs) requires it: a missing or
  broken interpreter fails those tests, it never skips them;
- otherwise they skip, saying how to run them: the main suite never depends on what a
  machine happens to have cached.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.server import running_server

SERVER_SCRIPT = Path(__file__).with_name("llama_server_process.py")
#: Loading a 100 MB model on a busy two-core machine.
START_SECONDS = 120.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--local-models",
        metavar="PYTHON",
        default=None,
        help="run the real llama.cpp server tests with this interpreter (required: no skip)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "local_models: needs the real llama.cpp server (make test-local-models)"
    )


@dataclass
class LlamaServer:
    """A running llama.cpp server: its root URL, model name and context size."""

    url: str
    model: str
    context: int
    log: Path

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API's base URL (what a KinBot provider is given)."""
        return f"{self.url}/v1"


def server_problem(python: Path) -> str | None:
    """Why ``python`` cannot run the server (``None`` when it can)."""
    if not python.exists():
        return f"{python} does not exist"
    check = subprocess.run(
        [str(python), str(SERVER_SCRIPT), "--context", "0", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    if check.returncode != 0:
        return f"{python} cannot run the server: {check.stderr.strip()[-500:]}"
    if not Path(check.stdout.strip()).is_file():
        return f"the model file is missing: {check.stdout.strip()}"
    return None


@pytest.fixture(scope="session")
def local_models_python(pytestconfig: pytest.Config) -> Path:
    """The interpreter that runs the llama.cpp server (``--local-models``, which
    ``make test-local-models`` gives); without it the tests skip, so that the main suite
    never depends on what a machine happens to have cached; with it a missing server fails."""
    required = pytestconfig.getoption("--local-models")
    if not required:
        pytest.skip("the real llama.cpp server runs with make test-local-models")
    problem = server_problem(Path(required))
    if problem is not None:
        pytest.fail(f"the llama.cpp server is required (--local-models) but {problem}")
    return Path(required)


@contextmanager
def llama_server(
    python: Path,
    log: Path,
    *,
    context: int = 2048,
    chat_template: Path | None = None,
) -> Iterator[LlamaServer]:
    """Start llama.cpp's server with ``context`` tokens of context (and ``chat_template``
    instead of the model's own); yield it once ``/health`` says it is ready; stop it when the
    block ends."""
    command = [str(python), str(SERVER_SCRIPT), "--context", str(context)]
    if chat_template is not None:
        command += ["--chat-template", str(chat_template)]
    with log.open("w") as log_file:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log_file, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("listening on http://"):
            raise AssertionError(f"the llama.cpp server did not start:\n{log.read_text()}")
        url = line.split()[-1]
        _wait_healthy(url, process, log)
        models = httpx.get(f"{url}/v1/models", timeout=30).json()
        yield LlamaServer(url, models["data"][0]["id"], context, log)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def _wait_healthy(url: str, process: subprocess.Popen[str], log: Path) -> None:
    """Until ``/health`` answers 200 (llama.cpp answers 503 while the model loads)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the llama.cpp server stopped:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/health", timeout=10).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)  # between polls of a state, not a wait for time
    raise AssertionError(f"the llama.cpp server was not ready in time:\n{log.read_text()}")


@asynccontextmanager
async def kinbot_on_llama(
    data_dir: Path, llama: LlamaServer, turn_seconds: float, **settings: Any
) -> AsyncIterator[Any]:
    """KinBot served over HTTP with an administrator and the llama.cpp server as its
    OpenAI-compatible provider, added as a person would (no API key); ``settings`` override."""
    platform = Platform(
        load_settings(
            data_dir=data_dir, llm_max_retries=0, llm_timeout_seconds=turn_seconds, **settings
        )
    )
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        added = await server.client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "llama.cpp",
                "config": {"base_url": llama.base_url},
            },
        )
        assert added.status_code == 201, added.text
        yield server

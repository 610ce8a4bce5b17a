"""Schemathesis against ``/openapi.json`` of a real server: every operation is sent a fixed
number of generated requests, valid and invalid alike (Hypothesis derandomized, so every run
sends the same ones), and never answers a 5xx.

The server is ``kinbot serve`` in its own process on 127.0.0.1, with the fake OpenAI provider.
The requests come from a signed-in administrator, as a browser of the same origin would send
them (``Origin`` set: the CSRF check passes). In half of the cases (a drawn flag) the path
names objects that exist (a Kin with a memory, a cron, a sub-Kin task, a member, an
invitation, a secret, an upload, a webhook and its token, the provider) rather than generated
ids; ``DELETE`` always gets generated ids, so that the objects stay. Routes under
``/api/auth`` and onboarding's identity step are called without the session, so that signing
in or out cannot end it.

Left out, because they start processes or connect to addresses taken from the request:

- ``POST /api/providers``, ``POST /api/providers/test``, ``PATCH /api/providers/{id}``,
  ``POST /api/providers/{id}/test`` and the same four under ``/api/search-providers``: they
  test a connection to the base URL in the body;
- ``POST /api/mcp-servers``, ``PATCH /api/mcp-servers/{id}``,
  ``POST /api/mcp-servers/{id}/reconnect``: they start a stdio server's command or connect to
  an HTTP server's URL;
- ``GET /api/kins/{id}/custom-tools``: it probes the sandbox by running bubblewrap;
- ``GET /api/events``: an endless stream.

The figure (operations, cases, server errors, time) is printed in pytest's summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import APIOperation, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok

from tests.support.accounts import MARIE, NICOLAS
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import API_KEY

#: Generated cases per operation (fewer where the schema allows fewer).
MAX_EXAMPLES = 50
EXCLUDED = {
    ("POST", "/api/providers"),
    ("POST", "/api/providers/test"),
    ("PATCH", "/api/providers/{provider_id}"),
    ("POST", "/api/providers/{provider_id}/test"),
    ("POST", "/api/search-providers"),
    ("POST", "/api/search-providers/test"),
    ("PATCH", "/api/search-providers/{provider_id}"),
    ("POST", "/api/search-providers/{provider_id}/test"),
    ("POST", "/api/mcp-servers"),
    ("PATCH", "/api/mcp-servers/{server_id}"),
    ("POST", "/api/mcp-servers/{server_id}/reconnect"),
    ("GET", "/api/kins/{kin_id}/custom-tools"),
    ("GET", "/api/events"),
}
#: Called without the administrator's session (signing in or out would end it).
SESSIONLESS = ("/api/auth/", "/api/onboarding/identity")
KINBOT = [sys.executable, "-m", "kinbot_web.cli"]


@dataclass
class Figures:
    """What the run did, for the summary line."""

    started: float = field(default_factory=time.monotonic)
    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    #: The operations that failed, with Hypothesis's shrunk case.
    failures: list[str] = field(default_factory=list)

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)

    def line(self) -> str:
        classes = Counter(f"{status // 100}xx" for status in self.statuses.elements())
        spread = ", ".join(f"{count} {name}" for name, count in sorted(classes.items()))
        return (
            f"schemathesis: {len(self.cases)} operations ({len(EXCLUDED)} excluded), "
            f"{sum(self.cases.values())} cases, {self.server_errors} server errors "
            f"({spread}) in {time.monotonic() - self.started:.0f} s"
        )


@dataclass
class FuzzTarget:
    url: str
    admin: requests.Session
    anonymous: requests.Session
    #: A real object for each path parameter name.
    ids: dict[str, str]
    figures: Figures


def _start_server(data_dir: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("KINBOT_")}
    env.update(PYTHONPATH=os.pathsep.join(sys.path), KINBOT_LLM_MAX_RETRIES="0")
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [*KINBOT, "serve", "--port", "0", "--data-dir", str(data_dir)],
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
    return process, line.rsplit(" ", 1)[1].strip()


def _created(response: requests.Response, *path: str) -> str:
    assert response.status_code in (200, 201), response.text
    value: Any = response.json()
    for key in path:
        value = value[key]
    return str(value)


def _populate(url: str, admin: requests.Session, fake: FakeOpenAI) -> dict[str, str]:
    """An administrator signed in, the fake provider, and one object of each kind."""
    _created(admin.post(f"{url}/api/onboarding/identity", json=NICOLAS), "user", "id")
    provider = {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}
    ids = {
        "provider_id": _created(
            admin.post(
                f"{url}/api/providers",
                json={"type": "openai", "name": "OpenAI", "config": provider},
            ),
            "provider",
            "id",
        )
    }
    ids["kin_id"] = _created(
        admin.post(f"{url}/api/kins", json={"name": "Chef", "model": "gpt-4o"}), "kin", "id"
    )
    code = _created(admin.post(f"{url}/api/invitations", json={}), "code")
    with requests.Session() as member:
        registered = member.post(f"{url}/api/auth/register", json={**MARIE, "code": code})
        ids["user_id"] = _created(registered, "user", "id")
    ids["invitation_id"] = _created(
        admin.post(f"{url}/api/invitations", json={}), "invitation", "id"
    )
    cron = {
        "name": "Soup",
        "schedule": "0 9 * * 1",
        "task_description": "Plan",
        "kin_id": ids["kin_id"],
    }
    ids["cron_id"] = _created(admin.post(f"{url}/api/crons", json=cron), "cron", "id")
    ids["key"] = _created(
        admin.post(f"{url}/api/vault", json={"key": "WIFI_PASSWORD", "value": "hunter2"}),
        "secret",
        "key",
    )
    webhook = admin.post(f"{url}/api/webhooks", json={"kin_id": ids["kin_id"], "name": "HA"})
    ids["webhook_id"] = _created(webhook, "webhook", "id")
    ids["token"] = _created(webhook, "token")
    files = {"file": ("recipe.txt", b"Leek soup.", "text/plain")}
    ids["upload_id"] = _created(
        admin.post(f"{url}/api/kins/{ids['kin_id']}/uploads", files=files), "upload", "id"
    )
    memory = {"content": "Marie is allergic to peanuts", "category": "fact", "subject": "Marie"}
    fake.enqueue(Reply(tool_calls=[("memorize", memory)]), Reply(text="Noted."))
    _tell(url, admin, ids["kin_id"], "Remember: Marie is allergic to peanuts.")
    _wait_for(lambda: admin.get(f"{url}/api/kins/{ids['kin_id']}/memories").json()["memories"])
    job = {"task_description": "Plan the week's soups", "mode": "async"}
    fake.enqueue(Reply(tool_calls=[("spawn_self", job)]))
    _tell(url, admin, ids["kin_id"], "Plan the week's soups in the background.")
    tasks = _wait_for(lambda: admin.get(f"{url}/api/tasks").json()["tasks"])
    ids["task_id"] = str(tasks[0]["id"])
    return ids


def _tell(url: str, admin: requests.Session, kin_id: str, text: str) -> None:
    sent = admin.post(f"{url}/api/kins/{kin_id}/messages", json={"content": text})
    assert sent.status_code == 202, sent.text


def _wait_for(found: Callable[[], Any]) -> Any:
    """What ``found`` returns once it is truthy (the server works in the background)."""
    for _ in range(1200):
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("the server never reached the awaited state")


@pytest.fixture
def fuzz_target(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[FuzzTarget]:
    log = tmp_path / "server.log"
    with FakeOpenAI() as fake:
        process, url = _start_server(tmp_path / "data", log)
        try:
            with requests.Session() as admin, requests.Session() as anonymous:
                for session in (admin, anonymous):
                    session.headers["Origin"] = url
                ids = _populate(url, admin, fake)
                target = FuzzTarget(url, admin, anonymous, ids, Figures())
                yield target
                request.node.user_properties.append(("summary", target.figures.line()))
                assert admin.get(f"{url}/api/me").status_code == 200, "the session was lost"
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            finally:
                if process.poll() is None:
                    process.kill()
    tracebacks = log.read_text().count("Traceback")
    assert not target.figures.server_errors and not tracebacks, log.read_text()[-20_000:]


def _operations(url: str) -> list[APIOperation[Any, Any, Any, Any]]:
    """The operations of the server's OpenAPI document, but the excluded ones (a schema
    Schemathesis cannot read fails the test)."""
    found = []
    for result in schemathesis.openapi.from_url(f"{url}/openapi.json").get_all_operations():
        assert isinstance(result, Ok), result.err()
        found.append(result.ok())
    return [op for op in found if (op.method.upper(), op.path) not in EXCLUDED]


def _fuzz(operation: APIOperation[Any, Any, Any, Any], target: FuzzTarget) -> None:
    """Send the operation ``MAX_EXAMPLES`` generated cases, valid and invalid alike; raise on
    a server error (after Hypothesis has shrunk the case)."""
    cases = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    @given(case=cases, aim_at_real_objects=st.booleans())
    def send(case: schemathesis.Case[Any], aim_at_real_objects: bool) -> None:
        path_parameters = case.path_parameters or {}
        if aim_at_real_objects and case.method != "DELETE":
            for name in path_parameters:
                if name in target.ids:
                    path_parameters[name] = target.ids[name]
        sessionless = case.path.startswith(SESSIONLESS)
        session = target.anonymous if sessionless else target.admin
        response = case.call(base_url=target.url, session=session, timeout=60)
        target.figures.cases[operation.label] += 1
        target.figures.statuses[response.status_code] += 1
        case.validate_response(response, checks=[not_a_server_error])

    send()


def test_no_operation_answers_a_server_error(fuzz_target: FuzzTarget) -> None:
    operations = _operations(fuzz_target.url)
    assert len(operations) > 50
    for operation in operations:
        try:
            _fuzz(operation, fuzz_target)
        except (Exception, BaseExceptionGroup) as failure:  # each failing operation is reported
            fuzz_target.figures.failures.append(f"{operation.label}: {failure}")
    assert not fuzz_target.figures.failures, "\n\n".join(fuzz_target.figures.failures)

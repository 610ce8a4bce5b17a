"""Inbound webhooks over real HTTP: a service outside KinBot (Home Assistant, say) POSTs to a
webhook's secret URL, the body becomes a message in the Kin's queue with its origin, and the
Kin answers through the fake OpenAI server. Refusals: an unknown, rotated or disabled token
(401, all alike), a bad signature (401), a body too large (413, before it is read), a body
that does not parse (400) or of another type (415), too many requests (429). Administrators
alone manage webhooks; the token is shown once and never again, in answers or logs."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playhouse.migrations import Runner

from kinbot_core.config import load_settings
from kinbot_core.db import Database
from kinbot_core.db.database import MIGRATIONS_DIR
from kinbot_core.db.models import MessageRecord
from kinbot_core.kins.service import AUTOMATIC_PRIORITY
from kinbot_core.platform import Platform
from kinbot_core.webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, signature_of
from tests.support import server_fixtures
from tests.support.accounts import register
from tests.support.database_bytes import database_bytes
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, reply_to, serve_with_openai, session
from tests.support.provider_setups import API_KEY
from tests.support.raw_http import raw_connection
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_vault_rotation import rotate

fake_llm, server = server_fixtures.fake_llm, server_fixtures.server

SIGNING_SECRET = "a-family-secret-only-home-assistant-knows"
DOOR_EVENT = {"event": "door_opened", "entity": "binary_sensor.front_door"}


async def create_webhook(
    client: httpx.AsyncClient, kin_id: str, name: str = "Home Assistant", **fields: Any
) -> dict[str, Any]:
    """Create a webhook as the signed-in administrator: its view, token, path and URL."""
    response = await client.post("/api/webhooks", json={"kin_id": kin_id, "name": name, **fields})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def outside(server: RunningServer) -> httpx.AsyncClient:
    """A client of the service posting to the webhook: no session, no browser headers."""
    return server.new_client()


async def webhook_messages(client: httpx.AsyncClient, kin_id: str) -> list[dict[str, Any]]:
    """The messages webhooks brought into the Kin's session (not its replies)."""
    return [m for m in await session(client, kin_id) if m["source"] == "webhook"]


def signed(body: bytes, secret: str = SIGNING_SECRET, **headers: str) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: signature_of(secret.encode(), body, headers.get(TIMESTAMP_HEADER)),
        **headers,
    }


async def test_a_post_becomes_a_queued_message_with_its_origin_and_the_kin_answers(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client, "Majordome")
    created = await create_webhook(server.client, kin_id)
    assert created["path"] == f"/api/hooks/{created['token']}"
    assert created["url"] is None  # no public_url: the interface uses its own address
    fake_llm.enqueue(Reply(text="The front door is open; I will tell the family."))
    async with sse_stream(server.client) as events, outside(server) as service:
        response = await service.post(created["path"], json=DOOR_EVENT)
        assert response.status_code == 202, response.text
        message_id = response.json()["message_id"]
        assert response.json()["status"] == "queued"
        queued = await events.wait_for(
            lambda e: e.type == "message" and e.data["message"]["id"] == message_id
        )
        assert queued.data["message"]["status"] == "queued"
        answer = await events.wait_for(reply_to(message_id))
    assert answer.data["message"]["content"] == "The front door is open; I will tell the family."

    priority = await server.platform.db.read(lambda: MessageRecord.get_by_id(message_id).priority)
    assert priority == AUTOMATIC_PRIORITY  # after people's messages
    incoming = next(m for m in await session(server.client, kin_id) if m["id"] == message_id)
    assert incoming["source"] == "webhook"
    assert incoming["sender_name"] == "Home Assistant"
    assert incoming["meta"] == {"origin": {"kind": "webhook", "label": "Home Assistant"}}
    assert incoming["content"] == "event: door_opened\nentity: binary_sensor.front_door"
    # The model reads who sent it, and that it is no person.
    # (Background calls, an embedding or a model list, may come after the turn's own.)
    prompts = [json.dumps(r.body["messages"]) for r in fake_llm.requests if r.endpoint == "chat"]
    assert any(
        "[Webhook Home Assistant] event: door_opened" in prompt and "not a person" in prompt
        for prompt in prompts
    )

    listed = (await server.client.get("/api/webhooks")).json()["webhooks"]
    assert listed[0]["received_count"] == 1 and listed[0]["last_received_at"] is not None


async def test_bodies_become_readable_text_by_their_type(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    path = (await create_webhook(server.client, kin_id, "Calendar"))["path"]
    nested = {"calendar": "Family", "events": [{"title": "Dentist", "at": "09:30"}]}
    sent: list[dict[str, Any]] = [
        {"json": nested},
        {"data": {"name": "Léa", "message": "Call me back"}},
        {"content": "Bins go out tonight.", "headers": {"Content-Type": "text/plain"}},
        {"json": "Washing machine finished"},
    ]
    async with outside(server) as service:
        for request in sent:
            response = await service.post(path, **request)
            assert response.status_code == 202, response.text
    contents = [m["content"] for m in await webhook_messages(server.client, kin_id)]
    assert contents[0].startswith('```json\n{\n  "calendar": "Family",')
    assert contents[0].endswith('"at": "09:30"\n    }\n  ]\n}\n```')
    assert contents[1:] == [
        "name: Léa\nmessage: Call me back",
        "Bins go out tonight.",
        "Washing machine finished",
    ]


async def test_bodies_that_do_not_parse_are_refused_with_a_400_or_415(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    path = (await create_webhook(server.client, kin_id))["path"]
    json_type = {"Content-Type": "application/json"}
    cases = [
        (b'{"event": "door_opened",', json_type, 400, "invalid_json"),
        (b'{"level": NaN}', json_type, 400, "invalid_json"),
        (b"\xff\xfe not utf-8", {"Content-Type": "text/plain"}, 400, "webhook_body_invalid"),
        (b"name=%FF", {"Content-Type": "application/x-www-form-urlencoded"}, 400, None),
        (b"   \n", {"Content-Type": "text/plain"}, 400, "webhook_body_empty"),
        (b"\x89PNG\r\n", {"Content-Type": "image/png"}, 415, "webhook_unsupported_type"),
        (b"hello", {"Content-Type": "text/plain; charset=klingon"}, 415, None),
    ]
    async with outside(server) as service:
        for body, headers, status, code in cases:
            response = await service.post(path, content=body, headers=headers)
            assert response.status_code == status, (body, response.text)
            if code:
                assert response.json()["error"]["code"] == code
    assert await webhook_messages(server.client, kin_id) == []


async def test_unknown_rotated_and_disabled_tokens_get_the_same_401(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id)
    webhook_id = created["webhook"]["id"]
    token = created["token"]
    wrong = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    refusals = []
    async with outside(server) as service:
        for path in (f"/api/hooks/{wrong}", "/api/hooks/short", f"/api/hooks/{token}x"):
            refusals.append(await service.post(path, json=DOOR_EVENT))

        disabled = await server.client.patch(f"/api/webhooks/{webhook_id}", json={"enabled": False})
        assert disabled.status_code == 200 and disabled.json()["webhook"]["enabled"] is False
        refusals.append(await service.post(created["path"], json=DOOR_EVENT))
        await server.client.patch(f"/api/webhooks/{webhook_id}", json={"enabled": True})
        assert (await service.post(created["path"], json=DOOR_EVENT)).status_code == 202

        rotated = await server.client.post(f"/api/webhooks/{webhook_id}/rotate")
        assert rotated.status_code == 200 and rotated.json()["token"] != token
        refusals.append(await service.post(created["path"], json=DOOR_EVENT))
        accepted = await service.post(rotated.json()["path"], json=DOOR_EVENT)
        assert accepted.status_code == 202

        await server.client.delete(f"/api/webhooks/{webhook_id}")
        refusals.append(await service.post(rotated.json()["path"], json=DOOR_EVENT))
    assert {r.status_code for r in refusals} == {401}
    assert len({r.content for r in refusals}) == 1  # no oracle
    assert refusals[0].json()["error"]["code"] == "webhook_unknown"
    assert len(await webhook_messages(server.client, kin_id)) == 2


async def test_a_signed_webhook_takes_only_good_signatures(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id, signing_secret=SIGNING_SECRET)
    assert created["webhook"]["signed"] is True
    body = json.dumps(DOOR_EVENT).encode()
    now = str(int(time.time()))
    stale = str(int(time.time()) - 3600)
    async with outside(server) as service:
        refused = [
            await service.post(created["path"], content=body, headers=headers)
            for headers in (
                {"Content-Type": "application/json"},  # no signature
                signed(body, "another secret entirely, not ours"),
                signed(b'{"event": "door_closed"}'),  # signs another body
                signed(body, **{TIMESTAMP_HEADER: stale}),  # a replay, an hour later
                {**signed(body, **{TIMESTAMP_HEADER: now}), TIMESTAMP_HEADER: str(int(now) + 1)},
                signed(body, **{TIMESTAMP_HEADER: "yesterday"}),
            )
        ]
        plain = await service.post(created["path"], content=body, headers=signed(body))
        stamped = await service.post(
            created["path"], content=body, headers=signed(body, **{TIMESTAMP_HEADER: now})
        )
    for response in refused:
        assert response.status_code == 401, response.text
        assert response.json()["error"]["code"] == "webhook_signature_invalid"
    assert plain.status_code == 202, plain.text
    assert stamped.status_code == 202, stamped.text
    assert len(await webhook_messages(server.client, kin_id)) == 2

    # The secret can be changed, then dropped: unsigned requests pass again.
    webhook_id = created["webhook"]["id"]
    dropped = await server.client.patch(
        f"/api/webhooks/{webhook_id}", json={"signing_secret": None}
    )
    assert dropped.json()["webhook"]["signed"] is False
    async with outside(server) as service:
        assert (await service.post(created["path"], json=DOOR_EVENT)).status_code == 202


async def test_a_body_over_the_limit_is_refused_before_it_is_sent(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id, max_body_bytes=1024)
    assert created["webhook"]["max_body_bytes"] == 1024
    host = urlsplit(server.url).netloc
    body = b"x" * 50_000
    async with raw_connection(server.url) as connection:
        # Declared too large: refused with only the head sent.
        await connection.send_head(
            "POST",
            created["path"],
            host,
            {"Content-Type": "text/plain", "Content-Length": str(len(body))},
        )
        refused = await connection.response()
        assert refused.status == 413
        assert json.loads(refused.body)["error"]["details"]["limit_bytes"] == 1024
        await connection.send_body(body)
        connection.next_cycle()
        # Chunked, with no length said: refused once what has arrived is over the limit,
        # while the client is still sending.
        await connection.send_head(
            "POST",
            created["path"],
            host,
            {"Content-Type": "text/plain", "Transfer-Encoding": "chunked"},
        )
        await connection.send_data(b"y" * 2000)
        assert (await connection.response()).status == 413
        await connection.send_data(b"y" * 2000)
        await connection.end_body()
        connection.next_cycle()
        # The connection goes on: the next request on it is answered.
        accepted = await connection.request(
            "POST", created["path"], host, b"Bins go out tonight.", {"Content-Type": "text/plain"}
        )
        assert accepted.status == 202, accepted.body
    contents = [m["content"] for m in await webhook_messages(server.client, kin_id)]
    assert contents == ["Bins go out tonight."]


async def test_a_webhook_is_rate_limited_and_bad_signatures_do_not_count(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(
        data_dir, fake_llm, webhook_rate_limit=2, public_url="https://kinbot.example.org"
    ) as server:
        kin_id = await make_kin(server.client)
        created = await create_webhook(server.client, kin_id, signing_secret=SIGNING_SECRET)
        assert created["url"] == f"https://kinbot.example.org/api/hooks/{created['token']}"
        body = json.dumps(DOOR_EVENT).encode()
        async with outside(server) as service:
            for _ in range(3):
                forged = await service.post(
                    created["path"], content=body, headers=signed(body, "not the right secret!")
                )
                assert forged.status_code == 401
            for _ in range(2):
                ok = await service.post(created["path"], content=body, headers=signed(body))
                assert ok.status_code == 202, ok.text
            limited = await service.post(created["path"], content=body, headers=signed(body))
        assert limited.status_code == 429
        assert int(limited.headers["Retry-After"]) >= 1
        assert limited.json()["error"]["code"] == "rate_limited"
        assert limited.json()["error"]["details"]["retry_after"] >= 1
        assert len(await webhook_messages(server.client, kin_id)) == 2


async def test_vault_values_in_a_body_are_masked(server: RunningServer) -> None:
    secret = await server.client.post(
        "/api/vault", json={"key": "GARAGE_CODE", "value": "garage-7731-open"}
    )
    assert secret.status_code == 201, secret.text
    kin_id = await make_kin(server.client)
    path = (await create_webhook(server.client, kin_id))["path"]
    async with outside(server) as service:
        response = await service.post(path, json={"code_used": "garage-7731-open"})
    assert response.status_code == 202
    (message,) = await webhook_messages(server.client, kin_id)
    assert message["content"] == "code_used: [SECRET: GARAGE_CODE]"


async def test_only_administrators_manage_webhooks(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id)
    webhook_id = created["webhook"]["id"]
    async with server.new_client() as marie:
        await register(server.client, marie)
        calls = [
            marie.get("/api/webhooks"),
            marie.post("/api/webhooks", json={"kin_id": kin_id, "name": "Mine"}),
            marie.patch(f"/api/webhooks/{webhook_id}", json={"enabled": False}),
            marie.post(f"/api/webhooks/{webhook_id}/rotate"),
            marie.delete(f"/api/webhooks/{webhook_id}"),
        ]
        for call in calls:
            response = await call
            assert response.status_code == 403, response.text
            assert created["token"] not in response.text
    async with server.new_client() as stranger:
        assert (await stranger.get("/api/webhooks")).status_code == 401
    # Administrators' mistakes are 4xx.
    for body in (
        {"kin_id": "no-such-kin", "name": "Home Assistant"},
        {"kin_id": kin_id, "name": "   "},
        {"kin_id": kin_id, "name": "HA", "max_body_bytes": 10 * 1024 * 1024},
        {"kin_id": kin_id, "name": "HA", "signing_secret": "short"},
    ):
        refused = await server.client.post("/api/webhooks", json=body)
        assert refused.status_code in (400, 404), refused.text
    missing = await server.client.post("/api/webhooks/nothing-here/rotate")
    assert missing.status_code == 404


async def test_the_token_and_secret_are_shown_once_and_never_logged_or_stored(
    server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id, signing_secret=SIGNING_SECRET)
    token = created["token"]
    body = json.dumps(DOOR_EVENT).encode()
    async with outside(server) as service:
        await service.post(created["path"], content=body, headers=signed(body))
        await service.post(created["path"], content=body, headers=signed(body, "wrong secret!!!!"))
        await service.post(created["path"], content=b"{", headers=signed(b"{"))
    listed = await server.client.get("/api/webhooks")
    renamed = await server.client.patch(
        f"/api/webhooks/{created['webhook']['id']}", json={"name": "HA"}
    )
    for response in (listed, renamed):
        assert response.status_code == 200
        assert token not in response.text and SIGNING_SECRET not in response.text
        assert "token" not in response.text and 'secret":' not in response.text
    server_logs = "\n".join(
        record.getMessage()
        for record in caplog.records
        if not record.name.startswith(("httpx", "httpcore"))  # the test's own client
    )
    assert server_logs  # the server did log
    assert token not in server_logs and SIGNING_SECRET not in server_logs
    stored = database_bytes(server.platform.settings.database_path)
    assert token.encode() not in stored and SIGNING_SECRET.encode() not in stored


async def test_a_webhook_goes_with_its_kin(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    created = await create_webhook(server.client, kin_id)
    assert (await server.client.delete(f"/api/kins/{kin_id}")).status_code == 204
    assert (await server.client.get("/api/webhooks")).json()["webhooks"] == []
    async with outside(server) as service:
        assert (await service.post(created["path"], json=DOOR_EVENT)).status_code == 401


async def test_signing_secrets_survive_a_master_key_rotation(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    try:
        config = {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
        await platform.providers.add("ai", "openai", "OpenAI", config)
        kin = await platform.kins.create({"name": "Majordome", "model": "gpt-4o"})
        issued = await platform.webhooks.create(
            kin.id, "Home Assistant", signing_secret=SIGNING_SECRET
        )
    finally:
        await platform.stop()
    result = rotate(data_dir)
    assert result.returncode == 0, result.stderr
    assert "1 in webhook" in result.stdout
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    try:
        found = await platform.webhooks.find(issued.token)
        assert found is not None and found.signing_secret == SIGNING_SECRET.encode()
    finally:
        await platform.stop()


def documented(language: str) -> str:
    """The ``language`` example of docs/webhooks.md's signature section."""
    text = (Path(__file__).parents[1] / "docs" / "webhooks.md").read_text()
    section = text.split("## Signatures", 1)[1]
    (block,) = re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)
    return str(block)


async def test_the_documented_signing_examples_work(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    secret = "the webhook's signing secret"
    created = await create_webhook(server.client, kin_id, "Backups", signing_secret=secret)
    url = f"{server.url}{created['path']}"
    example_url = re.search(r'url = "(\S+)"', documented("python"))
    assert example_url is not None
    for command in (
        [sys.executable, "-c", documented("python").replace(example_url.group(1), url)],
        ["bash", "-euc", documented("sh").replace(example_url.group(1), url)],
    ):
        ran = await asyncio.to_thread(
            subprocess.run,
            command,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={k: v for k, v in os.environ.items() if "proxy" not in k.lower()},  # loopback
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert '"status":"queued"' in ran.stdout.replace(" ", "")
    contents = [m["content"] for m in await webhook_messages(server.client, kin_id)]
    assert contents == ["event: backup finished\nsize_gb: 212"] * 2


async def test_the_upgrade_keeps_every_message_and_allows_the_webhook_source(
    data_dir: Path,
) -> None:
    names = sorted(path.stem for path in MIGRATIONS_DIR.glob("[0-9]*.py"))
    before = names[names.index("0022_webhooks") - 1]
    path = data_dir / "kinbot.db"
    await asyncio.to_thread(data_dir.mkdir)
    old = Database(path)
    await old.read(lambda: Runner(old.peewee, directory=str(MIGRATIONS_DIR)).up(target=before))

    def a_session() -> None:
        old.sql(
            "insert into kin (id, name, model, workspace, created_at, updated_at) "
            "values ('k1', 'Majordome', 'gpt-4o', '/tmp/k1', 1, 1)"
        )
        for number, source in enumerate(("user", "kin", "task", "cron", "system")):
            old.sql(
                "insert into message (kin_id, role, source, content, created_at) "
                "values ('k1', 'user', ?, ?, 1)",
                (source, f"message {number}"),
            )

    await old.write(a_session)
    await old.close()

    upgraded = Database(path)
    assert await upgraded.open() == names[names.index("0022_webhooks") :]
    try:
        kept = await upgraded.read(
            lambda: upgraded.sql("select source, content from message order by id").fetchall()
        )
        assert kept == [
            (source, f"message {number}")
            for number, source in enumerate(("user", "kin", "task", "cron", "system"))
        ]
        await upgraded.write(
            lambda: upgraded.sql(
                "insert into message (kin_id, role, source, content, created_at) "
                "values ('k1', 'user', 'webhook', 'door opened', 2)"
            )
        )
        with pytest.raises(Exception, match="CHECK constraint failed"):
            await upgraded.write(
                lambda: upgraded.sql(
                    "insert into message (kin_id, role, source, content, created_at) "
                    "values ('k1', 'user', 'pigeon', 'coo', 3)"
                )
            )
        check = await upgraded.read(lambda: upgraded.sql("pragma integrity_check").fetchall())
        assert check == [("ok",)]
    finally:
        await upgraded.close()

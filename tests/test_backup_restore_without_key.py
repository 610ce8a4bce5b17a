"""A backup made by the running server (Settings → Backups, which never holds the master
key), restored by the real ``kinbot restore`` into a new folder and served without the key:
the instance starts and lists that backup as done; the Vault lists the secret it cannot
open as unreadable, the provider and the Telegram channel say their settings need entering
again; nothing is destroyed, so with the original ``secret.key`` back everything opens."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.telegram_fake import FakeTelegram
from tests.support.telegram_setup import TOKEN, add_telegram_channel

PASSPHRASE = "our family backup phrase"
SECRET = "boiler-code-4521-7788-3390"


async def kinbot(*args: str) -> tuple[int, str]:
    """Run the ``kinbot`` command in its own process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kinbot_web.cli", *args,
        env={**env, "KINBOT_BACKUP_PASSPHRASE": PASSPHRASE},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


async def until(read: Callable[[], Awaitable[Any]], holds: Callable[[Any], bool]) -> Any:
    """What ``read()`` returns once ``holds`` says so (waiting for the server's state)."""
    async with asyncio.timeout(60):
        while True:
            found = await read()
            if holds(found):
                return found
            await asyncio.sleep(0.05)


async def get(client: httpx.AsyncClient, path: str) -> Any:
    response = await client.get(path)
    assert response.status_code == 200, (path, response.text)
    return response.json()


async def backup_by_the_server(client: httpx.AsyncClient, data_dir: Path) -> Path:
    saved = await client.put("/api/backups/schedule", json={"passphrase": PASSPHRASE})
    assert saved.status_code == 200, saved.text
    started = await client.post("/api/backups")
    assert started.status_code == 202, started.text
    runs = await until(
        lambda: get(client, "/api/backups"), lambda body: body["runs"][0]["status"] != "running"
    )
    run = runs["runs"][0]
    assert run["status"] == "done", run
    return data_dir / "backups" / str(run["file_name"])


async def test_a_backup_restored_without_its_key_starts_and_opens_again_with_it(
    data_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with FakeOpenAI() as llm, FakeTelegram() as telegram:
        telegram.add_bot(TOKEN)
        async with serve_with_openai(data_dir, llm) as original:
            client = original.client
            kin_id = await make_kin(client)
            stored = await client.post(
                "/api/vault", json={"key": "BOILER_CODE", "value": SECRET, "description": "boiler"}
            )
            assert stored.status_code == 201, stored.text
            channel = await add_telegram_channel(client, telegram, [kin_id])
            await until(
                lambda: get(client, "/api/channels"),
                lambda body: body["channels"][0]["state"] == "running",
            )
            archive = await backup_by_the_server(client, data_dir)
        key_file = data_dir / "secret.key"
        original_key = key_file.read_bytes()

        restored = tmp_path / "restored"
        code, output = await kinbot("restore", "--data-dir", str(restored), str(archive))
        assert code == 0, output
        assert not (restored / "secret.key").exists()

        async with serve_with_openai(restored, llm, first_start=False) as copy:
            client = copy.client
            health = await client.get("/api/health")
            assert health.status_code == 200, health.text
            assert "holds a database but no secret.key" in caplog.text  # says what to do
            assert "copy the original secret.key" in caplog.text
            vault = await get(client, "/api/vault")
            assert [(s["key"], s["readable"]) for s in vault["secrets"]] == [("BOILER_CODE", False)]
            assert vault["unreadable"] == 1
            providers = (await get(client, "/api/providers"))["providers"]
            assert [p["unreadable"] for p in providers] == [True]
            tested = await client.post(f"/api/providers/{providers[0]['id']}/test")
            assert tested.status_code == 400, tested.text
            assert tested.json()["error"]["code"] == "provider_settings_unreadable"
            channels = await until(
                lambda: get(client, "/api/channels"),
                lambda body: body["channels"][0]["last_error_code"] is not None,
            )
            assert channels["channels"][0]["last_error_code"] == "channel_settings_unreadable"
            assert channels["channels"][0]["state"] == "failing"
            # Nothing was destroyed: the sealed values are all still in the database.
            assert (await get(client, "/api/vault/BOILER_CODE"))["secret"]["readable"] is False
            # The backup it came from reads as done (its row was "running" when the database
            # was copied), not as interrupted; its file is not in this folder.
            (run,) = (await get(client, "/api/backups"))["runs"]
            assert (run["status"], run["error_code"], run["present"]) == ("done", None, False)

        (restored / "secret.key").write_bytes(original_key)
        async with serve_with_openai(restored, llm, first_start=False) as again:
            client = again.client
            vault = await get(client, "/api/vault")
            assert [(s["key"], s["readable"]) for s in vault["secrets"]] == [("BOILER_CODE", True)]
            value = await again.platform.vault.read_value("BOILER_CODE", kin_id=kin_id, turn=None)
            assert value == SECRET
            providers = (await get(client, "/api/providers"))["providers"]
            assert [p["unreadable"] for p in providers] == [False]
            tested = await client.post(f"/api/providers/{providers[0]['id']}/test")
            assert tested.status_code == 200, tested.text
            await until(
                lambda: get(client, "/api/channels"),
                lambda body: body["channels"][0]["state"] == "running",
            )
            assert channel["id"] == (await get(client, "/api/channels"))["channels"][0]["id"]

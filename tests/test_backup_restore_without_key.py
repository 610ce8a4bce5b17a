"""A backup made by the running server (Settings → Backups, which never holds the master
key), restored by the real ``kinbot restore`` into a new folder and served without the key:
the instance starts and lists that backup as done; the Vault lists the secret it cannot
open as unreadable, the provider and the Telegram channel say their settings need entering
again; nothing is destroyed, so with the original ``secret.key`` back everything opens."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from kinbot_core import master_key
from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.serve_process import kinbot_command
from tests.support.telegram_fake import FakeTelegram
from tests.support.telegram_setup import TOKEN, add_telegram_channel
from tests.support.waiting import get_ok, get_when

PASSPHRASE = "our family backup phrase"
SECRET = "boiler-code-4521-7788-3390"


async def backup_by_the_server(client: httpx.AsyncClient, data_dir: Path) -> Path:
    saved = await client.put("/api/backups/schedule", json={"passphrase": PASSPHRASE})
    assert saved.status_code == 200, saved.text
    started = await client.post("/api/backups")
    assert started.status_code == 202, started.text
    runs = await get_when(
        client, "/api/backups", lambda body: body["runs"][0]["status"] != "running"
    )
    run = runs["runs"][0]
    assert run["status"] == "done", run
    return data_dir / "backups" / str(run["file_name"])


async def test_a_backup_restored_without_its_key_starts_and_opens_again_with_it(
    data_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The warning is read on its own logger, at its own level, so that what another test
    # left in the process's logging set-up cannot hide it.
    caplog.set_level(logging.WARNING, logger=master_key.__name__)
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
            await get_when(
                client,
                "/api/channels",
                lambda body: body["channels"][0]["state"] == "running",
            )
            archive = await backup_by_the_server(client, data_dir)
        key_file = data_dir / "secret.key"
        original_key = key_file.read_bytes()

        restored = tmp_path / "restored"
        code, output = await kinbot_command(
            "restore", "--data-dir", str(restored), str(archive),
            KINBOT_BACKUP_PASSPHRASE=PASSPHRASE,
        )  # fmt: skip
        assert code == 0, output
        assert not (restored / "secret.key").exists()

        async with serve_with_openai(restored, llm, first_start=False) as copy:
            client = copy.client
            health = await client.get("/api/health")
            assert health.status_code == 200, health.text
            warned = " ".join(
                r.getMessage() for r in caplog.records if r.name == master_key.__name__
            )
            logger = logging.getLogger(master_key.__name__)
            assert "holds a database but no secret.key" in warned, (  # says what to do
                list(logging.root.handlers),
                (logger.disabled, logger.propagate, logger.getEffectiveLevel()),
                logging.root.manager.disable,
                (restored / "secret.key").exists(),
            )
            assert "copy the original secret.key" in warned
            vault = await get_ok(client, "/api/vault")
            assert [(s["key"], s["readable"]) for s in vault["secrets"]] == [("BOILER_CODE", False)]
            assert vault["unreadable"] == 1
            providers = (await get_ok(client, "/api/providers"))["providers"]
            assert [p["unreadable"] for p in providers] == [True]
            tested = await client.post(f"/api/providers/{providers[0]['id']}/test")
            assert tested.status_code == 400, tested.text
            assert tested.json()["error"]["code"] == "provider_settings_unreadable"
            channels = await get_when(
                client,
                "/api/channels",
                lambda body: body["channels"][0]["last_error_code"] is not None,
            )
            assert channels["channels"][0]["last_error_code"] == "channel_settings_unreadable"
            assert channels["channels"][0]["state"] == "failing"
            # Nothing was destroyed: the sealed values are all still in the database.
            assert (await get_ok(client, "/api/vault/BOILER_CODE"))["secret"]["readable"] is False
            # The backup it came from reads as done (its row was "running" when the database
            # was copied), not as interrupted; its file is not in this folder.
            backups = await get_ok(client, "/api/backups")
            (run,) = backups["runs"]
            assert (run["status"], run["error_code"], run["present"]) == ("done", None, False)
            # Its passphrase is sealed under the old key: to be typed again, not "set".
            schedule = backups["schedule"]
            assert (schedule["passphrase_set"], schedule["passphrase_unreadable"]) == (False, True)
            refused = await client.post("/api/backups")
            assert refused.status_code == 400, refused.text
            assert refused.json()["error"]["code"] == "backup_passphrase_required"

        (restored / "secret.key").write_bytes(original_key)
        async with serve_with_openai(restored, llm, first_start=False) as again:
            client = again.client
            vault = await get_ok(client, "/api/vault")
            assert [(s["key"], s["readable"]) for s in vault["secrets"]] == [("BOILER_CODE", True)]
            value = await again.platform.vault.read_value("BOILER_CODE", kin_id=kin_id, turn=None)
            assert value == SECRET
            providers = (await get_ok(client, "/api/providers"))["providers"]
            assert [p["unreadable"] for p in providers] == [False]
            tested = await client.post(f"/api/providers/{providers[0]['id']}/test")
            assert tested.status_code == 200, tested.text
            schedule = (await get_ok(client, "/api/backups"))["schedule"]
            assert (schedule["passphrase_set"], schedule["passphrase_unreadable"]) == (True, False)
            await get_when(
                client,
                "/api/channels",
                lambda body: body["channels"][0]["state"] == "running",
            )
            assert channel["id"] == (await get_ok(client, "/api/channels"))["channels"][0]["id"]

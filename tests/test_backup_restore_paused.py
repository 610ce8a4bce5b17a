"""``kinbot restore --paused``: a copy restored to try it beside the running original starts
with its channel connections off, its crons paused and its automatic backups off (so it
neither polls the same Telegram bot nor runs the same crons), and the command says so."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.serve_process import kinbot_command
from tests.support.telegram_fake import FakeTelegram
from tests.support.telegram_setup import TOKEN, add_telegram_channel
from tests.support.waiting import get_ok, get_when

PASSPHRASE = "our family backup phrase"


async def test_a_copy_restored_paused_keeps_its_channels_and_crons_off(
    data_dir: Path, tmp_path: Path
) -> None:
    with FakeOpenAI() as llm, FakeTelegram() as telegram:
        telegram.add_bot(TOKEN)
        async with serve_with_openai(data_dir, llm) as original:
            client = original.client
            kin_id = await make_kin(client)
            await add_telegram_channel(client, telegram, [kin_id])
            cron = await client.post(
                "/api/crons",
                json={"name": "Menu", "schedule": "0 8 * * *", "task_description": "Plan.",
                      "kin_id": kin_id},
            )  # fmt: skip
            assert cron.status_code == 201, cron.text
            await get_when(
                client,
                "/api/channels",
                lambda body: body["channels"][0]["state"] == "running",
            )
            # Automatic backups on: the first one runs at once, and is the one restored.
            turned_on = await client.put(
                "/api/backups/schedule", json={"enabled": True, "passphrase": PASSPHRASE}
            )
            assert turned_on.status_code == 200, turned_on.text
            runs = await get_when(
                client,
                "/api/backups",
                lambda body: body["runs"] and body["runs"][0]["status"] == "done",
            )
            archive = data_dir / "backups" / runs["runs"][0]["file_name"]

            copy_dir = tmp_path / "copy"
            code, output = await kinbot_command(
                "restore", "--paused", "--data-dir", str(copy_dir), str(archive),
                KINBOT_BACKUP_PASSPHRASE=PASSPHRASE,
            )  # fmt: skip
            assert code == 0, output
            assert "paused: 1 channel connection(s) turned off, 1 cron(s) paused" in output
            assert "automatic backups turned off" in output
            shutil.copy(data_dir / "secret.key", copy_dir / "secret.key")

            async with serve_with_openai(copy_dir, llm, first_start=False) as copy:
                channels = (await get_ok(copy.client, "/api/channels"))["channels"]
                assert [(c["enabled"], c["state"]) for c in channels] == [(False, "stopped")]
                crons = (await get_ok(copy.client, "/api/crons"))["crons"]
                assert [c["active"] for c in crons] == [False]
                backups = await get_ok(copy.client, "/api/backups")
                assert backups["schedule"]["enabled"] is False
            # The original was left alone.
            channels = (await get_ok(client, "/api/channels"))["channels"]
            assert [(c["enabled"], c["state"]) for c in channels] == [(True, "running")]

"""Automatic backups through the API: the schedule (off by default, a passphrase first), "back
up now", retention, the scheduler, the last backup on ``/api/health`` without a path, and
an archive of the server that restores without its key."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kinbot_core.backup import archive_name, restore_backup
from kinbot_core.config import load_settings
from kinbot_core.db.driver import select_driver
from kinbot_core.db.models import BackupRunRecord
from kinbot_core.platform import Platform
from tests.support import server_fixtures
from tests.support.accounts import register
from tests.support.database_bytes import leaked
from tests.support.server import RunningServer

fake_llm, server = server_fixtures.fake_llm, server_fixtures.server
PASSPHRASE = "our family backup phrase"


async def runs_when(server: RunningServer, condition: Any) -> list[dict[str, Any]]:
    """The runs, once ``condition(runs)`` holds (waiting for the server's state)."""
    async with asyncio.timeout(120):
        while True:
            runs: list[dict[str, Any]] = (await server.client.get("/api/backups")).json()["runs"]
            if condition(runs):
                return runs
            await asyncio.sleep(0.1)


async def test_backups_are_off_by_default_and_for_administrators_only(
    server: RunningServer,
) -> None:
    listing = await server.client.get("/api/backups")
    assert listing.status_code == 200
    schedule = listing.json()["schedule"]
    assert schedule["enabled"] is False
    assert (schedule["interval_hours"], schedule["keep"], schedule["passphrase_set"]) == (
        24,
        7,
        False,
    )
    assert listing.json()["runs"] == []
    health = (await server.client.get("/api/health")).json()
    assert health["backup"] == {"last_at": None, "last_size_bytes": None}

    async with server.new_client() as member:
        await register(server.client, member)
        for method, path in [("GET", "/api/backups"), ("POST", "/api/backups"),
                             ("PUT", "/api/backups/schedule")]:  # fmt: skip
            refused = await member.request(method, path, json={"enabled": False})
            assert refused.status_code == 403, (method, path)

    turned_on = await server.client.put("/api/backups/schedule", json={"enabled": True})
    assert turned_on.status_code == 400
    assert turned_on.json()["error"]["code"] == "backup_passphrase_required"
    now = await server.client.post("/api/backups")
    assert now.json()["error"]["code"] == "backup_passphrase_required"
    relative = await server.client.put("/api/backups/schedule", json={"target_dir": "backups"})
    assert relative.json()["error"]["code"] == "backup_target_invalid"
    short = await server.client.put("/api/backups/schedule", json={"passphrase": "short"})
    assert short.status_code == 400
    assert short.json()["error"]["code"] == "backup_passphrase_short"
    assert short.json()["error"]["details"] == {"min_length": 8}  # worded by the interface
    assert listing.json()["schedule"]["passphrase_min_length"] == 8


async def test_back_up_now_keeps_the_newest_and_reports_the_last_on_health(
    server: RunningServer, data_dir: Path, tmp_path: Path
) -> None:
    saved = await server.client.put(
        "/api/backups/schedule", json={"passphrase": PASSPHRASE, "keep": 2}
    )
    assert saved.status_code == 200, saved.text
    assert saved.json()["schedule"]["passphrase_set"] is True
    assert PASSPHRASE not in saved.text
    assert leaked(PASSPHRASE, data_dir / "kinbot.db") == []

    both = await asyncio.gather(*(server.client.post("/api/backups") for _ in range(2)))
    assert sorted(r.status_code for r in both) == [202, 409]
    assert {r.json().get("error", {}).get("code") for r in both} == {None, "backup_running"}
    await runs_when(server, lambda runs: len(runs) == 1 and runs[0]["finished_at"])
    for number in range(2, 4):
        started = await server.client.post("/api/backups")
        assert started.status_code == 202, started.text
        assert started.json()["run"]["status"] == "running"
        await runs_when(server, lambda runs, n=number: len(runs) == n and runs[0]["finished_at"])
    runs = await runs_when(server, lambda runs: True)
    assert [r["status"] for r in runs] == ["done"] * 3
    assert [r["present"] for r in runs] == [True, True, False]
    archives = sorted((data_dir / "backups").iterdir())
    assert [a.name for a in archives] == sorted(r["file_name"] for r in runs[:2])

    health = await server.client.get("/api/health")
    assert health.json()["backup"]["last_size_bytes"] == runs[0]["size"]
    assert health.json()["backup"]["last_at"] == runs[0]["finished_at"]
    assert str(data_dir) not in health.text

    newest = data_dir / "backups" / runs[0]["file_name"]
    downloaded = await server.client.get(f"/api/backups/{runs[0]['id']}/file")
    assert downloaded.status_code == 200, downloaded.text
    assert downloaded.content == newest.read_bytes()
    assert runs[0]["file_name"] in downloaded.headers["content-disposition"]
    pruned = await server.client.get(f"/api/backups/{runs[2]['id']}/file")
    assert pruned.status_code == 404 and pruned.json()["error"]["code"] == "not_found"
    restored = tmp_path / "restored"
    result = await asyncio.to_thread(restore_backup, newest, restored, PASSPHRASE, select_driver())
    assert not result.header.includes_key
    assert not (restored / "secret.key").exists()
    assert not (restored / "backups").exists()  # earlier archives are not inside the later


async def test_the_schedule_runs_a_backup_once_turned_on(
    server: RunningServer, data_dir: Path
) -> None:
    target = data_dir.parent / "elsewhere"
    saved = await server.client.put(
        "/api/backups/schedule",
        json={"passphrase": PASSPHRASE, "enabled": True, "target_dir": str(target)},
    )
    assert saved.status_code == 200, saved.text
    runs = await runs_when(server, lambda runs: runs and runs[0]["status"] == "done")
    assert runs[0]["trigger"] == "scheduled"
    assert (target / runs[0]["file_name"]).is_file()
    assert len(runs) == 1  # the next one is a day away


async def test_a_backup_cut_short_by_a_stop_is_marked_interrupted(data_dir: Path) -> None:
    first = Platform(load_settings(data_dir=data_dir), load_entry_points=False)
    await first.start()
    await first.db.write(
        lambda: BackupRunRecord.create(trigger="manual", status="running", started_at=1.0)
    )
    await first.stop()
    second = Platform(load_settings(data_dir=data_dir), load_entry_points=False)
    await second.start()
    try:
        runs = await second.backups.runs()
    finally:
        await second.stop()
    assert [(r["status"], r["error_code"]) for r in runs] == [("failed", "backup_interrupted")]


def test_backups_started_within_one_second_get_their_own_files_in_order() -> None:
    first, second = archive_name(1767225600.25), archive_name(1767225600.75)
    assert first == "kinbot-20260101-000000-250.kinbot-backup"
    assert first < second  # the oldest are pruned first: the names sort as the times


async def test_a_folder_that_cannot_take_backups_is_refused_and_a_failure_says_why(
    server: RunningServer, tmp_path: Path
) -> None:
    """Checked when saved (a clear 400 with a code the interface words, never a path of the
    machine); a folder that breaks afterwards fails the run with a code, not 'see the log'."""
    for refused_folder, code in [
        ("/proc/kinbot-backups", "backup_target_missing"),
        (str(tmp_path / "a-file"), "backup_target_not_folder"),
    ]:
        (tmp_path / "a-file").write_text("not a folder")
        refused = await server.client.put(
            "/api/backups/schedule", json={"target_dir": refused_folder}
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == code
        assert "Errno" not in refused.text and str(tmp_path) not in refused.text
    schedule = (await server.client.get("/api/backups")).json()["schedule"]
    assert schedule["target_dir"] is None  # nothing refused was kept

    folder = tmp_path / "nas"
    saved = await server.client.put(
        "/api/backups/schedule", json={"target_dir": str(folder), "passphrase": PASSPHRASE}
    )
    assert saved.status_code == 200, saved.text
    folder.rmdir()
    folder.write_text("the NAS is not mounted: a file took its place")
    started = await server.client.post("/api/backups")
    assert started.status_code == 202, started.text
    runs = await runs_when(server, lambda runs: runs[0]["status"] != "running")
    assert (runs[0]["status"], runs[0]["error_code"]) == ("failed", "backup_target_not_folder")

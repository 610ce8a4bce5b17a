"""Automatic backups: the administrator's schedule (stored in the database, off by default),
the runs, "back up now", and retention.

Scheduled and on-demand archives never hold the master key (whoever got hold of the folder
and the passphrase must not be able to read every secret); keep the key file or
``KINBOT_SECRET_KEY`` apart, as ``docs/backups.md`` says. The passphrase is sealed under the
master key and is never returned. Archives go to ``backups/`` in the data directory unless
another folder is set; that folder is left out of the archives themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kinbot_core.backup.create import BACKUPS_DIR_NAME, SUFFIX, archive_name, create_backup
from kinbot_core.backup.folder import UNKNOWN as UNKNOWN_FAILURE
from kinbot_core.backup.folder import BackupError, check_folder, failure_code
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db.models import BackupRunRecord, BackupSettingsRecord

logger = logging.getLogger(__name__)

__all__ = ["BackupError", "BackupSchedule", "BackupService"]

#: What the schedule's passphrase is sealed for (vault/rotation.py re-seals it).
PASSPHRASE_SEALING_CONTEXT = "backup:passphrase"
#: After a failed scheduled backup, the next attempt comes at most this much later.
RETRY_SECONDS = 3600.0
MIN_PASSPHRASE = 8


@dataclass(frozen=True)
class BackupSchedule:
    """The schedule as an administrator sees it (the passphrase only as set or not)."""

    enabled: bool
    interval_hours: float
    keep: int
    target_dir: str | None
    default_target_dir: str
    #: A passphrase is saved and opens with this instance's master key.
    passphrase_set: bool
    #: A passphrase is saved but sealed under another master key (a copy restored without
    #: its key file): it must be typed again before backups can run.
    passphrase_unreadable: bool
    #: The fewest characters a passphrase may have.
    passphrase_min_length: int = MIN_PASSPHRASE


def _row() -> BackupSettingsRecord:
    return BackupSettingsRecord.get_or_none(id=1) or BackupSettingsRecord(id=1)


def _run_dict(row: BackupRunRecord, directory: Path) -> dict[str, Any]:
    present = row.file_name is not None and (directory / row.file_name).is_file()
    return {
        "id": row.id,
        "trigger": row.trigger,
        "status": row.status,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "file_name": row.file_name,
        "size": row.size,
        "error_code": row.error_code,
        "present": present,
    }


class BackupService:
    """Runs backups for a platform: on schedule, and when an administrator asks."""

    def __init__(self, platform: Any) -> None:
        self._platform = platform
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._running: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()

    @property
    def default_directory(self) -> Path:
        return Path(self._platform.settings.data_dir) / BACKUPS_DIR_NAME

    async def start(self) -> None:
        """Mark runs a stopped process left unfinished as failed; start the scheduler."""

        def interrupted() -> None:
            BackupRunRecord.update(
                status="failed", error_code="backup_interrupted", finished_at=time.time()
            ).where(BackupRunRecord.status == "running").execute()

        await self._platform.db.write(interrupted)
        self._loop = asyncio.get_running_loop().create_task(self._schedule(), name="backups")

    async def stop(self) -> None:
        """Stop the scheduler; a backup being written is finished (its thread cannot stop)."""
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._running is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._running)

    # -- the schedule ---------------------------------------------------------------------

    async def schedule(self) -> BackupSchedule:
        row = await self._platform.db.read(_row)
        readable = self._passphrase(row) is not None
        return BackupSchedule(
            enabled=bool(row.enabled),
            interval_hours=float(row.interval_hours),
            keep=int(row.keep),
            target_dir=row.target_dir,
            default_target_dir=str(self.default_directory),
            passphrase_set=readable,
            passphrase_unreadable=row.passphrase_sealed is not None and not readable,
        )

    def _passphrase(self, row: BackupSettingsRecord) -> bytes | None:
        """The saved passphrase, or ``None`` when none is saved or it cannot be opened."""
        if row.passphrase_sealed is None:
            return None
        try:
            return self._box().open(row.passphrase_sealed, PASSPHRASE_SEALING_CONTEXT)
        except DecryptionError:
            return None

    async def update(
        self,
        *,
        enabled: bool | None = None,
        interval_hours: float | None = None,
        keep: int | None = None,
        target_dir: str | None = None,
        passphrase: str | None = None,
    ) -> BackupSchedule:
        """Change the schedule (``None``: unchanged; ``target_dir=""``: the default folder).

        Raises ``BackupError``: ``backup_passphrase_required`` to enable without a
        passphrase, ``backup_passphrase_short``, ``backup_target_invalid`` (not absolute, or
        the data directory), or why the folder cannot take backups (``unusable_reason``)."""
        if passphrase is not None and len(passphrase) < MIN_PASSPHRASE:
            raise BackupError(
                code="backup_passphrase_short",
                message=f"The passphrase is too short: at least {MIN_PASSPHRASE} characters.",
                min_length=MIN_PASSPHRASE,
            )
        if target_dir:
            path, data_dir = Path(target_dir), Path(self._platform.settings.data_dir)
            if not path.is_absolute() or path == data_dir or path in data_dir.parents:
                raise BackupError(
                    code="backup_target_invalid",
                    message="The backup folder must be an absolute path, not the data directory's.",
                )
            await asyncio.to_thread(check_folder, path)
        sealed = (
            self._box().seal(passphrase.encode(), PASSPHRASE_SEALING_CONTEXT)
            if passphrase
            else None
        )

        def change() -> None:
            row = _row()
            if enabled is not None:
                row.enabled = enabled
            if interval_hours is not None:
                row.interval_hours = interval_hours
            if keep is not None:
                row.keep = keep
            if target_dir is not None:
                row.target_dir = target_dir or None
            if sealed is not None:
                row.passphrase_sealed = sealed
            if row.enabled and self._passphrase(row) is None:
                raise BackupError(
                    code="backup_passphrase_required",
                    message="Set a passphrase before turning automatic backups on.",
                )
            row.updated_at = time.time()
            row.save(force_insert=BackupSettingsRecord.get_or_none(id=1) is None)

        await self._platform.db.write(change)
        self._wake.set()
        return await self.schedule()

    def _box(self) -> SecretBox:
        return SecretBox(self._platform.master_key)

    def _directory(self, row: BackupSettingsRecord) -> Path:
        return Path(row.target_dir) if row.target_dir else self.default_directory

    # -- runs -----------------------------------------------------------------------------

    async def runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """The most recent runs, newest first, each saying whether its file is still there."""

        def recent() -> list[dict[str, Any]]:
            directory = self._directory(_row())
            rows = BackupRunRecord.select().order_by(BackupRunRecord.id.desc()).limit(limit)
            return [_run_dict(row, directory) for row in rows]

        found: list[dict[str, Any]] = await self._platform.db.read(recent)
        return found

    async def archive(self, run_id: int) -> Path | None:
        """The file of a finished run, while it is still in the backup folder."""

        def find() -> Path | None:
            row = BackupRunRecord.get_or_none(id=run_id)
            if row is None or row.status != "done" or row.file_name is None:
                return None
            path = self._directory(_row()) / row.file_name
            return path if path.is_file() else None

        found: Path | None = await self._platform.db.read(find)
        return found

    async def last_success(self) -> tuple[float, int] | None:
        """When the last good backup finished, and its size in bytes."""

        def last() -> tuple[float, int] | None:
            row = (
                BackupRunRecord.select()
                # A restored archive's own run is done without a size: not this instance's.
                .where((BackupRunRecord.status == "done") & BackupRunRecord.size.is_null(False))
                .order_by(BackupRunRecord.id.desc())
                .first()
            )
            return (float(row.finished_at), int(row.size)) if row else None

        found: tuple[float, int] | None = await self._platform.db.read(last)
        return found

    async def back_up_now(self, trigger: str = "manual") -> dict[str, Any]:
        """Start a backup in the background; returns its run (``running``).

        Raises ``BackupError``: ``backup_running`` while one runs,
        ``backup_passphrase_required`` before a passphrase is set."""
        async with self._starting:  # two requests at once: one starts, the other is told
            return await self._start_run(trigger)

    async def _start_run(self, trigger: str) -> dict[str, Any]:
        if self._running is not None and not self._running.done():
            raise BackupError(code="backup_running", message="A backup is already running.")
        row = await self._platform.db.read(_row)
        passphrase = self._passphrase(row)
        if passphrase is None:
            raise BackupError(
                code="backup_passphrase_required", message="Set a passphrase for the backups first."
            )
        directory = self._directory(row)
        started = time.time()
        name = archive_name(started)

        def insert() -> BackupRunRecord:
            run: BackupRunRecord = BackupRunRecord.create(
                trigger=trigger, status="running", started_at=started, file_name=name
            )
            return run

        run = await self._platform.db.write(insert)
        self._running = asyncio.get_running_loop().create_task(
            self._write(run.id, directory / name, passphrase.decode(), int(row.keep)),
            name="backup",
        )
        return _run_dict(run, directory)

    async def _write(self, run_id: int, output: Path, passphrase: str, keep: int) -> None:
        platform = self._platform
        size: int | None = None
        code: str | None = UNKNOWN_FAILURE
        status = "failed"
        try:
            result = await asyncio.to_thread(
                create_backup,
                platform.settings,
                platform.db.driver,
                output,
                passphrase,
                exclude=[output.parent],
                run_id=run_id,
            )
            status, size, code = "done", result.size, None
            await asyncio.to_thread(_prune, output.parent, keep)
        except Exception as error:
            code = failure_code(error)
            logger.exception("backup %s failed (%s)", run_id, code)

        def finish() -> None:
            BackupRunRecord.update(
                status=status, size=size, error_code=code, finished_at=time.time()
            ).where(BackupRunRecord.id == run_id).execute()

        await platform.db.write(finish)
        logger.info("backup %s %s", run_id, status)

    async def _schedule(self) -> None:
        while True:
            try:
                await self._tick()
            except Exception:  # the schedule must outlive a failing database or disk
                logger.exception("scheduled backups: retrying in %s s", RETRY_SECONDS)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=RETRY_SECONDS)

    async def _tick(self) -> None:
        """Run the backup that is due, or wait until one is (or the schedule changes)."""
        delay = await self._next_in()
        self._wake.clear()
        if delay is not None and delay <= 0:
            try:
                await self.back_up_now("scheduled")
            except BackupError:  # one running (awaited below), or no readable passphrase
                if self._running is None or self._running.done():
                    delay = RETRY_SECONDS
            if self._running is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._running)
            if delay is not None and delay <= 0:
                return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def _next_in(self) -> float | None:
        """Seconds until the next scheduled backup (``None``: off)."""

        def due() -> float | None:
            row = _row()
            if not row.enabled or row.passphrase_sealed is None:
                return None
            last = (
                BackupRunRecord.select()
                .where(BackupRunRecord.trigger == "scheduled")
                .order_by(BackupRunRecord.id.desc())
                .first()
            )
            if last is None:
                return 0.0
            wait = float(row.interval_hours) * 3600
            if last.status == "failed":
                wait = min(wait, RETRY_SECONDS)
            return float(last.started_at) + wait - time.time()

        found: float | None = await self._platform.db.read(due)
        return found


def _prune(directory: Path, keep: int) -> list[Path]:
    """Delete the oldest archives of ``directory`` beyond the ``keep`` newest (only files
    named as KinBot names them); returns those deleted."""
    archives = sorted(directory.glob(f"kinbot-*{SUFFIX}"))
    doomed = archives[: max(0, len(archives) - keep)]
    for path in doomed:
        path.unlink(missing_ok=True)
    return doomed

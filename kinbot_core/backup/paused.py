"""A restored copy that starts quiet (``kinbot restore --paused``): a family testing a backup
beside the running original must not get two KinBots polling one Telegram bot, reading one
mailbox, or running the same crons and backups.

Applied to the restored database before its first start: every channel connection is turned
off, every active cron paused and automatic backups switched off. An administrator turns each
back on in Settings (channels, a Kin's crons, backups) once the copy is the one to keep.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: What is turned off, as (what, SQL); a table a restored older schema lacks is skipped.
_STATEMENTS = (
    ("channels", "update channel_connection set enabled = 0 where enabled = 1"),
    ("crons", "update cron set active = 0 where active = 1"),
    ("backups", "update backup_settings set enabled = 0 where enabled = 1"),
)


@dataclass(frozen=True)
class Paused:
    """How many channel connections and crons were turned off, and whether automatic
    backups were on."""

    channels: int
    crons: int
    backups: bool


def pause_restored(driver: ModuleType, database: Path) -> Paused:
    """Turn off the channels, crons and automatic backups of a restored database."""
    counts: dict[str, int] = {}
    with contextlib.closing(driver.connect(str(database))) as conn:
        for what, statement in _STATEMENTS:
            try:
                counts[what] = conn.execute(statement).rowcount
            except driver.OperationalError:  # an older schema without that table
                counts[what] = 0
        conn.commit()
    return Paused(counts["channels"], counts["crons"], counts["backups"] > 0)

"""Backups that restore: one encrypted archive of a data directory (``create``), restored
into an empty directory (``restore``), and scheduled backups with retention (``schedule``).
``docs/backups.md`` describes them for administrators."""

from kinbot_core.backup.create import BackupResult, archive_name, create_backup
from kinbot_core.backup.manifest import ArchiveError, Header
from kinbot_core.backup.restore import RestoreResult, restore_backup
from kinbot_core.backup.sealed_file import SealedFileError

__all__ = [
    "ArchiveError",
    "BackupResult",
    "Header",
    "RestoreResult",
    "SealedFileError",
    "archive_name",
    "create_backup",
    "restore_backup",
]

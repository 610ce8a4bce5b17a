"""``kinbot backup`` and ``kinbot restore``: the archive commands of the ``kinbot`` CLI."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from pathlib import Path

from kinbot_core.backup import ArchiveError, archive_name, create_backup, restore_backup
from kinbot_core.backup.create import BACKUPS_DIR_NAME
from kinbot_core.backup.manifest import DATABASE_NAME
from kinbot_core.backup.paused import pause_restored
from kinbot_core.config import Settings
from kinbot_core.db.driver import select_driver

PASSPHRASE_ENV = "KINBOT_BACKUP_PASSPHRASE"
NO_KEY_NOTE = (
    "This backup does not hold the master key: the secrets in it (provider API keys, Vault "
    "values, channel and webhook secrets) open only with the key of this instance. Keep the "
    "key file ({key}) or the KINBOT_SECRET_KEY passphrase safe apart from the backup, or "
    "back up with --include-key."
)
RESTORED_WITHOUT_KEY = (
    "The backup holds no master key: before starting KinBot, copy the original instance's "
    "secret.key into {target}, or set KINBOT_SECRET_KEY to its passphrase; without it the "
    "secrets (provider API keys, Vault values) cannot be opened."
)


def add_parsers(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    common: argparse.ArgumentParser,
) -> None:
    """Add ``backup`` and ``restore`` to the ``kinbot`` sub-commands."""
    secret = argparse.ArgumentParser(add_help=False)
    secret.add_argument(
        "--passphrase-file",
        type=Path,
        help=f"read the archive's passphrase from this file (else ${PASSPHRASE_ENV}, "
        "else a prompt)",
    )
    backup = commands.add_parser(
        "backup",
        parents=[common, secret],
        help="write an encrypted archive of the data directory (the server may be running)",
    )
    backup.add_argument(
        "--output",
        type=Path,
        help=f"archive file or folder (default: {BACKUPS_DIR_NAME}/ in the data directory)",
    )
    backup.add_argument(
        "--include-key",
        action="store_true",
        help="put the master key in the archive (then the passphrase alone opens every secret)",
    )
    restore = commands.add_parser(
        "restore",
        parents=[common, secret],
        help="restore an archive into an empty data directory (--data-dir)",
    )
    restore.add_argument(
        "--paused",
        action="store_true",
        help="turn off the channels (Telegram, e-mail…), crons and automatic backups of the "
        "restored copy, to try it beside the running original",
    )
    restore.add_argument("archive", type=Path)


def _passphrase(args: argparse.Namespace, *, confirm: bool) -> str:
    if args.passphrase_file is not None:
        return str(args.passphrase_file.read_text().rstrip("\r\n"))
    if os.environ.get(PASSPHRASE_ENV):
        return os.environ[PASSPHRASE_ENV]
    if not sys.stdin.isatty():
        raise ArchiveError(f"give the passphrase with --passphrase-file or ${PASSPHRASE_ENV}")
    passphrase = getpass.getpass("Backup passphrase: ")
    if confirm and getpass.getpass("The same passphrase again: ") != passphrase:
        raise ArchiveError("the two passphrases differ")
    if not passphrase:
        raise ArchiveError("a backup needs a passphrase")
    return passphrase


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run ``kinbot backup`` or ``kinbot restore``; 1 with a sentence on a refused archive."""
    try:
        if args.command == "backup":
            return _backup(settings, args)
        return _restore(settings, args)
    except ArchiveError as exc:
        print(f"kinbot: {exc}", file=sys.stderr)
        return 1


def _backup(settings: Settings, args: argparse.Namespace) -> int:
    if not settings.database_path.is_file():
        raise ArchiveError(f"there is no KinBot database in {settings.data_dir}")
    passphrase = _passphrase(args, confirm=True)
    output = args.output or settings.data_dir / BACKUPS_DIR_NAME
    if output.is_dir() or args.output is None:
        output = output / archive_name(time.time())
    result = create_backup(
        settings, select_driver(), output, passphrase, include_key=args.include_key
    )
    print(f"backup written: {result.path} ({_size(result.size)}, {result.files} files)")
    if result.includes_key:
        print(
            "It holds the master key: whoever has the archive and its passphrase can read "
            "every secret. Keep both apart."
        )
    else:
        print(NO_KEY_NOTE.format(key=settings.data_dir / "secret.key"))
    if result.config_left_out:
        print("kinbot.toml was left out: it holds secret_key (use --include-key to keep it).")
    return 0


def _restore(settings: Settings, args: argparse.Namespace) -> int:
    passphrase = _passphrase(args, confirm=False)
    result = restore_backup(args.archive, settings.data_dir, passphrase, select_driver())
    header = result.header
    print(
        f"restored into {settings.data_dir}: {result.files} files ({_size(result.size)}), "
        f"made by KinBot {header.kinbot_version}, schema {header.schema}"
    )
    if result.skipped:
        print(f"left out when it was made (links, special files): {len(result.skipped)}")
    if args.paused:
        paused = pause_restored(select_driver(), settings.data_dir / DATABASE_NAME)
        print(
            f"paused: {paused.channels} channel connection(s) turned off, {paused.crons} "
            f"cron(s) paused, automatic backups {'turned off' if paused.backups else 'off'}; "
            "turn them back on in Settings once this copy is the one to keep"
        )
    else:
        print(
            "At its first start this copy uses the channels, crons and backups of the original: "
            "if the original still runs, restore with --paused instead (docs/backups.md)."
        )
    if not header.includes_key:
        print(RESTORED_WITHOUT_KEY.format(target=settings.data_dir))
    print(f"start it with: kinbot serve --data-dir {settings.data_dir}")
    return 0

"""The ``kinbot`` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from kinbot_core import __version__
from kinbot_core.config import (
    Settings,
    load_settings,
    public_settings,
    settings_reference_markdown,
)
from kinbot_core.db import DatabaseDriverError
from kinbot_core.master_key import MasterKeyError
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginInfo, PluginRequired, UnknownPlugin
from kinbot_core.vault.rotation import RotationError, rotate_master_key
from kinbot_web import backup_cli


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help="data directory (KINBOT_DATA_DIR)")
    common.add_argument("--config", type=Path, help="TOML configuration file")

    parser = argparse.ArgumentParser(prog="kinbot", description="KinBot: a home for your Kins.")
    parser.add_argument("--version", action="version", version=f"kinbot {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", parents=[common], help="run the web server")
    serve.add_argument("--host", help="address to listen on (KINBOT_HOST)")
    serve.add_argument("--port", type=int, help="port to listen on, 0 for any (KINBOT_PORT)")

    plugins = commands.add_parser("plugins", help="list, enable or disable plugins")
    plugin_commands = plugins.add_subparsers(dest="plugins_command", required=True)
    listing = plugin_commands.add_parser("list", parents=[common], help="list installed plugins")
    listing.add_argument("--json", action="store_true", help="print JSON")
    for verb in ("enable", "disable"):
        toggle = plugin_commands.add_parser(
            verb, parents=[common], help=f"{verb} a plugin (from the next start)"
        )
        toggle.add_argument("name")

    vault = commands.add_parser("vault", help="manage the Vault and the master key")
    vault_commands = vault.add_subparsers(dest="vault_command", required=True)
    vault_commands.add_parser(
        "rotate-key",
        parents=[common],
        help="re-encrypt every secret under a new master key (stop the server first; with "
        "KINBOT_SECRET_KEY, give the new passphrase in KINBOT_NEW_SECRET_KEY)",
    )

    backup_cli.add_parsers(commands, common)

    config = commands.add_parser(
        "config", parents=[common], help="print the effective configuration"
    )
    config.add_argument("--markdown", action="store_true", help="print the reference table")
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        args.config,
        data_dir=args.data_dir,
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
    )


def _describe_errors(exc: ValidationError) -> str:
    """Each wrong setting and why, never the value given (it may be a secret)."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        name = ".".join(str(part) for part in error["loc"]) or "configuration"
        lines.append(f"  {name}: {error['msg']}")
    return "\n".join(lines)


def _print_plugins(plugins: list[PluginInfo], as_json: bool) -> None:
    if as_json:
        print(json.dumps([p.to_dict() for p in plugins], indent=2))
        return
    header = ("NAME", "VERSION", "ENABLED", "REQUIRED", "HOOKS")
    rows = [
        (
            p.name,
            p.version or "-",
            "yes" if p.enabled else ("error" if p.error else "no"),
            p.required or "no",
            ", ".join(p.hooks) or "-",
        )
        for p in plugins
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        cells = [str(cell).ljust(widths[i]) for i, cell in enumerate(row[:4])]
        print("  ".join([*cells, row[4]]))
    for p in plugins:
        if p.error:
            print(f"\n{p.name}: {p.error}", file=sys.stderr)


async def _plugins_command(settings: Settings, args: argparse.Namespace) -> int:
    platform = Platform(settings)
    await platform.start()
    try:
        if args.plugins_command == "list":
            _print_plugins(platform.list_plugins(), args.json)
            return 0
        info = await platform.set_plugin_enabled(args.name, args.plugins_command == "enable")
        state = "enabled" if info.enabled else f"not enabled ({info.error})"
        print(f"{info.name}: {state}; a running server applies this at its next start")
        return 0 if info.enabled == (args.plugins_command == "enable") else 1
    finally:
        await platform.stop()


async def _rotate_key(settings: Settings) -> int:
    report = await rotate_master_key(
        settings, new_passphrase=os.environ.get("KINBOT_NEW_SECRET_KEY") or None
    )
    counts = ", ".join(f"{n} in {table}" for table, n in report.resealed.items()) or "none"
    print(f"re-encrypted under the new master key: {counts}")
    if report.key_file is None:
        print("now set KINBOT_SECRET_KEY to the new passphrase before starting KinBot")
    else:
        print(f"the new key is in {report.key_file}: back it up with the database")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kinbot`` console script."""
    args = _parser().parse_args(argv)
    try:
        settings = _settings(args)
    except ValidationError as exc:
        print(f"kinbot: invalid configuration:\n{_describe_errors(exc)}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"kinbot: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        if args.command == "serve":
            from kinbot_web.server import serve

            asyncio.run(serve(settings))
            return 0
        if args.command in ("backup", "restore"):
            return backup_cli.run(settings, args)
        if args.command == "vault":
            return asyncio.run(_rotate_key(settings))
        if args.command == "plugins":
            return asyncio.run(_plugins_command(settings, args))
        if args.markdown:
            print(settings_reference_markdown())
        else:
            print(json.dumps(public_settings(settings), indent=2))
        return 0
    except (DatabaseDriverError, MasterKeyError, RotationError, OSError) as exc:
        print(f"kinbot: {exc}", file=sys.stderr)
        return 2
    except (UnknownPlugin, PluginRequired) as exc:
        print(f"kinbot: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

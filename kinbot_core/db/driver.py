"""Choosing a SQLite driver that can load sqlite-vec and has FTS5."""

from __future__ import annotations

import importlib
from types import ModuleType

import sqlite_vec

INSTALL_HINT = (
    "KinBot needs a SQLite driver that can load extensions (for sqlite-vec) and has FTS5. "
    "This Python's sqlite3 module cannot load extensions. Install pysqlite3-binary "
    "(`pip install pysqlite3-binary`, Linux x86_64) or use a Python built with "
    "--enable-loadable-sqlite-extensions."
)


class DatabaseDriverError(RuntimeError):
    """No usable SQLite driver: the message says what to install."""


def _can_load_extensions(module: ModuleType) -> bool:
    return hasattr(module.Connection, "enable_load_extension")


def _candidates() -> list[ModuleType]:
    found = []
    for name in ("sqlite3", "pysqlite3.dbapi2"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            continue
    return found


def check_driver(module: ModuleType) -> str:
    """Open an in-memory database with ``module``; return the sqlite-vec version.

    Raises ``DatabaseDriverError`` when sqlite-vec does not load or FTS5 is missing.
    """
    conn = module.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        (version,) = conn.execute("select vec_version()").fetchone()
        conn.execute("create virtual table fts_probe using fts5(body)")
    except Exception as exc:
        raise DatabaseDriverError(f"{INSTALL_HINT} ({module.__name__}: {exc})") from exc
    finally:
        conn.close()
    return str(version)


def select_driver() -> ModuleType:
    """The first DB-API module that loads sqlite-vec and has FTS5: ``sqlite3``, else pysqlite3.

    Raises ``DatabaseDriverError`` with installation advice when neither works.
    """
    errors = []
    for module in _candidates():
        if not _can_load_extensions(module):
            errors.append(f"{module.__name__}: cannot load extensions")
            continue
        try:
            check_driver(module)
        except DatabaseDriverError as exc:
            errors.append(str(exc.__cause__))
            continue
        return module
    raise DatabaseDriverError(f"{INSTALL_HINT} Tried: {'; '.join(errors) or 'no driver found'}.")

"""Choosing a SQLite driver that can load sqlite-vec and has FTS5."""

from __future__ import annotations

import importlib
import importlib.util
import os
from functools import cache
from types import ModuleType
from typing import Any

INSTALL_HINT = (
    "KinBot needs a SQLite driver that can load extensions (for sqlite-vec) and has FTS5. "
    "This Python's sqlite3 module cannot load extensions. Install pysqlite3-binary "
    "(`pip install pysqlite3-binary`, Linux x86_64) or use a Python built with "
    "--enable-loadable-sqlite-extensions."
)


class DatabaseDriverError(RuntimeError):
    """No usable SQLite driver: the message says what to install."""


@cache
def vec_extension_path() -> str:
    """The sqlite-vec loadable extension (``vec0`` beside the ``sqlite_vec`` package, as its
    ``loadable_path`` says), found without importing the package: importing it imports
    numpy for helpers KinBot does not use, some 17 MB and 50 ms at every start."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise DatabaseDriverError("The sqlite-vec package is not installed.")
    return os.path.normpath(os.path.join(os.path.dirname(spec.origin), "vec0"))


def load_vec(conn: Any) -> None:
    """Load sqlite-vec into ``conn`` (a DB-API connection whose driver loads extensions)."""
    conn.enable_load_extension(True)
    conn.load_extension(vec_extension_path())
    conn.enable_load_extension(False)


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
        load_vec(conn)
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

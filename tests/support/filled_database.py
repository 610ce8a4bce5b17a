"""A real database file filled by a test's own statements (test support)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from kinbot_core.db import Database


@asynccontextmanager
async def filled_database(path: Path, fill: Callable[[Database], None]) -> AsyncIterator[Database]:
    """The database at ``path``, opened (migrations applied), then ``fill(database)`` run in
    one write; closed when the block ends."""
    database = Database(path)
    await database.open()
    await database.write(fill, database)
    try:
        yield database
    finally:
        await database.close()

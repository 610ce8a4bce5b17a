"""The SQLite database: driver selection, the async-safe facade, models and migrations."""

from kinbot_core.db.database import Database, DatabaseInfo
from kinbot_core.db.driver import DatabaseDriverError, select_driver

__all__ = ["Database", "DatabaseDriverError", "DatabaseInfo", "select_driver"]

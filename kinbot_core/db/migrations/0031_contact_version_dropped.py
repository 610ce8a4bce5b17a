"""``contact_version`` (0030) dropped with its triggers: the writer's change log
(``kinbot_core.db.changes``) tells which Kins' contacts changed, by any writer, without a table
of numbers moved on every contact written."""

from typing import Any

STATEMENTS = [
    "drop trigger if exists contact_version_insert",
    "drop trigger if exists contact_version_update",
    "drop trigger if exists contact_version_delete",
    "drop table if exists contact_version",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

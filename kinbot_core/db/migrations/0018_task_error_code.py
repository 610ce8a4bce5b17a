"""A task that failed or was cancelled says why as a code the UI words
(``error_code``: ``task_cancelled_by_user``, ``provider_unreachable``…) and, where they are
someone's own words (the provider's message, the sub-Kin's reason), a ``error_detail``."""

from typing import Any

STATEMENTS = [
    "alter table task add column error_code text",
    "alter table task add column error_detail text",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

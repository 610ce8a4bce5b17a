"""Provider calls recorded against a sub-Kin's hidden Kin row count against the Kin it
belongs to (its task's Kin), as every call of a sub-Kin does now.

The history indexer recorded the embedding of a task's or a cron run's session against the
hidden row: the usage pages listed the Kin once per sub-Kin, and its budget did not count
those calls. Hidden rows are deleted after ``sub_kin_retention_days``, so their calls move
now, while each still says whose task it ran (a row already deleted cannot say: its calls
stay as they are).
"""

from typing import Any

STATEMENTS = [
    """
    update usage_record set kin_id = (
        select t.kin_id from kin k join task t on t.id = k.task_id
        where k.id = usage_record.kin_id
    )
    where kin_id in (select k.id from kin k join task t on t.id = k.task_id)
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

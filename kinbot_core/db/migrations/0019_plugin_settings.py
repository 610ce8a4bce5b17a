"""Each plugin's settings, as an administrator saved them from the form its model describes
(``kinbot_core/plugins/settings.py``): the plain values readable, the secrets sealed."""

from typing import Any

STATEMENTS = [
    """
    create table plugin_settings (
        plugin text primary key,
        stored text not null,
        updated_at real not null
    )
    """,
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""Whether a Kin's own code (custom tools) may reach the network, through the egress proxy:
off unless someone allowed it."""

from typing import Any

STATEMENTS = [
    "alter table kin add column network_access integer not null default 0",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

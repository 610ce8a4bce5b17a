"""An index on ``message.turn_of``: every turn asks for the messages the turn produced
(whether it is resumed, its newest step), and deleting a message looks for the ones that
refer to it (``on delete set null``). Without it each of these scanned the whole message
table, so a turn's cost grew with every session's length."""

from typing import Any


def up(migrator: Any, db: Any) -> None:
    db.execute_sql("create index if not exists message_turn_of on message (turn_of)")

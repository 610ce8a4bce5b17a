"""Who may use a Kin (``kinbot_core.kins.access``): ``kin.access`` is ``everyone`` (every Kin
so far), ``members`` or ``private``, and ``kin_member`` lists the users allowed to use a
restricted one."""

from typing import Any

STATEMENTS = [
    "alter table kin add column access text not null default 'everyone'"
    " check (access in ('everyone', 'members', 'private'))",
    """
    create table kin_member (
        kin_id text not null references kin (id) on delete cascade,
        user_id text not null references user (id) on delete cascade,
        primary key (kin_id, user_id)
    )
    """,
    "create index kin_member_user on kin_member (user_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

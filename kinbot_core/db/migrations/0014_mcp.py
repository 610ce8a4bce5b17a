"""MCP servers configured by administrators (their secrets sealed under the master key), and
which Kins may use which server."""

from typing import Any

STATEMENTS = [
    """
    create table mcp_server (
        id text primary key,
        name text not null unique collate nocase,
        transport text not null check (transport in ('stdio', 'http')),
        command text,
        args text not null default '[]',
        url text,
        sealed_secrets blob,
        enabled integer not null default 1,
        created_at real not null,
        updated_at real not null
    )
    """,
    """
    create table kin_mcp_server (
        kin_id text not null references kin (id) on delete cascade,
        server_id text not null references mcp_server (id) on delete cascade,
        primary key (kin_id, server_id)
    )
    """,
    "create index kin_mcp_server_server on kin_mcp_server (server_id)",
]


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)

"""A backup taken by ``kinbot backup`` while a Kin's turn is streaming restores, with
``kinbot restore``, into a fresh directory holding every row (compared row by row, the
full-text and vector indexes' tables included) and every file (byte by byte); the restored
instance starts with the secrets readable (the key was included) and answers a message."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.db.driver import select_driver
from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.memory.usage import usage_of
from kinbot_plugins.tools.memory_tools import TOOLS
from tests.support import server_fixtures
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import make_kin, serve_with_openai, session, tell
from tests.support.serve_process import kinbot_command
from tests.support.server import RunningServer

fake_llm = server_fixtures.fake_llm
MEMORIZE = next(tool for tool in TOOLS if tool.name == "memorize")
PASSPHRASE = "a long family passphrase"
SECRET = "boiler-code-4521-7788-3390"
ROWS_SQL = "select name from sqlite_schema where type = 'table' and sql not like 'create virtual%'"

Rows = dict[str, list[tuple[Any, ...]]]


def all_rows(execute: Any) -> Rows:
    """Every row of every stored table (virtual tables are read through their own)."""
    tables = [row[0] for row in execute(ROWS_SQL).fetchall()]
    return {t: sorted(execute(f'select * from "{t}"').fetchall(), key=repr) for t in tables}


def file_bytes(root: Path) -> dict[str, bytes]:
    skip = {"kinbot.db", "kinbot.db-wal", "kinbot.db-shm", "backups"}
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in skip
    }


async def kinbot(*args: str) -> tuple[int, str]:
    """Run the ``kinbot`` command in its own process without blocking the server's loop."""
    return await kinbot_command(*args, KINBOT_BACKUP_PASSPHRASE=PASSPHRASE)


def answer_by_question(request: RecordedRequest) -> Reply | None:
    users = [m for m in request.body.get("messages", []) if m.get("role") == "user"]
    last = users[-1]["content"] if users else ""
    text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last)
    return Reply(text=f"Answer to: {text}")


async def until(condition: Any) -> None:
    """Wait for a state of the server (not for a time)."""
    async with asyncio.timeout(60):
        while True:
            if await condition():
                return
            await asyncio.sleep(0.05)


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """No memory extraction during the test: its only background writer is the history
    indexer, which leaves a running turn's message alone."""
    async with serve_with_openai(data_dir, fake_llm, memory_extraction_delay_seconds=3600) as s:
        yield s


def unindexed_but_ended(execute: Any) -> int:
    """Messages the history indexer will still write about (not the running turn's)."""
    row = execute(
        "select count(*) from message_embedding_queue q join message m on m.id = q.message_id "
        "where m.status not in ('queued', 'processing')"
    ).fetchone()
    return int(row[0])


async def test_a_backup_during_a_turn_restores_everything_and_answers(
    server: RunningServer, fake_llm: FakeOpenAI, data_dir: Path, tmp_path: Path
) -> None:
    client, platform = server.client, server.platform
    fake_llm.responder = answer_by_question
    kin_id = await make_kin(client)
    first = await tell(client, kin_id, "What is for dinner?")

    async def done(message_id: int) -> bool:
        return any(
            m["id"] == message_id and m["status"] == "done" for m in await session(client, kin_id)
        )

    await until(lambda: done(first))
    context = ToolContext(platform, kin_id, "Chef", Speaker("user", None, "Nico"))
    await MEMORIZE.run(
        context, {"content": "Nicolas is vegetarian", "category": "fact", "subject": "Nicolas"}
    )
    stored = await client.post(
        "/api/vault", json={"key": "BOILER_CODE", "value": SECRET, "description": "boiler"}
    )
    assert stored.status_code == 201, stored.text
    uploaded = await client.post(
        f"/api/kins/{kin_id}/uploads",
        files={"file": ("recipes.md", b"# Recipes\n\nLentil soup.\n")},
    )
    assert uploaded.status_code == 201, uploaded.text
    workspace = data_dir / "workspaces" / kin_id
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "menu.txt").write_bytes(bytes(range(256)) * 64)  # fmt: skip

    # The next answer streams its first chunk, then holds the stream open until stopped.
    fake_llm.enqueue(
        Reply(text="Let me think about the whole week", chunk_size=4, chunk_delay=3600)
    )
    chats = len(fake_llm.requests_to("chat"))
    held = await tell(client, kin_id, "Plan the week's meals")

    async def streaming() -> bool:
        started = len(fake_llm.requests_to("chat")) > chats
        return started and platform.workers.running(kin_id)

    await until(streaming)

    async def settled() -> bool:
        if await platform.db.read(lambda: unindexed_but_ended(platform.db.sql)):
            return False
        # The usage of the embedding calls made, how often each memory was put in the
        # prompt, and the messages' full-text terms are stored after them, in the background.
        await platform.fulltext_queue.catch_up()
        await platform.usage.recorder.flush()
        await usage_of(platform).flush()
        return True

    await until(settled)
    before = await platform.db.read(lambda: all_rows(platform.db.sql))
    archive = tmp_path / "during-a-turn.kinbot-backup"
    code, output = await kinbot(
        "backup", "--data-dir", str(data_dir), "--include-key", "--output", str(archive)
    )
    assert code == 0, output
    assert "It holds the master key" in output
    assert platform.workers.running(kin_id), "the turn ended before the backup was taken"
    after = await platform.db.read(lambda: all_rows(platform.db.sql))
    assert before == after  # nothing was written meanwhile: "before" is what the backup saw
    assert any(row for row in before["message"] if held in row)
    source_files = file_bytes(data_dir)
    stopped = await client.post(f"/api/kins/{kin_id}/stop")
    assert stopped.status_code in (200, 202, 204), stopped.text

    restored = tmp_path / "restored"
    code, output = await kinbot("restore", "--data-dir", str(restored), str(archive))
    assert code == 0, output
    assert f"restored into {restored}" in output

    def restored_rows() -> Rows:
        with contextlib.closing(select_driver().connect(str(restored / "kinbot.db"))) as conn:
            return all_rows(conn.execute)

    assert await asyncio.to_thread(restored_rows) == before
    assert file_bytes(restored) == source_files
    assert {"secret.key", f"workspaces/{kin_id}/menu.txt"} <= set(source_files)
    assert any(name.startswith("uploads/") for name in source_files)

    async with serve_with_openai(restored, fake_llm, first_start=False) as again:
        value = await again.platform.vault.read_value("BOILER_CODE", kin_id=kin_id, turn=None)
        assert value == SECRET
        memories = await again.client.get(f"/api/kins/{kin_id}/memories")
        assert [m["content"] for m in memories.json()["memories"]] == ["Nicolas is vegetarian"]
        asked = await tell(again.client, kin_id, "And for dessert?")

        async def answered() -> bool:
            messages = await session(again.client, kin_id)
            return any(m.get("turn_of") == asked and m["role"] == "assistant" for m in messages)

        await until(answered)
        messages = await session(again.client, kin_id)
        reply = next(m for m in messages if m.get("turn_of") == asked and m["role"] == "assistant")
        assert reply["content"] == "Answer to: [Nico] And for dessert?"

"""What a previous run left unembedded in a Kin's history is embedded once the server
answers requests (``Platform.serving``), not during start-up: on a small box, a backlog of
embeddings would otherwise compete with the first answers."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from tests.support import server_fixtures
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import add_openai_provider
from tests.support.serve_process import kinbot_serve
from tests.support.server import running_server
from tests.support.sse import sse_stream

fake_llm = server_fixtures.fake_llm  # the fixture, under the name pytest looks for

BACKLOG = ["The piano tuner comes on Friday.", "Grandma's birthday is on the ninth of May."]


def embedded_texts(fake: FakeOpenAI) -> str:
    return " ".join(str(r.body["input"]) for r in fake.requests_to("embeddings"))


def queued(data_dir: Path) -> int:
    uri = f"file:{data_dir / 'kinbot.db'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as database:
        return int(database.execute("select count(*) from message_embedding_queue").fetchone()[0])


async def test_the_backlog_waits_for_the_server_then_kinbot_serve_embeds_it(
    data_dir: Path, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    # A platform told that its server does not answer yet, polling its queue very often: the
    # backlog stays queued through a whole turn.
    platform = Platform(load_settings(data_dir=data_dir, history_embedding_poll_seconds=0.01))
    await platform.start(serving=False)
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        created = await server.client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})
        kin_id = created.json()["kin"]["id"]
        for text in BACKLOG:
            await platform.kins.add_message(
                kin_id, role="user", source="user", sender_name="Nico", content=text
            )
        async with sse_stream(server.client) as stream:
            sent = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
            message_id = sent.json()["message"]["id"]
            await stream.wait_for(
                lambda e: (
                    e.type == "message.status"
                    and e.data["id"] == message_id
                    and e.data["status"] == "done"
                )
            )
        assert await backend.indexer(platform).pending(kin_id) >= len(BACKLOG)
        assert not any(text in embedded_texts(fake_llm) for text in BACKLOG)
    assert queued(data_dir) >= len(BACKLOG)

    # `kinbot serve` says it answers (it asks itself), and the backlog goes.
    with kinbot_serve(data_dir, tmp_path / "serve.log"):
        async with asyncio.timeout(120):  # a guard: fail rather than hang
            while queued(data_dir):  # noqa: ASYNC110 (the server is another process)
                await asyncio.sleep(0.05)
    assert all(text in embedded_texts(fake_llm) for text in BACKLOG)

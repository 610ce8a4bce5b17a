"""Messages' full-text terms written a batch at a time (``kinbot_core.fulltext_queue``,
migration 0032): a search still finds every message stored before it, an edit or a deletion
still takes the old terms out at once, and the background loop indexes without a search."""

from __future__ import annotations

from kinbot_core.fulltext import match_expression
from kinbot_core.fulltext_queue import index_queued
from kinbot_core.platform import Platform
from tests.support import server_fixtures
from tests.support.kin_chat import make_kin
from tests.support.server import RunningServer
from tests.support.waiting import eventually

fake_llm, server = server_fixtures.fake_llm, server_fixtures.server


async def store(platform: Platform, kin_id: str, content: str) -> int:
    message = await platform.kins.add_message(
        kin_id, role="user", source="user", sender_name="Nico", content=content
    )
    return message.id


async def indexed(platform: Platform, words: str) -> list[int]:
    """The ids of the messages whose terms in ``message_fts`` match ``words``."""
    db = platform.db
    rows = await db.read(
        lambda: db.sql(
            "select rowid from message_fts where message_fts match ? order by rowid",
            (match_expression(words),),
        ).fetchall()
    )
    return [row[0] for row in rows]


async def queued(platform: Platform) -> list[int]:
    db = platform.db
    rows = await db.read(
        lambda: db.sql("select message_id from message_fts_queue order by message_id").fetchall()
    )
    return [row[0] for row in rows]


async def test_a_search_finds_messages_whose_terms_were_still_queued(
    server: RunningServer,
) -> None:
    platform = server.platform
    await platform.fulltext_queue.stop()  # only the search writes the terms here
    kin_id = await make_kin(server.client)
    plumber = await store(platform, kin_id, "The plumber comes on Tuesday to fix the sink.")
    others = [await store(platform, kin_id, f"Chat number {n} about the weather.") for n in (1, 2)]
    assert await queued(platform) == [plumber, *others]
    assert await indexed(platform, "plumber") == []

    hits = await platform.memory.search_history(kin_id, "plumbers", mode="fulltext")
    assert [hit.message_id for hit in hits] == [plumber]
    assert await queued(platform) == []
    assert await indexed(platform, "weather") == others


async def test_an_edit_takes_the_old_terms_out_at_once_and_a_deletion_its_queue_entry(
    server: RunningServer,
) -> None:
    platform = server.platform
    await platform.fulltext_queue.stop()
    kin_id = await make_kin(server.client)
    first = await store(platform, kin_id, "My bike lock code is in the drawer.")
    assert await platform.db.write(index_queued, platform.db) == 1
    assert await indexed(platform, "drawer") == [first]

    db = platform.db

    def edit() -> None:
        db.sql("update message set content = 'The code is elsewhere now.' where id = ?", (first,))

    await db.write(edit)
    assert await indexed(platform, "drawer") == []  # before any batch
    assert await queued(platform) == [first]
    hits = await platform.memory.search_history(kin_id, "elsewhere", mode="fulltext")
    assert [hit.message_id for hit in hits] == [first]

    second = await store(platform, kin_id, "A message deleted before its batch.")
    await db.write(lambda: db.sql("delete from message where id = ?", (second,)))
    assert await queued(platform) == []
    assert await platform.fulltext_queue.catch_up() == 0


async def test_the_background_loop_indexes_without_a_search(server: RunningServer) -> None:
    platform = server.platform
    kin_id = await make_kin(server.client)
    message_id = await store(platform, kin_id, "Grandma's birthday dinner is on Sunday.")

    async def in_index() -> list[int]:
        return [] if await queued(platform) else await indexed(platform, "birthday")

    assert await eventually(in_index) == [message_id]

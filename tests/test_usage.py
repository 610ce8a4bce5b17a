"""Usage and costs over real HTTP, against the fake OpenAI and Brave servers: a turn with a
tool call and the memory extraction after it record one row per provider call, with the
tokens the fakes reported, the right Kin, person and origin, and the cost from the price
table; summaries by person, Kin, model and day; members see only their own; the price table
and budgets are the administrator's; a spent budget refuses the next turn (before it is
queued through the API, before it starts for a cron's, a task's or a channel's message)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, MessageRecord, TaskRecord, UsageRecord
from kinbot_core.notifications.types import Notification
from kinbot_core.platform import Platform
from kinbot_core.usage import price_of, recorder
from kinbot_core.usage.prices import Price
from kinbot_core.usage.recorder import NotedUsage, UsageRecorder
from kinbot_plugins.memory.sqlite_memory import backend as memory_backend
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.fakes import FakeBrave, FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, reply_to, session, turn_ended
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream


@pytest.fixture
def fakes() -> Iterator[tuple[FakeOpenAI, FakeBrave]]:
    with FakeOpenAI() as llm, FakeBrave() as search:
        yield llm, search


async def serve(
    data_dir: Path, fakes: tuple[FakeOpenAI, FakeBrave], extraction_delay: float
) -> AsyncIterator[RunningServer]:
    llm, search = fakes
    settings = load_settings(
        data_dir=data_dir, llm_max_retries=0, memory_extraction_delay_seconds=extraction_delay
    )
    async with running_server(Platform(settings)) as running:
        await set_up_admin(running.client)
        await add_openai_provider(running.client, llm)
        added = await running.client.post(
            "/api/search-providers",
            json={
                "type": "brave",
                "name": "Brave",
                "config": {"api_key": API_KEY, "base_url": search.base_url},
            },
        )
        assert added.status_code == 201, added.text
        yield running


@pytest.fixture
async def extracting_server(
    data_dir: Path, fakes: tuple[FakeOpenAI, FakeBrave]
) -> AsyncIterator[RunningServer]:
    """Memory extraction right after each turn."""
    async for running in serve(data_dir, fakes, 0):
        yield running


@pytest.fixture
async def server(
    data_dir: Path, fakes: tuple[FakeOpenAI, FakeBrave]
) -> AsyncIterator[RunningServer]:
    """No memory extraction within a test (it would take the scripted replies)."""
    async for running in serve(data_dir, fakes, 3600):
        yield running


async def usage_rows(server: RunningServer) -> list[dict[str, Any]]:
    """Every usage row, oldest first, once what was noted is written."""
    await server.platform.usage.recorder.flush()

    def load() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = list(UsageRecord.select().order_by(UsageRecord.id).dicts())  # type: ignore[arg-type]
        return rows

    return await server.platform.db.read(load)


def extraction_reply(fact: str) -> Reply:
    memories = [{"content": fact, "category": "fact", "subject": "Marie", "source_message_id": 0}]
    return Reply(text=json.dumps({"memories": memories}), usage=(50, 10))


def test_prices_match_dated_and_prefixed_model_names() -> None:
    prices = {
        name: Price(name, 1.0, 2.0, 0.0) for name in ("gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5")
    }
    assert price_of("gpt-4o-2024-08-06", prices) is prices["gpt-4o"]
    assert price_of("gpt-4o-mini-2024-07-18", prices) is prices["gpt-4o-mini"]
    assert price_of("openai/GPT-4o", prices) is prices["gpt-4o"]
    assert price_of("claude-sonnet-4-5-20250929", prices) is prices["claude-sonnet-4-5"]
    assert price_of("gpt-4", prices) is None
    assert price_of("gpt-4oo", prices) is None


async def test_a_turn_with_a_tool_call_and_its_extraction_record_every_call(
    extracting_server: RunningServer, fakes: tuple[FakeOpenAI, FakeBrave]
) -> None:
    server = extracting_server
    llm, _search = fakes
    client = server.client
    me = (await client.get("/api/me")).json()["user"]
    kin_id = await make_kin(client, model="gpt-4o")
    llm.enqueue(
        Reply(tool_calls=[("web_search", {"query": "peanut-free snacks"})], usage=(100, 20)),
        Reply(text="Rice cakes are fine.", usage=(200, 30)),
        extraction_reply("Marie is allergic to peanuts"),
    )
    async with sse_stream(client) as stream:
        sent = await client.post(
            f"/api/kins/{kin_id}/messages", json={"content": "Marie is allergic to peanuts."}
        )
        assert sent.status_code == 202, sent.text
        message_id = sent.json()["message"]["id"]
        await stream.wait_for(reply_to(message_id))
        await stream.wait_for(
            lambda e: e.type == "memory.extraction" and e.data["kin_id"] == kin_id, 60
        )

    # The history of the session is embedded for search (in the background, between turns).
    await memory_backend.indexer(server.platform).catch_up()

    rows = await usage_rows(server)
    chat = [
        (r["origin"], r["input_tokens"], r["output_tokens"]) for r in rows if r["kind"] == "chat"
    ]
    assert chat == [("user", 100, 20), ("user", 200, 30), ("extraction", 50, 10)]
    for row in rows:
        assert row["kin_id"] == kin_id
        assert row["provider"] in ("OpenAI", "Brave")
        assert row["priced"] is True
        assert row["user_id"] == (me["id"] if row["origin"] == "user" else None)
    turn_chat = [r for r in rows if r["kind"] == "chat"]
    # The turn runs on the Kin's model, its extraction on the provider's cheapest capable one.
    assert [(r["origin"], r["model"]) for r in turn_chat] == [
        ("user", "gpt-4o"),
        ("user", "gpt-4o"),
        ("extraction", "gpt-4o-mini"),
    ]
    assert turn_chat[0]["cost"] == pytest.approx(100 * 2.5 / 1e6 + 20 * 10.0 / 1e6)

    searches = [r for r in rows if r["kind"] == "search"]
    assert [(s["origin"], s["model"], s["units"]) for s in searches] == [("user", "brave", 1)]
    assert searches[0]["cost"] == pytest.approx(0.005)

    # One row per embeddings request the fake answered, with the tokens it reported.
    embedding_requests = [r for r in llm.requests if r.endpoint == "embeddings"]
    embeddings = [r for r in rows if r["kind"] == "embedding"]
    assert len(embeddings) == len(embedding_requests) >= 1
    assert {"extraction", "indexing"} <= {e["origin"] for e in embeddings}
    for row in embeddings:
        assert (row["model"], row["input_tokens"]) == ("text-embedding-3-small", 12)
        assert row["cost"] == pytest.approx(12 * 0.02 / 1e6)

    summary = (await client.get("/api/usage")).json()
    assert summary["currency"] == "USD"
    assert summary["totals"]["calls"] == len(rows)
    assert summary["totals"]["cost"] == pytest.approx(sum(r["cost"] for r in rows), abs=1e-6)
    assert [k["kin_id"] for k in summary["by_kin"]] == [kin_id]
    assert summary["by_kin"][0]["name"] == "Chef"
    by_user = {u["user_id"]: u for u in summary["by_user"]}
    assert by_user[me["id"]]["calls"] == sum(1 for r in rows if r["origin"] == "user")
    assert {m["model"] for m in summary["by_model"]} == {
        "gpt-4o",
        "gpt-4o-mini",
        "brave",
        "text-embedding-3-small",
    }
    assert len(summary["by_day"]) == 1
    # A few embedded tokens cost a fraction of a micro-dollar, not a rounded-off nothing.
    embedding = next(m for m in summary["by_model"] if m["model"] == "text-embedding-3-small")
    assert embedding["cost"] == pytest.approx(len(embeddings) * 12 * 0.02 / 1e6)


def spawned_task(kin_id: str) -> str:
    """A task of ``kin_id``'s as ``TaskService.spawn`` leaves it, its sub-Kin's session
    holding an exchange (database writer); returns the sub-Kin's hidden Kin id."""
    task_id = f"task_{uuid.uuid4().hex}"
    TaskRecord.create(
        id=task_id, parent_kin=kin_id, kin=kin_id, title="Rates", description="Compare rates",
        mode="await", model="gpt-4o", status="completed", depth=1, ended_at=time.time(),
    )  # fmt: skip
    session = uuid.uuid4().hex
    KinRecord.create(id=session, name="Chef", model="gpt-4o", workspace="/tmp", task_id=task_id)
    TaskRecord.update(session_kin=session).where(TaskRecord.id == task_id).execute()
    MessageRecord.create(kin=session, role="user", source="kin", content="Compare the rates",
                         position=1)  # fmt: skip
    MessageRecord.create(kin=session, role="assistant", source="kin", content="Bank B is best",
                         position=2)  # fmt: skip
    return session


async def test_a_sub_kins_history_indexing_counts_against_the_kin_it_belongs_to(
    server: RunningServer,
) -> None:
    client = server.client
    kin_id = await make_kin(client, model="gpt-4o")
    budget = await client.put(
        "/api/usage/budgets", json={"scope": "kin", "target_id": kin_id, "monthly_limit": 5}
    )
    assert budget.status_code == 200, budget.text
    # Dear embeddings: what they cost shows in a budget's figures (rounded to 6 decimals).
    priced = await client.put(
        "/api/usage/prices/text-embedding-3-small", json={"input_per_million": 1000}
    )
    assert priced.status_code == 200, priced.text
    for _ in range(2):
        await server.platform.db.write(spawned_task, kin_id)

    # Their sessions' history is embedded for search (memory extraction and compacting
    # leave sub-Kins alone).
    await memory_backend.indexer(server.platform).catch_up()

    rows = await usage_rows(server)
    assert {(row["origin"], row["kin_id"]) for row in rows} == {("indexing", kin_id)}
    summary = (await client.get("/api/usage")).json()
    assert [(k["kin_id"], k["name"], k["calls"]) for k in summary["by_kin"]] == [
        (kin_id, "Chef", len(rows))
    ]
    spent = (await client.get("/api/usage/budgets")).json()["budgets"][0]["spent"]
    assert spent == pytest.approx(sum(row["cost"] for row in rows), abs=1e-6) and spent > 0


async def test_a_persons_search_and_drawn_avatar_count_against_the_kin_and_them(
    server: RunningServer,
) -> None:
    """Not against nobody: the usage pages listed such calls under a Kin "Deleted"."""
    client = server.client
    kin_id = await make_kin(client, model="gpt-4o")
    me = (await client.get("/api/me")).json()["user"]["id"]
    searched = await client.get(f"/api/kins/{kin_id}/history/search", params={"q": "leeks"})
    assert searched.status_code == 200, searched.text
    drawn = await client.post(f"/api/kins/{kin_id}/avatar/generate", json={"mode": "auto"})
    assert drawn.status_code == 200, drawn.text

    rows = await usage_rows(server)
    assert {(row["kind"], row["kin_id"], row["user_id"], row["origin"]) for row in rows} == {
        ("embedding", kin_id, me, "user"),
        ("image", kin_id, me, "user"),
    }


async def test_unknown_models_count_tokens_at_no_cost(
    server: RunningServer, fakes: tuple[FakeOpenAI, FakeBrave]
) -> None:
    llm, _ = fakes
    kin_id = await make_kin(server.client, model="gpt-3.5-turbo")

    async def last_chat_after_a_turn() -> dict[str, Any]:
        llm.enqueue(Reply(text="Hi.", usage=(7, 3)))
        async with sse_stream(server.client) as stream:
            sent = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
            await stream.wait_for(reply_to(sent.json()["message"]["id"]))
        return [r for r in await usage_rows(server) if r["kind"] == "chat"][-1]

    async def price(input_per_million: int) -> None:
        priced = await server.client.put(
            "/api/usage/prices/gpt-3.5-turbo",
            json={"input_per_million": input_per_million, "output_per_million": 2000},
        )
        assert priced.status_code == 200, priced.text

    first = await last_chat_after_a_turn()
    assert (first["model"], first["input_tokens"], first["cost"], first["priced"]) == (
        "gpt-3.5-turbo", 7, 0.0, False
    )  # fmt: skip
    summary = (await server.client.get("/api/usage")).json()
    model = next(m for m in summary["by_model"] if m["model"] == "gpt-3.5-turbo")
    assert (model["priced"], model["unpriced_calls"]) == (False, 1)

    # The administrator prices it: later calls are costed.
    await price(1000)
    last = await last_chat_after_a_turn()
    assert last["priced"] is True
    assert last["cost"] == pytest.approx(7 * 1000 / 1e6 + 3 * 2000 / 1e6)

    # A changed price costs the calls after it (the table read last is not kept stale).
    await price(3000)
    last = await last_chat_after_a_turn()
    assert last["cost"] == pytest.approx(7 * 3000 / 1e6 + 3 * 2000 / 1e6)


async def test_members_see_only_their_own_usage(
    server: RunningServer, fakes: tuple[FakeOpenAI, FakeBrave]
) -> None:
    llm, _ = fakes
    kin_id = await make_kin(server.client)
    async with server.new_client() as marie_client:
        marie = await register(server.client, marie_client, MARIE)
        for client in (server.client, marie_client):
            llm.enqueue(Reply(text="Hi.", usage=(10, 5)))
            async with sse_stream(client) as stream:
                sent = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
                await stream.wait_for(turn_ended(sent.json()["message"]["id"]))
        for path in ("/api/usage", "/api/usage/prices", "/api/usage/budgets"):
            assert (await marie_client.get(path)).status_code == 403, path
        mine = (await marie_client.get("/api/me/usage", params={"user_id": "someone"})).json()
        assert [u["user_id"] for u in mine["by_user"]] == [marie["id"]]
        assert mine["totals"]["input_tokens"] == 10
        assert mine["budget"] is None
    everyone = (await server.client.get("/api/usage")).json()
    chat = next(m for m in everyone["by_model"] if m["model"] == "gpt-4o")
    assert chat["input_tokens"] == 20
    assert {u["user_id"] for u in everyone["by_user"]} >= {marie["id"]}


async def test_bad_periods_prices_and_budgets_get_clear_errors(server: RunningServer) -> None:
    client = server.client
    cases = [
        ("get", "/api/usage?from=2026-02-01&to=2026-01-01", None, "usage_period_invalid"),
        ("get", "/api/usage?from=2020-01-01&to=2026-01-01", None, "usage_period_invalid"),
        ("get", "/api/usage?from=yesterday", None, "invalid_request"),
        ("put", "/api/usage/prices/Bad%20Name", {"input_per_million": 1}, "price_model_invalid"),
        ("put", "/api/usage/prices/gpt-4o", {"input_per_million": -1}, "invalid_request"),
        ("put", "/api/usage/budgets", {"scope": "kin", "target_id": "nope", "monthly_limit": 5},
         "budget_target_unknown"),
        ("put", "/api/usage/budgets", {"scope": "kin", "target_id": "x", "monthly_limit": 0},
         "invalid_request"),
        ("delete", "/api/usage/budgets/nope", None, "not_found"),
    ]  # fmt: skip
    for method, path, body, code in cases:
        response = await client.request(method, path, json=body)
        assert 400 <= response.status_code < 500, (path, response.text)
        assert response.json()["error"]["code"] == code, (path, response.text)


async def test_a_spent_kin_budget_refuses_the_next_turn(
    server: RunningServer, fakes: tuple[FakeOpenAI, FakeBrave]
) -> None:
    llm, _ = fakes
    client = server.client
    kin_id = await make_kin(client, model="gpt-4o")
    budget = await client.put(
        "/api/usage/budgets",
        json={"scope": "kin", "target_id": kin_id, "monthly_limit": 0.001, "warn_percent": 50},
    )
    assert budget.status_code == 200, budget.text
    assert budget.json()["budget"]["spent"] == 0
    # 1000 output tokens of gpt-4o cost 0.01: the turn ends normally (never mid-reply).
    llm.enqueue(Reply(text="A long answer.", usage=(10, 1000)))
    async with sse_stream(client) as stream:
        sent = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
        await stream.wait_for(reply_to(sent.json()["message"]["id"]))
        warning = await stream.wait_for(lambda e: e.type == "usage.budget_warning")
    assert warning.data["kin_id"] == kin_id
    assert warning.data["budget"]["reached"] is True

    refused = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "More?"})
    assert refused.status_code == 403, refused.text
    error = refused.json()["error"]
    assert error["code"] == "budget_reached"
    assert error["details"]["scope"] == "kin"
    assert error["details"]["name"] == "Chef"
    assert error["details"]["limit"] == 0.001
    assert error["details"]["currency"] == "USD"
    chat_calls = len(llm.requests_to("chat"))

    # A message that reaches the queue another way (a webhook, a channel, a cron) is refused
    # when its turn would start: the refusal is in the chat, no model is called.
    async with sse_stream(client) as stream:
        queued = await server.platform.kins.enqueue(
            kin_id, "From the door bell", source="webhook", sender_id=None, sender_name="Door"
        )
        await stream.wait_for(turn_ended(queued.id))
    refusal = (await session(client, kin_id))[-1]
    assert refusal["is_error"] is True
    assert refusal["meta"]["error_code"] == "budget_reached"
    assert refusal["meta"]["params"]["scope"] == "kin"
    assert len(llm.requests_to("chat")) == chat_calls

    # Raising the budget lets the Kin answer again.
    raised = await client.put(
        "/api/usage/budgets", json={"scope": "kin", "target_id": kin_id, "monthly_limit": 5}
    )
    assert raised.json()["budget"]["reached"] is False
    llm.enqueue(Reply(text="Back."))
    async with sse_stream(client) as stream:
        sent = await client.post(f"/api/kins/{kin_id}/messages", json={"content": "Again"})
        assert sent.status_code == 202, sent.text
        await stream.wait_for(reply_to(sent.json()["message"]["id"]))


async def test_a_personal_budget_warns_once_in_the_persons_language_then_refuses_only_them(
    server: RunningServer, fakes: tuple[FakeOpenAI, FakeBrave]
) -> None:
    llm, _ = fakes
    kin_id = await make_kin(server.client, model="gpt-4o")
    delivered: list[tuple[str, Notification]] = []

    async def capture(user_id: str, notification: Notification) -> None:
        delivered.append((user_id, notification))

    server.platform.notifications.add_route("test:capture", capture, label="Captured")
    async with server.new_client() as marie_client:
        marie = await register(server.client, marie_client, {**MARIE, "language": "fr"})
        chosen = await marie_client.patch("/api/me/notifications", json={"route": "test:capture"})
        assert chosen.status_code == 200, chosen.text
        await server.client.put(
            "/api/usage/budgets",
            json={"scope": "user", "target_id": marie["id"], "monthly_limit": 0.015,
                  "warn_percent": 50},
        )  # fmt: skip
        async with sse_stream(marie_client) as stream:
            for _ in range(2):  # 0.010025 each: past the threshold, then past the limit
                llm.enqueue(Reply(text="Sure.", usage=(10, 1000)))
                sent = await marie_client.post(
                    f"/api/kins/{kin_id}/messages", json={"content": "Hi"}
                )
                assert sent.status_code == 202, sent.text
                await stream.wait_for(reply_to(sent.json()["message"]["id"]))
            await server.platform.usage.recorder.flush()
            warnings = stream.of_type("usage.budget_warning")
        assert len(warnings) == 1
        assert len(delivered) == 1
        user_id, notification = delivered[0]
        assert user_id == marie["id"]
        assert notification.title == "Budget presque épuisé"
        assert notification.body.startswith("Marie a utilisé 66 % de son budget mensuel")

        refused = await marie_client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
        assert refused.status_code == 403
        details = refused.json()["error"]["details"]
        assert (details["scope"], details["name"]) == ("user", MARIE["pseudonym"])
        mine = (await marie_client.get("/api/me/usage")).json()
        assert mine["budget"]["reached"] is True
    allowed = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "Hi"})
    assert allowed.status_code == 202, allowed.text


async def test_calls_of_one_moment_are_written_together_and_a_flush_writes_at_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database(data_dir / "kinbot.db")
    await db.open()
    batches: list[int] = []
    written = asyncio.Event()

    async def on_written(batch: list[NotedUsage]) -> None:
        batches.append(len(batch))
        written.set()

    def stored() -> int:
        count: int = db.read_now("select count(*) from usage_record")[0][0]
        return count

    try:
        usage = UsageRecorder(db, on_written)
        monkeypatch.setattr(recorder, "WRITE_DELAY_SECONDS", 3600.0)
        usage.chat("openai", "gpt-4o", 100, 10)
        usage.chat("openai", "gpt-4o", 200, 20)
        for _ in range(3):  # a write started now would be under way after these
            await asyncio.sleep(0)
        await db.write(lambda: None)  # ... and done after this one
        assert stored() == 0 and batches == []  # noted, not written yet
        await usage.flush()
        assert stored() == 2 and batches == [2]
        written.clear()
        monkeypatch.setattr(recorder, "WRITE_DELAY_SECONDS", 0.01)
        for tokens in (300, 400, 500):
            usage.chat("openai", "gpt-4o", tokens, 30)
        await asyncio.wait_for(written.wait(), 30)  # written by itself, a moment later
        assert stored() == 5 and batches == [2, 3]
    finally:
        await db.close()

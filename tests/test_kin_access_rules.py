"""Restricted Kins among Kins: what one Kin learns of another (``list_kins``, ``spawn_kin``)
keeps to who may read its conversation, and a restriction survives a restart."""

from __future__ import annotations

import json
from pathlib import Path

from kinbot_core.kins.access import kin_ids_in
from tests import test_notifications as notifications
from tests.support import server_fixtures
from tests.support.accounts import MARIE, PASSWORD, person, register
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import (
    make_kin,
    reply_to,
    serve_with_openai,
    session,
    tell,
    tool_results,
)
from tests.support.sse import sse_stream

fake_llm = server_fixtures.fake_llm
PAUL = person("Paul")


async def test_a_shared_kin_neither_lists_nor_becomes_a_restricted_one(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        admin = server.client
        admin_id = (await admin.get("/api/me")).json()["user"]["id"]
        hall = await make_kin(admin, "Hall")
        vault = await make_kin(admin, "Vault")
        restricted = await admin.put(
            f"/api/kins/{vault}/access", json={"access": "members", "members": [admin_id]}
        )
        assert restricted.status_code == 200, restricted.text
        fake_llm.enqueue(
            Reply(tool_calls=[("list_kins", {})]),
            Reply(tool_calls=[("spawn_kin", {"kin_id": vault, "task_description": "Audit"})]),
            Reply(text="Done."),
            Reply(tool_calls=[("list_kins", {})]),
            Reply(text="Done too."),
        )
        async with sse_stream(admin) as events:
            await events.wait_for(reply_to(await tell(admin, hall, "Who is there?")))
            await events.wait_for(reply_to(await tell(admin, vault, "Who is there?")))
        in_hall = await session(admin, hall)
        (listed,) = tool_results(in_hall, "list_kins")
        assert [k["name"] for k in json.loads(listed["content"])] == ["Hall"]
        (spawned,) = tool_results(in_hall, "spawn_kin")
        assert spawned["is_error"] and "not used by the same people" in spawned["content"]
        assert (await admin.get("/api/tasks")).json()["tasks"] == []
        (from_vault,) = tool_results(await session(admin, vault), "list_kins")
        assert [k["name"] for k in json.loads(from_vault["content"])] == ["Hall", "Vault"]


async def test_a_restriction_survives_a_restart(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    async with serve_with_openai(data_dir, fake_llm) as server:
        async with server.new_client() as marie, server.new_client() as paul:
            marie_id = (await register(server.client, marie, MARIE))["id"]
            await register(server.client, paul, PAUL)
        vault = await make_kin(server.client, "Vault")
        await server.client.put(
            f"/api/kins/{vault}/access", json={"access": "private", "members": [marie_id]}
        )
    async with serve_with_openai(data_dir, fake_llm, first_start=False) as server:
        paul, marie = server.new_client(), server.new_client()
        async with paul, marie:
            for client, who in ((paul, PAUL), (marie, MARIE)):
                signed = await client.post(
                    "/api/auth/login", json={"email": who["email"], "password": PASSWORD}
                )
                assert signed.status_code == 200, signed.text
            assert (await paul.get(f"/api/kins/{vault}")).status_code == 404
            assert (await server.client.get(f"/api/kins/{vault}")).status_code == 404
            assert (await marie.get(f"/api/kins/{vault}")).json()["kin"]["access"] == "private"
            names = [k["name"] for k in (await paul.get("/api/kins")).json()["kins"]]
            assert "Vault" not in names


async def test_a_restricted_kin_notifies_only_its_own_people(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async with notifications.family(data_dir, fake_llm) as (server, push, marie):
        marie_phone = push.subscriber()
        await notifications.subscribe(marie, marie_phone)
        me = (await server.client.get("/api/me")).json()["user"]
        vault = await make_kin(server.client, "Vault")
        await server.client.put(
            f"/api/kins/{vault}/access", json={"access": "members", "members": [me["id"]]}
        )
        note = {"title": "Safe", "body": "Opened.", "user": MARIE["pseudonym"]}
        async with sse_stream(server.client) as watcher:
            (result,) = await notifications.turn(
                server, fake_llm, watcher, vault, notifications.notify_call(**note)
            )
        assert result["status"] == "no_recipient", result
        assert push.received == []


def test_every_kin_an_event_names_is_found_however_deep() -> None:
    event = {
        "kin_id": "k1",
        "message": {"id": 7, "kin_id": "k2", "meta": {"origin": {"kind": "webhook"}}},
        "kin": {"id": "k3", "name": "Chef"},
        "tasks": [{"parent_kin_id": "k4", "steps": ({"kin_id": "k5"},)}, 12, None, True],
        "from_kin_id": 42,  # not an id
        "deep": {"a": {"b": {"c": {"d": {"kin_id": "too deep"}}}}},
    }
    assert kin_ids_in(event) == {"k1", "k2", "k3", "k4", "k5"}
    assert kin_ids_in([{"kin_id": "k6"}, "k7"]) == {"k6"}
    assert kin_ids_in("k8") == set()

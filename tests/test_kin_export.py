"""A Kin exported from one instance and imported into another (two real servers, each with its
own data directory and SQLite file): its memories are found there by meaning and by words, its
contacts, crons (paused), custom tools (with their scripts) and avatar arrive; the file holds
no secret and no file of the server; hostile or wrong files are refused with a clear 4xx."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from kinbot_core.config import load_settings
from kinbot_core.db.models import UsageRecord
from kinbot_core.platform import Platform
from kinbot_plugins.custom_tools import runtime_of
from tests.support.accounts import register, set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import API_KEY, add_local_memory_providers, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

MEMORIES = [
    ("The plumber comes on Tuesday morning to fix the kitchen sink", "fact", "house"),
    ("Grandma's birthday cake needs dark chocolate and raspberries", "preference", "Grandma"),
    ("We booked the Rome flights for the 12th of August", "decision", ""),
]
#: A paraphrase of the plumber memory sharing no word with it.
PARAPHRASE = "who repairs that leaking tap?"
SCRIPT = b'#!/bin/sh\necho "hello $1"\n'
VAULT_VALUE = "vault-value-never-exported-42"


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def started(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with running_server(Platform(load_settings(data_dir=data_dir))) as server:
        await set_up_admin(server.client)
        await add_local_memory_providers(server.client, fake_llm)
        yield server


@pytest.fixture
async def source(tmp_path: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async for server in started(tmp_path / "source", fake_llm):
        yield server


@pytest.fixture
async def target(tmp_path: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async for server in started(tmp_path / "target", fake_llm):
        yield server


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 40, 90)).save(out, format="PNG")
    return out.getvalue()


async def furnished_kin(server: RunningServer) -> str:
    """A Kin with memories, a contact, a cron, two custom tools (one a link to the server's
    key file), an avatar, and a secret in the vault."""
    client, platform = server.client, server.platform
    created = await client.post(
        "/api/kins",
        json={"name": "Majordome", "role": "House keeper", "character": "Calm and precise.",
              "expertise": "Repairs and family calendar.", "model": "Chat/gpt-4o"},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    kin_id: str = created.json()["kin"]["id"]
    background = {"memory_extraction_model": "Chat/gpt-4o", "compacting_model": "Chat/gpt-4o"}
    chosen = await client.patch(f"/api/kins/{kin_id}", json=background)
    assert chosen.status_code == 200, chosen.text
    for content, category, subject in MEMORIES:
        await platform.memory.memorize(kin_id, content, category, subject)
    contact = await platform.contacts.create(kin_id, "Marie", "human", relation="daughter")
    await platform.contacts.update(kin_id, contact.id, add_facts=["Loves climbing"])
    cron = await client.post(
        "/api/crons",
        json={"kin_id": kin_id, "name": "Morning brief", "schedule": "30 7 * * *",
              "task_description": "Summarise the day's appointments."},
    )  # fmt: skip
    assert cron.status_code == 201 and cron.json()["cron"]["active"], cron.text
    workspace = Path((await platform.kins.get(kin_id)).workspace)
    (workspace / "tools").mkdir()
    (workspace / "tools" / "greet.sh").write_bytes(SCRIPT)
    (workspace / "leak.sh").symlink_to(platform.settings.data_dir / "secret.key")
    store = runtime_of(platform).store
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    await store.add(kin_id, "greet", "Greets someone by name.", schema, "tools/greet.sh")
    await store.add(kin_id, "leak", "Reads a file of the server.", schema, "leak.sh")
    avatar = await client.put(f"/api/kins/{kin_id}/avatar", files={"avatar": ("a.png", png())})
    assert avatar.status_code == 200, avatar.text
    secret = await client.post("/api/vault", json={"key": "BANK", "value": VAULT_VALUE})
    assert secret.status_code == 201, secret.text
    return kin_id


async def import_file(client: httpx.AsyncClient, data: bytes, **form: str) -> httpx.Response:
    return await client.post(
        "/api/kins/import", files={"file": ("kin.zip", data, "application/zip")}, data=form
    )


async def test_a_kin_moves_to_another_instance_with_searchable_memories(
    source: RunningServer, target: RunningServer
) -> None:
    kin_id = await furnished_kin(source)
    private = await source.client.put(f"/api/kins/{kin_id}/access", json={"access": "private"})
    assert private.status_code == 200, private.text
    exported = await source.client.get(f"/api/kins/{kin_id}/export")
    assert exported.status_code == 200, exported.text
    assert exported.headers["content-type"] == "application/zip"
    assert 'filename="majordome.kinbot.zip"' in exported.headers["content-disposition"]
    data = exported.content
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        names = set(zipped.namelist())
        everything = b"".join(zipped.read(name) for name in names)
        manifest = json.loads(zipped.read("manifest.json"))
    assert names == {"manifest.json", "kin.json", "memories.json", "contacts.json",
                     "crons.json", "custom_tools.json", "avatar.webp", "scripts/0"}  # fmt: skip
    assert manifest["counts"]["custom_tools_without_script"] == 1  # the link to the key file
    key_file = (source.platform.settings.data_dir / "secret.key").read_bytes().strip()
    for secret in (VAULT_VALUE.encode(), API_KEY.encode(), key_file, kin_id.encode()):
        assert secret not in everything

    async with target.new_client() as marie:
        marie_id = (await register(target.client, marie))["id"]
        async with sse_stream(marie) as feed:
            imported = await import_file(target.client, data)
            assert imported.status_code == 201, imported.text
            marker = await target.client.post(
                "/api/kins", json={"name": "Marker", "model": "Chat/gpt-4o"}
            )
            assert marker.status_code == 201, marker.text
            await feed.wait_for(
                lambda e: e.type == "kin.created" and e.data["kin"]["name"] == "Marker"
            )
        # Private here: someone else never saw who it is, not even as it was created.
        seen = json.dumps([event.data for event in feed.events])
        assert "Majordome" not in seen and "Calm and precise" not in seen
        assert (
            await marie.get(f"/api/kins/{imported.json()['kin']['id']}/export")
        ).status_code == 404
        # Her own import of it is not numbered: a Kin hidden from her takes no name.
        hers = await import_file(marie, data)
        assert hers.status_code == 201, hers.text
        assert hers.json()["kin"]["name"] == "Majordome"
    body = imported.json()
    new = body["kin"]
    assert body["counts"] == {"memories": 3, "contacts": 1, "crons": 1, "custom_tools": 1,
                              "avatar": 1}  # fmt: skip
    assert (new["name"], new["role"], new["character"], new["expertise"], new["model"]) == (
        "Majordome", "House keeper", "Calm and precise.", "Repairs and family calendar.",
        "Chat/gpt-4o",
    )  # fmt: skip
    assert new["network_access"] is False
    assert (new["memory_extraction_model"], new["compacting_model"]) == ("Chat/gpt-4o",) * 2
    # Private where it came from: private to the person who imported it here.
    me = (await target.client.get("/api/me")).json()["user"]["id"]
    access = (await target.client.get(f"/api/kins/{new['id']}/access")).json()
    assert access == {"access": "private", "members": [me]}
    client, platform, new_id = target.client, target.platform, new["id"]

    # Memories: found by meaning (no shared word) and by words, through the API and each signal.
    plumber = MEMORIES[0][0]
    dense = await platform.memory.recall(new_id, PARAPHRASE, limit=1, mode="dense")
    assert [memory.content for memory in dense] == [plumber]
    words = await platform.memory.recall(new_id, "raspberries", limit=1, mode="fulltext")
    assert [memory.content for memory in words] == [MEMORIES[1][0]]
    found = await client.get(f"/api/kins/{new_id}/memories", params={"q": PARAPHRASE})
    assert found.json()["memories"][0]["content"] == plumber
    listed = (await client.get(f"/api/kins/{new_id}/memories")).json()["memories"]
    assert {(m["content"], m["category"], m["subject"]) for m in listed} == set(MEMORIES)
    before = (await source.client.get(f"/api/kins/{kin_id}/memories")).json()["memories"]
    dates = {m["content"]: (m["created_at"], m["updated_at"]) for m in before}
    assert {m["content"]: (m["created_at"], m["updated_at"]) for m in listed} == dates
    progress = await client.get(f"/api/kins/{new_id}/memories/embedding")
    assert progress.json()["memories_pending"] == 0
    # Embedding them again counted against the new Kin and the person who imported it.
    await platform.usage.recorder.flush()
    embeddings = await platform.db.read(
        lambda: list(UsageRecord.select().where(UsageRecord.kind == "embedding"))
    )
    of_kins = {(row.kin_id, row.user_id, row.origin) for row in embeddings}
    assert (new_id, me, "user") in of_kins  # (the unattributed ones are this test's recalls)
    assert (hers.json()["kin"]["id"], marie_id, "user") in of_kins

    (contact,) = await platform.contacts.search(new_id, "Marie")
    assert (contact.relation, contact.facts, contact.linked_id) == (
        "daughter", ("Loves climbing",), None
    )  # fmt: skip
    crons = (await client.get("/api/crons", params={"kin_id": new_id})).json()["crons"]
    assert [(c["name"], c["schedule"], c["active"]) for c in crons] == [
        ("Morning brief", "30 7 * * *", False)  # imported crons start paused
    ]
    tools = await client.get(f"/api/kins/{new_id}/custom-tools")
    assert [(t["name"], t["path"]) for t in tools.json()["tools"]] == [("greet", "tools/greet.sh")]
    workspace = Path((await platform.kins.get(new_id)).workspace)
    assert (workspace / "tools" / "greet.sh").read_bytes() == SCRIPT
    avatar = await client.get(f"/api/kins/{new_id}/avatar")
    assert avatar.status_code == 200 and avatar.headers["content-type"] == "image/webp"

    # The same file again: a second Kin, its name numbered.
    again = await import_file(client, data)
    assert again.status_code == 201, again.text
    assert again.json()["kin"]["name"] == "Majordome (2)"


@pytest.fixture
async def small(tmp_path: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    """A server taking uploads of at most 1 MiB, with only a chat provider."""
    settings = load_settings(data_dir=tmp_path / "small", upload_max_bytes=1024 * 1024)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


MANIFEST = {"format": "kinbot-kin", "version": 1, "exported_at": 1.0}
KIN = {"name": "Tutor", "model": "OpenAI/gpt-4o"}


def kin_file(entries: dict[str, Any], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of ``entries`` (JSON-encoded unless bytes), manifest and Kin first by default."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as zipped:
        for name, value in entries.items():
            zipped.writestr(name, value if isinstance(value, bytes) else json.dumps(value))
    return out.getvalue()


def valid(**more: Any) -> bytes:
    return kin_file({"manifest.json": MANIFEST, "kin.json": KIN, **more})


def lying_header() -> bytes:
    """A Kin entry whose header claims 50 bytes while it inflates to 20 MB."""
    data = bytearray(kin_file({"manifest.json": MANIFEST, "kin.json": b"[" * 20_000_000}))
    real = (20_000_000).to_bytes(4, "little")
    offset = data.find(real)
    while offset != -1:  # both the local header and the central directory
        data[offset : offset + 4] = (50).to_bytes(4, "little")
        offset = data.find(real, offset + 4)
    return bytes(data)


TOOL = {"name": "greet", "description": "Greets.", "parameters": {"type": "object"},
        "path": "greet.sh", "script": 0}  # fmt: skip
HOSTILE = {
    "not a zip": (b"this is not a zip file", 400, "kin_archive_invalid"),
    "an empty body": (b"", 400, "kin_archive_invalid"),
    "no manifest": (kin_file({"kin.json": KIN}), 400, "kin_archive_invalid"),
    "another format": (
        kin_file({"manifest.json": {**MANIFEST, "format": "other"}, "kin.json": KIN}),
        400,
        "kin_archive_invalid",
    ),
    "a newer version": (
        kin_file({"manifest.json": {**MANIFEST, "version": 99}, "kin.json": KIN}),
        400,
        "kin_archive_too_new",
    ),
    "an entry outside": (valid(**{"../evil.sh": b"x"}), 400, "kin_archive_invalid"),
    "an unknown entry": (valid(**{"notes.txt": b"x"}), 400, "kin_archive_invalid"),
    "too many entries": (
        valid(**{f"scripts/{n}": b"x" for n in range(150)}),
        400,
        "kin_archive_invalid",
    ),
    "a zip bomb": (valid(**{"crons.json": b" " * 30_000_000}), 400, "kin_archive_invalid"),
    "a lying header": (lying_header(), 400, "kin_archive_invalid"),
    "broken JSON": (valid(**{"contacts.json": b"[{"}), 400, "kin_archive_content_invalid"),
    "deeply nested JSON": (
        valid(**{"contacts.json": b"[" * 200_000 + b"]" * 200_000}),
        400,
        "kin_archive_content_invalid",
    ),
    "millions of tiny values": (
        valid(**{"contacts.json": b"[" + b"[]," * 1_200_000 + b"[]]"}),
        400,
        "kin_archive_content_invalid",
    ),
    "no Kin": (kin_file({"manifest.json": MANIFEST}), 400, "kin_archive_content_invalid"),
    "a Kin without name": (
        valid(**{"kin.json": {"model": "OpenAI/gpt-4o"}}),
        400,
        "kin_archive_content_invalid",
    ),
    "an unknown memory category": (
        valid(**{"memories.json": [{"content": "x", "category": "password"}]}),
        400,
        "kin_archive_content_invalid",
    ),
    "too many memories": (
        valid(**{"memories.json": [{"content": "x", "category": "fact"}] * 20_001}),
        400,
        "kin_archive_too_many",
    ),
    "a script path leaving the workspace": (
        valid(
            **{"custom_tools.json": [{**TOOL, "path": "../../../etc/cron.d/x"}], "scripts/0": b"x"}
        ),
        400,
        "kin_archive_content_invalid",
    ),
    "an absolute script path": (
        valid(**{"custom_tools.json": [{**TOOL, "path": "/tmp/x.sh"}], "scripts/0": b"x"}),
        400,
        "kin_archive_content_invalid",
    ),
    "a script path under another script": (
        valid(
            **{
                "custom_tools.json": [
                    TOOL,
                    {**TOOL, "name": "other", "path": "greet.sh/x.sh", "script": 1},
                ],
                "scripts/0": b"x",
                "scripts/1": b"y",
            }
        ),
        400,
        "kin_archive_content_invalid",
    ),
    "a tool without its script": (
        valid(**{"custom_tools.json": [TOOL]}),
        400,
        "kin_archive_content_invalid",
    ),
    "a bad cron schedule": (
        valid(**{"crons.json": [{"name": "x", "schedule": "every day", "task_description": "y"}]}),
        400,
        "kin_archive_content_invalid",
    ),
    "a blank cron name": (
        valid(**{"crons.json": [{"name": "  ", "schedule": "0 8 * * *", "task_description": "y"}]}),
        400,
        "kin_archive_content_invalid",
    ),
    "a blank memory": (
        valid(**{"memories.json": [{"content": "   ", "category": "fact"}]}),
        400,
        "kin_archive_content_invalid",
    ),
    "an avatar that is no image": (
        valid(**{"avatar.webp": b"<svg/>"}),
        400,
        "kin_archive_content_invalid",
    ),
    "a model not offered": (
        valid(**{"kin.json": {**KIN, "model": "Elsewhere/gpt-9"}}),
        400,
        "kin_import_model_unavailable",
    ),
    "a file over the upload limit": (
        b"PK" + b"\0" * (2 * 1024 * 1024),
        413,
        "kin_archive_too_large",
    ),
}


async def test_hostile_or_wrong_files_are_refused_and_create_nothing(small: RunningServer) -> None:
    client = small.client
    for case, (data, status, code) in HOSTILE.items():
        answer = await import_file(client, data)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), case
    assert (await client.get("/api/kins")).json()["kins"] == []
    workspaces = small.platform.settings.data_dir / "workspaces"
    assert not workspaces.exists() or not any(workspaces.iterdir())

    no_file = await client.post("/api/kins/import", data={"model": "x"})
    assert (no_file.status_code, no_file.json()["error"]["code"]) == (400, "invalid_request")
    async with small.new_client() as stranger:
        refused = await import_file(stranger, valid())
        assert refused.status_code == 401
        assert (await stranger.get("/api/kins/x/export")).status_code == 401
    assert (await client.get("/api/kins/nope/export")).status_code == 404

    # A model not offered here, replaced by one that is; a tool with its script is fine.
    chosen = await import_file(
        client,
        valid(**{"kin.json": {**KIN, "model": "Elsewhere/gpt-9"},
                 "custom_tools.json": [TOOL], "scripts/0": SCRIPT,
                 "memories.json": [{"content": "Marie is allergic to peanuts",
                                    "category": "fact"}]}),
        model="OpenAI/gpt-4o",
    )  # fmt: skip
    assert chosen.status_code == 201, chosen.text
    assert chosen.json()["kin"]["model"] == "OpenAI/gpt-4o"
    # Its memory arrived, found by its words.
    found = await small.platform.memory.recall(
        chosen.json()["kin"]["id"], "peanuts", mode="fulltext"
    )
    assert [memory.content for memory in found] == ["Marie is allergic to peanuts"]
    assert chosen.json()["kin"]["access"] == "everyone"  # shared where it came from

    # Someone who may not use a Kin cannot export it: for them it does not exist.
    kin_id = chosen.json()["kin"]["id"]
    async with small.new_client() as marie:
        await register(client, marie)
        assert (await marie.get(f"/api/kins/{kin_id}/export")).status_code == 200
        private = await client.put(f"/api/kins/{kin_id}/access", json={"access": "private"})
        assert private.status_code == 200, private.text
        hidden = await marie.get(f"/api/kins/{kin_id}/export")
        assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "not_found")


async def embedded(server: RunningServer, kin_id: str, what: str) -> None:
    """Wait until the background indexer (it looks every 2 s) has embedded the Kin's ``what``."""
    for _ in range(600):
        progress = await server.client.get(f"/api/kins/{kin_id}/memories/embedding")
        if progress.json()[what] == 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the Kin's {what} were never embedded")


async def test_memories_an_import_could_not_embed_are_found_by_words_then_embedded_later(
    small: RunningServer, fake_llm: FakeOpenAI
) -> None:
    # The background indexer is at work with the embedding model already (a message embedded).
    first = await small.client.post("/api/kins", json={"name": "First", "model": "OpenAI/gpt-4o"})
    first_id = first.json()["kin"]["id"]
    await small.platform.kins.add_message(first_id, role="user", source="user", content="Hello")
    await embedded(small, first_id, "messages_pending")
    fake_llm.enqueue(Reply(status=400), endpoint="embeddings")  # the provider refuses, once
    boiler = "The boiler is serviced every October"
    imported = await import_file(
        small.client, valid(**{"memories.json": [{"content": boiler, "category": "fact"}]})
    )
    assert imported.status_code == 201, imported.text
    assert fake_llm.pending("embeddings") == 0  # the import met the refusal
    kin_id = imported.json()["kin"]["id"]
    memory = small.platform.memory
    assert [m.content for m in await memory.recall(kin_id, "boiler", mode="fulltext")] == [boiler]
    await embedded(small, kin_id, "memories_pending")  # later, in the background
    assert [m.content for m in await memory.recall(kin_id, boiler, mode="dense")] == [boiler]

"""``save_attachment``: a file a member attached in a Kin's chat, copied into that Kin's
workspace (by the name the model sees, or by id), and never a file of another Kin's chat."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.tools.attachment_copy import SAVE_ATTACHMENT
from tests.support import server_fixtures
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_mcp import tool_results
from tests.test_uploads import make_kin, png, send_with, uploaded

PRICES = b"item,price\nrice,2.10\nsaffron,9.90\n"


# The server and fake OpenAI fixtures, under the names pytest looks for.
fake_llm, server = server_fixtures.fake_llm, server_fixtures.server


async def workspace(server: RunningServer, kin_id: str) -> Path:
    return Path((await server.platform.kins.get(kin_id)).workspace)


async def save(server: RunningServer, kin_id: str, **arguments: Any) -> Any:
    context = ToolContext(server.platform, kin_id, "Chef")
    return await SAVE_ATTACHMENT.run(context, arguments)


async def test_a_kin_copies_a_file_attached_in_its_chat(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    upload_id = await uploaded(server.client, kin_id, "prices.csv", PRICES)
    fake_llm.enqueue(
        Reply(tool_calls=[("save_attachment", {"file": "prices.csv"})]), Reply(text="Saved.")
    )
    sent = await send_with(server, kin_id, "Sum these", [upload_id])
    messages = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    [result] = tool_results([m for m in messages if m.get("turn_of") == sent["id"]])
    assert not result["is_error"], result["content"]
    assert json.loads(result["content"]) == {
        "path": "attachments/prices.csv",
        "size": len(PRICES),
        "mime_type": "text/csv",
    }
    root = await workspace(server, kin_id)
    assert (root / "attachments" / "prices.csv").read_bytes() == PRICES
    # By id, to a path of its choosing; an image too.
    image = png()
    image_id = await uploaded(server.client, kin_id, "plate.png", image)
    saved = await save(server, kin_id, file=image_id, path="photos/plate.png")
    assert saved == {"path": "photos/plate.png", "size": len(image), "mime_type": "image/png"}
    assert (root / "photos" / "plate.png").read_bytes() == image
    assert sorted(os.listdir(root / "photos")) == ["plate.png"]  # no temporary file left


async def test_the_latest_file_of_a_name_is_the_one_copied(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    await uploaded(server.client, kin_id, "notes.txt", b"first draft")
    await uploaded(server.client, kin_id, "notes.txt", b"second draft")
    await save(server, kin_id, file="notes.txt")
    root = await workspace(server, kin_id)
    assert (root / "attachments" / "notes.txt").read_bytes() == b"second draft"


async def test_a_file_of_another_kins_chat_cannot_be_copied(server: RunningServer) -> None:
    owner = await make_kin(server.client)
    other = await make_kin(server.client)
    secret_id = await uploaded(server.client, owner, "diary.txt", b"private")
    await uploaded(server.client, other, "menu.txt", b"risotto")
    for wanted in (secret_id, "diary.txt"):
        with pytest.raises(
            ToolError, match=r"No file .* attached in your chat \(attached: 'menu.txt'\)"
        ):
            await save(server, other, file=wanted)
    assert os.listdir(await workspace(server, other)) == []


async def test_only_paths_inside_the_workspace(server: RunningServer, tmp_path: Path) -> None:
    kin_id = await make_kin(server.client)
    await uploaded(server.client, kin_id, "prices.csv", PRICES)
    root = await workspace(server, kin_id)
    (root / "escape").symlink_to(tmp_path)
    for path, match in [
        ("../prices.csv", "outside your workspace"),
        ("/tmp/prices.csv", "absolute path"),
        ("escape/prices.csv", "outside your workspace"),
    ]:
        with pytest.raises(ToolError, match=match):
            await save(server, kin_id, file="prices.csv", path=path)
    assert not (tmp_path / "prices.csv").exists()

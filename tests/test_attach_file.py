"""``attach_file``: a file of the Kin's workspace attached to its reply, stored as an upload
of its chat (the uploads' limits apply) and served to the family's members, never to
someone signed out; refused outside the workspace, too large, or of a refused type."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.db.models import UploadRecord
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.tools.attach_file import ATTACH_FILE
from tests.support import server_fixtures
from tests.support.accounts import MARIE, register
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_mcp import run_turn, tool_results
from tests.test_uploads import make_kin, png

# The server and fake OpenAI fixtures, under the names pytest looks for.
fake_llm, server = server_fixtures.fake_llm, server_fixtures.server


async def workspace(server: RunningServer, kin_id: str) -> Path:
    return Path((await server.platform.kins.get(kin_id)).workspace)


async def attach(
    server: RunningServer, kin_id: str, attached: list[dict[str, Any]], **arguments: Any
) -> Any:
    context = ToolContext(server.platform, kin_id, "Chef", attach=attached.append)
    return await ATTACH_FILE.run(context, arguments)


async def test_an_attached_file_comes_with_the_reply_for_members_only(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    image = png("orange", (32, 20))
    (await workspace(server, kin_id)).joinpath("art").mkdir()
    (await workspace(server, kin_id) / "art" / "sunset.png").write_bytes(image)
    fake_llm.enqueue(
        Reply(tool_calls=[("attach_file", {"path": "art/sunset.png"})]),
        Reply(text="Here is your sunset."),
    )
    turn = await run_turn(server.client, kin_id, "Draw me a sunset")
    [result] = tool_results(turn)
    assert not result["is_error"], result["content"]
    assert json.loads(result["content"])["attached"] == "art/sunset.png"
    calling, answer = [m for m in turn if m["role"] == "assistant"]
    assert calling["attachments"] is None  # the files go with the final reply
    assert answer["content"] == "Here is your sunset."
    [attached] = answer["attachments"]
    assert {k: attached[k] for k in ("filename", "mime_type", "kind", "size")} == {
        "filename": "sunset.png",
        "mime_type": "image/png",
        "kind": "image",
        "size": len(image),
    }
    url = attached["url"]
    assert url == f"/api/uploads/{attached['id']}"
    assert (await server.client.get(url)).content == image
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        fetched = await marie.get(url)
        assert (fetched.status_code, fetched.content) == (200, image)
    async with server.new_client() as stranger:
        refused = await stranger.get(url)
        assert refused.status_code == 401
        assert image not in refused.content


async def test_files_outside_the_workspace_too_large_or_refused_are_not_attached(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    root = await workspace(server, kin_id)
    (root.parent / "secret.png").write_bytes(png())
    os.symlink(root.parent / "secret.png", root / "link.png")
    attached: list[dict[str, Any]] = []
    for path in ("../secret.png", "/etc/passwd", "link.png"):
        with pytest.raises(ToolError, match=r"outside your workspace|absolute path"):
            await attach(server, kin_id, attached, path=path)
    with pytest.raises(ToolError, match=r"no file 'missing\.png'"):
        await attach(server, kin_id, attached, path="missing.png")
    limit = server.platform.settings.upload_max_bytes
    (root / "huge.png").touch()
    os.truncate(root / "huge.png", limit + 1)  # sparse: nothing written
    with pytest.raises(ToolError, match=f"larger than {limit} bytes"):
        await attach(server, kin_id, attached, path="huge.png")
    (root / "tool.exe").write_bytes(b"MZ\x90\x00" + bytes(range(256)) * 4)
    with pytest.raises(ToolError, match=r"'tool\.exe' cannot be attached"):
        await attach(server, kin_id, attached, path="tool.exe")
    assert attached == []
    assert await server.platform.db.read(lambda: UploadRecord.select().count()) == 0
    # Outside a turn (nothing to attach to), nothing is stored either.
    (root / "ok.png").write_bytes(png())
    with pytest.raises(ToolError, match="only be attached to a reply"):
        await ATTACH_FILE.run(ToolContext(server.platform, kin_id, "Chef"), {"path": "ok.png"})
    result = await attach(server, kin_id, attached, path="ok.png")
    assert result["kind"] == "image" and [a["filename"] for a in attached] == ["ok.png"]

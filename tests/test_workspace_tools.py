"""The workspace tools on a real platform: files in, files out, and no way out of the
workspace (``..``, absolute paths, symbolic links)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.tools.workspace_tools import TOOLS
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import API_KEY

TOOL = {tool.name: tool for tool in TOOLS}


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def platform(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[Platform]:
    platform = Platform(
        load_settings(
            data_dir=data_dir, workspace_read_max_bytes=1024, workspace_write_max_bytes=2048
        )
    )
    await platform.start()
    await platform.providers.add(
        "ai", "openai", "OpenAI", {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
    )
    yield platform
    await platform.stop()


@pytest.fixture
async def context(platform: Platform) -> ToolContext:
    kin = await platform.kins.create({"name": "Chef", "model": "OpenAI/gpt-4o"})
    return ToolContext(platform, kin.id, kin.name)


async def workspace(context: ToolContext) -> Path:
    kin = await context.platform.kins.get(context.kin_id)
    return Path(kin.workspace)


async def call(context: ToolContext, name: str, **arguments: Any) -> Any:
    return await TOOL[name].run(context, arguments)


async def test_write_list_read_and_delete_files(context: ToolContext) -> None:
    written = await call(context, "write_file", path="notes/menu.md", content="# Menu\nRisotto\n")
    assert written == {"path": "notes/menu.md", "written": 15, "appended": False}
    await call(context, "write_file", path="notes/menu.md", content="Tiramisu\n", append=True)
    read = await call(context, "read_file", path="notes/menu.md")
    assert read["content"] == "# Menu\nRisotto\nTiramisu\n" and read["next_offset"] is None
    listed = await call(context, "list_files", recursive=True)
    assert listed["entries"] == [
        {"path": "notes", "type": "directory", "size": listed["entries"][0]["size"]},
        {"path": "notes/menu.md", "type": "file", "size": 24},
    ]
    assert (await workspace(context) / "notes" / "menu.md").read_text().endswith("Tiramisu\n")
    with pytest.raises(ToolError, match="not empty"):
        await call(context, "delete_file", path="notes")
    assert await call(context, "delete_file", path="notes/menu.md") == {
        "deleted": "notes/menu.md",
        "type": "file",
    }
    await call(context, "delete_file", path="notes")
    assert (await call(context, "list_files"))["entries"] == []
    with pytest.raises(ToolError, match=r"no file 'notes/menu\.md'"):
        await call(context, "read_file", path="notes/menu.md")


async def test_reads_and_writes_are_bounded(context: ToolContext) -> None:
    await call(context, "write_file", path="big.txt", content="a" * 2000)
    first = await call(context, "read_file", path="big.txt")
    assert len(first["content"]) == 1024 and first["next_offset"] == 1024 and first["size"] == 2000
    rest = await call(context, "read_file", path="big.txt", offset=first["next_offset"])
    assert len(rest["content"]) == 976 and rest["next_offset"] is None
    with pytest.raises(ToolError, match="2049 bytes; write_file takes 2048 at most"):
        await call(context, "write_file", path="bigger.txt", content="b" * 2049)
    assert not (await workspace(context) / "bigger.txt").exists()
    (await workspace(context) / "blob.bin").write_bytes(b"\x7fELF\x00\x01")
    with pytest.raises(ToolError, match="binary file"):
        await call(context, "read_file", path="blob.bin")
    os.mkfifo(await workspace(context) / "pipe")
    with pytest.raises(ToolError, match="Only regular files can be read"):
        await call(context, "read_file", path="pipe")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "../../kinbot.db"}),
        ("read_file", {"path": "notes/../../secret.txt"}),
        ("write_file", {"path": "../escaped.txt", "content": "x"}),
        ("delete_file", {"path": "../secret.txt"}),
        ("list_files", {"path": ".."}),
    ],
)
async def test_dot_dot_cannot_leave_the_workspace(
    context: ToolContext, tool: str, arguments: dict[str, Any]
) -> None:
    outside = (await workspace(context)).parent / "secret.txt"
    outside.write_text("not yours")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, tool, **arguments)
    assert outside.read_text() == "not yours"
    assert not (await workspace(context)).parent.joinpath("escaped.txt").exists()


@pytest.mark.parametrize("tool", ["read_file", "write_file", "delete_file", "list_files"])
async def test_absolute_paths_are_refused(context: ToolContext, tool: str) -> None:
    arguments: dict[str, Any] = {"path": "/etc/passwd"}
    if tool == "write_file":
        arguments["content"] = "x"
    with pytest.raises(ToolError, match="absolute path"):
        await call(context, tool, **arguments)


async def test_symbolic_links_pointing_out_are_refused(
    context: ToolContext, tmp_path: Path
) -> None:
    root = await workspace(context)
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's secret")
    os.symlink(secret, root / "link.txt")
    os.symlink(tmp_path, root / "outside")
    os.symlink("/etc/passwd", root / "passwd")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "read_file", path="link.txt")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "read_file", path="passwd")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "write_file", path="link.txt", content="overwritten")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "write_file", path="outside/new.txt", content="planted")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "list_files", path="outside")
    with pytest.raises(ToolError, match="outside your workspace"):
        await call(context, "delete_file", path="outside/secret.txt")
    assert secret.read_text() == "the server's secret"
    assert not (tmp_path / "new.txt").exists()
    # Deleting the link itself removes the link, never what it points to.
    assert (await call(context, "delete_file", path="link.txt"))["type"] == "link"
    assert secret.exists() and not (root / "link.txt").exists()
    listed = await call(context, "list_files")
    assert {"path": "outside", "type": "link"}.items() <= listed["entries"][0].items()


async def test_unknown_arguments_and_bad_values_are_explained(context: ToolContext) -> None:
    with pytest.raises(ToolError, match="has no argument"):
        await call(context, "read_file", path="a.txt", mode="rb")
    with pytest.raises(ToolError, match="'content' must be a string"):
        await call(context, "write_file", path="a.txt", content=42)
    with pytest.raises(ToolError, match="non-empty path"):
        await call(context, "read_file", path="")
    with pytest.raises(ToolError, match="workspace itself"):
        await call(context, "write_file", path=".", content="x")


async def test_the_tools_are_offered_to_kins(platform: Platform) -> None:
    names = {tool.name for tool in platform.registries.tools}
    assert {"list_files", "read_file", "write_file", "delete_file"} <= names

"""``download_file``: files from a loopback site into the Kin's workspace through the
private-address guard (opened by ``fetch_allowed_networks``), within its size and time
limits, and never anything half-written left behind."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.tools.download import DOWNLOAD_FILE
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.page_server import file_bytes, page_server
from tests.support.provider_setups import API_KEY
from tests.test_mcp import offered_tools, run_turn, tool_results
from tests.test_web_tools import ready, started

KIB = 1024


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def site() -> AsyncIterator[str]:
    async with page_server() as url:
        yield url


async def kin_context(data_dir: Path, fake_llm: FakeOpenAI, **settings: Any) -> ToolContext:
    platform = Platform(load_settings(data_dir=data_dir, **settings))
    await platform.start()
    await platform.providers.add(
        "ai", "openai", "OpenAI", {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
    )
    kin = await platform.kins.create({"name": "Chef", "model": "OpenAI/gpt-4o"})
    return ToolContext(platform, kin.id, kin.name)


@pytest.fixture
async def allowed(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[ToolContext]:
    """A Kin whose downloads may reach 127.0.0.1, at most 64 KiB each."""
    context = await kin_context(
        data_dir, fake_llm, fetch_allowed_networks=["127.0.0.1"], download_max_bytes=64 * KIB
    )
    yield context
    await context.platform.stop()


async def workspace(context: ToolContext) -> Path:
    return Path((await context.platform.kins.get(context.kin_id)).workspace)


def every_file(root: Path) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(folder, name), root)
        for folder, _dirs, files in os.walk(root)
        for name in files
    )


async def download(context: ToolContext, **arguments: Any) -> Any:
    return await DOWNLOAD_FILE.run(context, arguments)


async def test_a_file_is_saved_whole_into_the_workspace(allowed: ToolContext, site: str) -> None:
    result = await download(allowed, url=f"{site}/file/50000", path="downloads/data.bin")
    assert result == {
        "path": "downloads/data.bin",
        "size": 50000,
        "content_type": "application/octet-stream",
        "url": f"{site}/file/50000",
    }
    root = await workspace(allowed)
    assert (root / "downloads" / "data.bin").read_bytes() == file_bytes(50000)
    # Again, through a redirect, onto the same path: replaced.
    again = await download(allowed, url=f"{site}/redirect?to=/file/1000", path="downloads/data.bin")
    assert again["size"] == 1000 and again["url"] == f"{site}/file/1000"
    assert (root / "downloads" / "data.bin").read_bytes() == file_bytes(1000)
    assert every_file(root) == ["downloads/data.bin"]


@pytest.mark.parametrize(
    "path, match",
    [
        ("file/{size}", "larger than the download limit of 65536 bytes"),  # Content-Length
        ("big", "larger than the download limit of 65536 bytes"),  # streamed, no length
        ("missing", "HTTP 404"),
        ("redirect?to=http://10.0.0.5/file", r"Refused: 10\.0\.0\.5 is a private address"),
        ("redirect?to=http://[::1]:1/file", r"Refused: ::1 is a loopback address"),
    ],
)
async def test_a_failed_download_leaves_nothing(
    allowed: ToolContext, site: str, path: str, match: str
) -> None:
    root = await workspace(allowed)
    (root / "keep.txt").write_text("mine")
    url = f"{site}/{path.format(size=64 * KIB + 1)}"
    with pytest.raises(ToolError, match=match):
        await download(allowed, url=url, path="keep.txt")
    assert every_file(root) == ["keep.txt"]
    assert (root / "keep.txt").read_text() == "mine"


async def test_a_download_past_its_time_limit_leaves_nothing(
    data_dir: Path, fake_llm: FakeOpenAI, site: str
) -> None:
    context = await kin_context(
        data_dir, fake_llm, fetch_allowed_networks=["127.0.0.1"], download_timeout_seconds=1
    )
    try:
        with pytest.raises(ToolError, match="did not finish within 1 seconds"):
            await download(context, url=f"{site}/slow", path="late.txt")  # 30 s to answer
        assert every_file(await workspace(context)) == []
    finally:
        await context.platform.stop()


async def test_a_64_kib_file_is_within_the_limit(allowed: ToolContext, site: str) -> None:
    result = await download(allowed, url=f"{site}/file/{64 * KIB}", path="exact.bin")
    assert result["size"] == 64 * KIB


async def test_private_addresses_are_refused_by_default(
    data_dir: Path, fake_llm: FakeOpenAI, site: str
) -> None:
    context = await kin_context(data_dir, fake_llm)
    try:
        for url in (f"{site}/file/10", site.replace("127.0.0.1", "localhost") + "/file/10"):
            with pytest.raises(ToolError, match=r"Refused: 127\.0\.0\.1 is a loopback address"):
                await download(context, url=url, path="x.bin")
        with pytest.raises(ToolError, match="Only http"):
            await download(context, url="file:///etc/passwd", path="x.bin")
        assert every_file(await workspace(context)) == []
    finally:
        await context.platform.stop()


async def test_only_paths_inside_the_workspace(
    allowed: ToolContext, site: str, tmp_path: Path
) -> None:
    root = await workspace(allowed)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    (root / "folder").mkdir()
    url = f"{site}/file/10"
    for path, match in [
        ("../x.bin", "outside your workspace"),
        ("/tmp/x.bin", "absolute path"),
        ("escape/x.bin", "outside your workspace"),
        ("folder", "is a folder"),
    ]:
        with pytest.raises(ToolError, match=match):
            await download(allowed, url=url, path=path)
    assert list(outside.iterdir()) == []
    assert every_file(root) == []


async def test_a_kin_downloads_in_its_turn(tmp_path: Path, fake_llm: FakeOpenAI, site: str) -> None:
    async with started(tmp_path / "data", fetch_allowed_networks="127.0.0.1") as server:
        kin_id = await ready(server, fake_llm)
        call = {"url": f"{site}/file/300", "path": "in/file.bin"}
        fake_llm.enqueue(Reply(tool_calls=[("download_file", call)]), Reply(text="Saved."))
        turn = await run_turn(server.client, kin_id, "Download it")
        assert "download_file" in offered_tools(fake_llm)
        [result] = tool_results(turn)
        assert not result["is_error"], result["content"]
        assert json.loads(result["content"])["size"] == 300
        kin = (await server.client.get(f"/api/kins/{kin_id}")).json()["kin"]
        assert (Path(kin["workspace"]) / "in" / "file.bin").read_bytes() == file_bytes(300)

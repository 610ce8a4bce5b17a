"""``git_clone``: a real repository served by ``git http-backend`` on loopback, cloned through
the egress proxy (which refuses loopback unless ``fetch_allowed_networks`` opens it, for
every connection git makes), shallow, without hooks or symbolic links, within its size and
time limits, and nothing kept from a clone that failed."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.tools import ToolContext, ToolError
from kinbot_plugins.tools.git_clone import GIT_CLONE
from tests.support.fakes import FakeOpenAI
from tests.support.git_server import bare_repository, git, git_server
from tests.support.provider_setups import API_KEY

MIB = 1024 * 1024


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def repositories(tmp_path: Path) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """A served ``recipes`` repository (with a symbolic link) and a 3 MiB ``big`` one: the
    base URL and their last commits."""
    projects = tmp_path / "projects"
    projects.mkdir()
    recipes = bare_repository(
        projects, "recipes", {"README.md": b"# Recipes\n", "dessert/tiramisu.md": b"Mascarpone"}
    )
    work = projects / "recipes-link"
    git("clone", "--quiet", str(projects / "recipes"), str(work), cwd=projects)
    (work / "passwords").symlink_to("/etc/passwd")
    git("add", "passwords", cwd=work)
    git("commit", "--quiet", "-m", "a link", cwd=work)
    git("push", "--quiet", "origin", "main", cwd=work)
    recipes = git("rev-parse", "HEAD", cwd=work)
    big = bare_repository(projects, "big", {"noise.bin": os.urandom(3 * MIB)})
    async with git_server(projects) as url:
        yield url, {"recipes": recipes, "big": big}


async def kin_context(data_dir: Path, fake_llm: FakeOpenAI, **settings: Any) -> ToolContext:
    platform = Platform(load_settings(data_dir=data_dir, **settings))
    await platform.start()
    await platform.providers.add(
        "ai", "openai", "OpenAI", {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
    )
    kin = await platform.kins.create({"name": "Chef", "model": "OpenAI/gpt-4o"})
    return ToolContext(platform, kin.id, kin.name)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


async def clone(context: ToolContext, **arguments: Any) -> Any:
    return await GIT_CLONE.run(context, arguments)


async def workspace(context: ToolContext) -> Path:
    return Path((await context.platform.kins.get(context.kin_id)).workspace)


def staging_left(context: ToolContext) -> list[str]:
    staging = context.platform.settings.data_dir / "staging"
    return sorted(os.listdir(staging)) if staging.exists() else []


@pytest.fixture
async def allowed(
    data_dir: Path, fake_llm: FakeOpenAI, repositories: tuple[str, dict[str, str]]
) -> AsyncIterator[ToolContext]:
    context = await kin_context(
        data_dir,
        fake_llm,
        fetch_allowed_networks=["127.0.0.1"],
        egress_allowed_ports=[port_of(repositories[0])],
        git_clone_max_bytes=MIB,
    )
    yield context
    await context.platform.stop()


async def test_a_repository_is_cloned_through_the_egress_proxy(
    allowed: ToolContext,
    repositories: tuple[str, dict[str, str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="kinbot_core.egress")
    url, commits = repositories
    result = await clone(allowed, url=f"{url}/recipes", path="src/recipes")
    assert result["path"] == "src/recipes" and result["commit"] == commits["recipes"]
    root = await workspace(allowed)
    copy = root / "src" / "recipes"
    assert (copy / "dessert" / "tiramisu.md").read_bytes() == b"Mascarpone"
    link = copy / "passwords"  # a symbolic link in the repository: a plain file here
    assert not link.is_symlink() and link.read_text() == "/etc/passwd"
    assert not (copy / ".git" / "hooks").exists()
    assert git("rev-list", "--count", "HEAD", cwd=copy) == "1"  # shallow
    assert git("config", "core.symlinks", cwd=copy) == "false"
    assert result["size"] > 0 and staging_left(allowed) == []
    assert f"connected to 127.0.0.1:{port_of(url)}" in caplog.text  # through the proxy
    with pytest.raises(ToolError, match="already exists"):
        await clone(allowed, url=f"{url}/recipes", path="src/recipes")


async def test_loopback_is_refused_by_default(
    data_dir: Path, fake_llm: FakeOpenAI, repositories: tuple[str, dict[str, str]]
) -> None:
    url, _commits = repositories
    context = await kin_context(data_dir, fake_llm, egress_allowed_ports=[port_of(url)])
    try:
        for target in (f"{url}/recipes", url.replace("127.0.0.1", "localhost") + "/recipes"):
            with pytest.raises(ToolError, match=r"Refused: 127\.0\.0\.1 is a loopback address"):
                await clone(context, url=target, path="recipes")
        assert os.listdir(await workspace(context)) == [] and staging_left(context) == []
    finally:
        await context.platform.stop()


@asynccontextmanager
async def serving(handler: Any) -> AsyncIterator[int]:
    """An aiohttp server on 127.0.0.1 answering every GET with ``handler``; its port."""
    app = web.Application()
    app.router.add_get("/{tail:.*}", handler)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield int(runner.addresses[0][1])
    finally:
        await runner.cleanup()


async def test_every_connection_git_makes_is_guarded_redirects_included(
    data_dir: Path,
    fake_llm: FakeOpenAI,
    repositories: tuple[str, dict[str, str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    url, _commits = repositories
    port = port_of(url)

    async def elsewhere(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://127.0.0.2:{port}{request.path_qs}")

    async with serving(elsewhere) as redirector:
        context = await kin_context(
            data_dir,
            fake_llm,
            fetch_allowed_networks=["127.0.0.1"],
            egress_allowed_ports=[port, redirector],
        )
        try:
            with pytest.raises(ToolError, match="git clone failed"):
                await clone(context, url=f"http://127.0.0.1:{redirector}/recipes", path="r")
            assert f"refused 127.0.0.2:{port} for Kin {context.kin_id} (403)" in caplog.text
            assert os.listdir(await workspace(context)) == [] and staging_left(context) == []
        finally:
            await context.platform.stop()


@pytest.mark.parametrize(
    "url, match",
    [
        ("ssh://example.org/repo.git", "Only http"),
        ("git://example.org/repo.git", "Only http"),
        ("file:///etc", "Only http"),
        ("https://user:token@example.org/repo.git", "credentials"),
    ],
)
async def test_only_http_and_https_urls(allowed: ToolContext, url: str, match: str) -> None:
    with pytest.raises(ToolError, match=match):
        await clone(allowed, url=url, path="repo")


async def test_paths_outside_the_workspace_are_refused(
    allowed: ToolContext, repositories: tuple[str, dict[str, str]]
) -> None:
    url, _commits = repositories
    for path, match in [("../escape", "outside your workspace"), ("/tmp/x", "absolute path")]:
        with pytest.raises(ToolError, match=match):
            await clone(allowed, url=f"{url}/recipes", path=path)


async def test_a_repository_past_the_size_limit_is_stopped_and_nothing_kept(
    allowed: ToolContext, repositories: tuple[str, dict[str, str]]
) -> None:
    url, _commits = repositories
    with pytest.raises(ToolError, match=f"larger than the clone limit of {MIB} bytes"):
        await clone(allowed, url=f"{url}/big", path="big")
    assert os.listdir(await workspace(allowed)) == [] and staging_left(allowed) == []


async def test_a_clone_past_its_time_limit_is_killed_and_nothing_kept(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    async def never(request: web.Request) -> web.Response:
        await asyncio.sleep(3600)
        raise AssertionError

    async with serving(never) as port:
        context = await kin_context(
            data_dir,
            fake_llm,
            fetch_allowed_networks=["127.0.0.1"],
            egress_allowed_ports=[port],
            git_clone_timeout_seconds=1,
        )
        try:
            with pytest.raises(ToolError, match="did not finish within 1 seconds"):
                await clone(context, url=f"http://127.0.0.1:{port}/stuck", path="stuck")
            assert os.listdir(await workspace(context)) == [] and staging_left(context) == []
        finally:
            await context.platform.stop()


async def test_folders_left_by_an_interrupted_clone_are_removed_later(
    allowed: ToolContext, repositories: tuple[str, dict[str, str]]
) -> None:
    url, _commits = repositories
    staging = allowed.platform.settings.data_dir / "staging"
    for name in ("clone-interrupted", "clone-running"):
        (staging / name / "repository").mkdir(parents=True)
    long_ago = time.time() - allowed.platform.settings.git_clone_timeout_seconds - 120
    os.utime(staging / "clone-interrupted", (long_ago, long_ago))
    await clone(allowed, url=f"{url}/recipes", path="recipes")
    assert staging_left(allowed) == ["clone-running"]

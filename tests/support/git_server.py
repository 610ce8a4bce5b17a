"""Git repositories served over git's smart HTTP protocol on 127.0.0.1: ``git http-backend``
run as a CGI program by a small aiohttp server, as a web server would run it."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from aiohttp import web

#: git's environment in the tests: no user or system configuration.
GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
}


def git(*arguments: str, cwd: Path) -> str:
    """Run git in ``cwd``; its output."""
    done = subprocess.run(
        ["git", *arguments], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def bare_repository(root: Path, name: str, files: dict[str, bytes]) -> str:
    """A bare repository ``root/name`` with one commit of ``files`` (and one earlier
    commit, so a shallow clone has history to leave out); its last commit's id."""
    work = root / f"{name}-work"
    work.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=work)
    (work / "HISTORY.md").write_text("first\n")
    git("add", ".", cwd=work)
    git("commit", "--quiet", "-m", "first", cwd=work)
    for path, content in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(content)
    git("add", ".", cwd=work)
    git("commit", "--quiet", "-m", "second", cwd=work)
    git("clone", "--quiet", "--bare", str(work), str(root / name), cwd=root)
    return git("rev-parse", "HEAD", cwd=work)


@asynccontextmanager
async def git_server(projects: Path) -> AsyncIterator[str]:
    """Serve the bare repositories under ``projects``; yields the base URL
    (``http://127.0.0.1:N``), a repository being ``<base>/<name>``."""

    async def backend(request: web.Request) -> web.Response:
        body = await request.read()
        env = {
            **GIT_ENV,
            "GIT_PROJECT_ROOT": str(projects),
            "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "REQUEST_METHOD": request.method,
            "PATH_INFO": request.path,
            "QUERY_STRING": request.query_string,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": "127.0.0.1",
            "GIT_PROTOCOL": request.headers.get("Git-Protocol", ""),
        }
        process = await asyncio.create_subprocess_exec(
            "git", "http-backend", env=env, stdin=-1, stdout=-1, stderr=-1
        )
        out, _err = await process.communicate(body)
        head, _, payload = out.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = out.partition(b"\n\n")
        status, headers = 200, {}
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        return web.Response(status=status, headers=headers, body=payload)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", backend)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()

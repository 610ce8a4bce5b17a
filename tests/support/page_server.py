"""A small web site on 127.0.0.1 for the page-fetching and download tests: pages, redirects,
files of a given size, big and slow bodies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web

PAGE = """<!doctype html>
<html><head><title>Mushroom risotto</title><style>body {color: red}</style>
<script>var secret = "do-not-show";</script></head>
<body><nav>Home</nav><h1>Mushroom risotto</h1>
<p>Fry the <b>onions</b>, add the rice.</p><p>Serve hot.</p></body></html>"""


def file_bytes(size: int) -> bytes:
    """The content ``/file/<size>`` serves: ``size`` bytes, every byte value in turn."""
    return (bytes(range(256)) * (size // 256 + 1))[:size]


def _app() -> web.Application:
    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", charset="utf-8")

    async def text(request: web.Request) -> web.Response:
        return web.Response(text="plain words", content_type="text/plain")

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(request.query["to"])

    async def chain(request: web.Request) -> web.Response:
        hops = int(request.match_info["hops"])
        if hops == 0:
            return await page(request)
        raise web.HTTPFound(f"/chain/{hops - 1}")

    async def big(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        for _ in range(64):  # 4 MiB, without a Content-Length
            await response.write(b"x" * 65536)
        return response

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(text="late")

    async def sized_file(request: web.Request) -> web.Response:
        size = int(request.match_info["size"])
        return web.Response(body=file_bytes(size), content_type="application/octet-stream")

    async def missing(request: web.Request) -> web.Response:
        raise web.HTTPNotFound()

    async def image(request: web.Request) -> web.Response:
        return web.Response(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")

    app = web.Application()
    app.add_routes(
        [
            web.get("/page", page),
            web.get("/text", text),
            web.get("/redirect", redirect),
            web.get("/chain/{hops}", chain),
            web.get("/big", big),
            web.get("/slow", slow),
            web.get("/image", image),
            web.get("/file/{size}", sized_file),
            web.get("/missing", missing),
        ]
    )
    return app


@asynccontextmanager
async def page_server() -> AsyncIterator[str]:
    """Serve the site on a free loopback port; yields its base URL (``http://127.0.0.1:N``)."""
    runner = web.AppRunner(_app(), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()

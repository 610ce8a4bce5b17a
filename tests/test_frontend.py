"""The web interface served by the real server: the build, the SPA fallback, caching, and /api."""

from __future__ import annotations

import gzip
import re
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_web.blueprints.frontend import PACKAGED_BUILD
from tests.support.server import RunningServer, running_server

INDEX = '<!doctype html><div id="root"></div><script type="module" src="/assets/app-1a2b3c.js">'


@pytest.fixture
def small_build(tmp_path: Path) -> Path:
    """A build directory shaped like Vite's output."""
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / ".vite").mkdir()
    (build / "index.html").write_text(INDEX)
    (build / "assets" / "app-1a2b3c.js").write_text("console.log('kinbot');")
    (build / "assets" / "app-1a2b3c.js.gz").write_bytes(gzip.compress(b"console.log('gz');"))
    (build / "assets" / "app-1a2b3c.js.br").write_bytes(b"not really brotli")
    (build / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (build / ".vite" / "manifest.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("outside the build")
    return build


async def serve(data_dir: Path, frontend_dir: Path | None) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, frontend_dir=frontend_dir)
    async with running_server(Platform(settings)) as server:
        yield server


@pytest.fixture
async def server(data_dir: Path, small_build: Path) -> AsyncIterator[RunningServer]:
    async for running in serve(data_dir, small_build):
        yield running


async def test_the_app_and_every_deep_link_get_index_html_revalidated(
    server: RunningServer,
) -> None:
    for path in ("/", "/index.html", "/kins/9c2e", "/design/mockups/chat", "/signin"):
        response = await server.client.get(path)
        assert response.status_code == 200, path
        assert response.text == INDEX, path
        assert response.headers["content-type"].startswith("text/html")
        assert response.headers["cache-control"] == "no-cache"


async def test_hashed_assets_are_cached_for_a_year_other_files_revalidated(
    server: RunningServer,
) -> None:
    asset = await server.client.get(
        "/assets/app-1a2b3c.js", headers={"Accept-Encoding": "identity"}
    )
    assert asset.status_code == 200
    assert asset.text == "console.log('kinbot');"
    assert "javascript" in asset.headers["content-type"]
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    icon = await server.client.get("/favicon.svg")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.headers["cache-control"] == "no-cache"


async def test_assets_go_precompressed_to_browsers_that_accept_it(server: RunningServer) -> None:
    path = "/assets/app-1a2b3c.js"
    plain = await server.client.get(path, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.text == "console.log('kinbot');"
    assert plain.headers["vary"] == "Accept-Encoding"
    gzipped = await server.client.get(path, headers={"Accept-Encoding": "gzip"})
    assert gzipped.headers["content-encoding"] == "gzip"
    assert gzipped.text == "console.log('gz');"  # httpx decompressed the .gz copy
    assert "javascript" in gzipped.headers["content-type"]
    assert gzipped.headers["cache-control"] == "public, max-age=31536000, immutable"
    async with server.client.stream("GET", path, headers={"Accept-Encoding": "br, gzip"}) as br:
        assert br.headers["content-encoding"] == "br"
        assert b"".join([chunk async for chunk in br.aiter_raw()]) == b"not really brotli"
    refused = await server.client.get(path, headers={"Accept-Encoding": "br;q=0, gzip"})
    assert refused.headers["content-encoding"] == "gzip"


async def test_missing_files_hidden_files_and_escapes_are_not_served(
    server: RunningServer,
) -> None:
    for path in ("/assets/gone-123.js", "/robots.txt", "/.vite/manifest.json"):
        response = await server.client.get(path)
        assert response.status_code == 404, path
    escape = await server.client.get("/assets/..%2f..%2fsecret.txt")
    assert "outside the build" not in escape.text


async def test_api_paths_stay_json_errors(server: RunningServer) -> None:
    for method, path in (("GET", "/api/nope"), ("POST", "/api/nope/deeper"), ("GET", "/api")):
        response = await server.client.request(method, path)
        assert response.status_code == 404, (method, path)
        assert response.headers["content-type"] == "application/json"
        assert response.json()["error"]["code"] == "not_found"
    assert (await server.client.get("/api/health")).json()["status"] == "ok"


async def test_the_app_routes_stay_out_of_the_openapi_document(server: RunningServer) -> None:
    paths = (await server.client.get("/openapi.json")).json()["paths"]
    assert all(path.startswith("/api") for path in paths)


async def test_a_missing_build_gets_a_page_that_says_how_to_build_it(
    data_dir: Path, tmp_path: Path
) -> None:
    async for server in serve(data_dir, tmp_path / "never-built"):
        for path in ("/", "/kins/9c2e"):
            response = await server.client.get(path)
            assert response.status_code == 503
            assert response.headers["content-type"].startswith("text/html")
            assert "not built" in response.text
            assert "npm run build" in response.text
        assert (await server.client.get("/api/health")).status_code == 200


@pytest.mark.skipif(
    not (PACKAGED_BUILD / "index.html").is_file(),
    reason="the web interface is not built (make test builds it: npm ci && npm run build)",
)
async def test_the_real_build_is_served_with_its_assets(data_dir: Path) -> None:
    async for server in serve(data_dir, None):
        index = await server.client.get("/")
        assert index.status_code == 200
        assert '<div id="root">' in index.text and 'aria-label="KinBot"' in index.text  # splash
        scripts = re.findall(r'src="(/assets/[^"]+\.js)"', index.text)
        styles = re.findall(r'href="(/assets/[^"]+\.css)"', index.text)
        assert scripts and styles
        for path in scripts + styles:
            asset = await server.client.get(path)  # httpx accepts gzip
            assert asset.status_code == 200, path
            assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert asset.headers["content-encoding"] == "gzip"
        deep = await server.client.get("/design/mockups/settings")
        assert deep.text == index.text
        manifest = await server.client.get("/manifest.webmanifest")
        assert manifest.headers["content-type"].startswith("application/manifest+json")
        assert manifest.json()["start_url"] == "/"
        # Installable: PNG icons of 192 and 512 pixels, one of them maskable, served as PNG.
        icons = manifest.json()["icons"]
        sizes = {icon["sizes"] for icon in icons if icon["type"] == "image/png"}
        assert {"192x192", "512x512"} <= sizes
        assert any(icon["purpose"] == "maskable" for icon in icons)
        for icon in icons:
            served = await server.client.get(icon["src"])
            assert served.status_code == 200, icon["src"]
            assert served.headers["content-type"].split(";")[0] == icon["type"]
            if icon["type"] == "image/png":
                assert served.content.startswith(b"\x89PNG\r\n\x1a\n")
                width, height = struct.unpack(">II", served.content[16:24])
                assert f"{width}x{height}" == icon["sizes"]

"""The web interface: the built single-page app at ``/``, every other non-API path its fallback.

The build (``kinbot_web/frontend``, ``npm run build``) lands in ``kinbot_web/static`` unless
the ``frontend_dir`` setting points elsewhere. Hashed files under ``assets/`` are cached for
a year, and sent precompressed (the ``.br`` or ``.gz`` copy the build wrote beside them) to
browsers that accept it; ``index.html`` and the other files are revalidated on every visit,
so a new build is picked up at once. Paths under ``/api`` never reach this blueprint: they
stay JSON.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path, PurePosixPath

from quart import Blueprint, Response, request, send_file, send_from_directory
from quart.blueprints import BlueprintSetupState
from quart_schema import hide
from werkzeug.exceptions import NotFound
from werkzeug.routing import BaseConverter
from werkzeug.security import safe_join

from kinbot_web.app_context import current_platform
from kinbot_web.auth import public

blueprint = Blueprint("frontend", __name__)
# Not in every system's MIME table; the PWA manifest must be served with its own type.
mimetypes.add_type("application/manifest+json", ".webmanifest")

#: Where ``npm run build`` writes the app (vite.config.ts ``build.outDir``).
PACKAGED_BUILD = Path(__file__).resolve().parents[1] / "static"
#: Hashed file names change with their content: browsers may keep them for good.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Always ask the server first (a cheap 304 when nothing changed).
REVALIDATE = "no-cache"
#: Precompressed copies the build writes beside its assets (scripts/compress.mjs), best first.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))

MISSING_BUILD_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>KinBot: web interface not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;background:#fbf6ef;color:#3a2f28;max-width:40rem;
margin:4rem auto;padding:0 1rem;line-height:1.6}code{background:#f1e7da;padding:.1rem .35rem;
border-radius:.4rem}</style></head>
<body><h1>The web interface is not built yet</h1>
<p>KinBot's API is running (<a href="/api/health">/api/health</a>), but the web interface has
not been built on this machine. Build it once with Node.js 20.19 or newer:</p>
<p><code>make run</code> (builds it, then starts KinBot), or
<code>cd kinbot_web/frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>,
then reload this page.</p></body></html>
"""


class NotApiPathConverter(BaseConverter):
    """A path (slashes included) that is not ``api`` or under ``api/``."""

    regex = r"(?!api(?:/|$))[^/].*?"
    part_isolating = False


@blueprint.record_once
def _register_converter(state: BlueprintSetupState) -> None:
    state.app.url_map.converters["not_api"] = NotApiPathConverter


def build_dir() -> Path:
    """The directory of the built app being served."""
    configured = current_platform().settings.frontend_dir
    return configured if configured is not None else PACKAGED_BUILD


def _with_cache(response: Response, cache_control: str) -> Response:
    response.headers["Cache-Control"] = cache_control
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


async def _index(root: Path) -> Response:
    response = await send_file(root / "index.html", mimetype="text/html")
    response.headers["Referrer-Policy"] = "same-origin"
    return _with_cache(response, REVALIDATE)


def _accepted_encodings() -> set[str]:
    """The content codings the browser accepts (``q=0`` refuses one)."""
    accepted = set()
    for part in request.headers.get("Accept-Encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding and params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
            accepted.add(coding.lower())
    return accepted


async def _asset(root: Path, path: str, found: Path) -> Response:
    """A hashed asset, precompressed when the browser takes it."""
    accepted = _accepted_encodings()
    for coding, suffix in ENCODINGS:
        compressed = _locate(root, path + suffix) if coding in accepted else None
        if compressed is not None:
            mimetype = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
            response = await send_file(compressed, mimetype=mimetype)
            response.headers["Content-Encoding"] = coding
            break
    else:
        response = await send_from_directory(root, path)
    response.headers["Vary"] = "Accept-Encoding"
    return response


def _is_route_like(path: str) -> bool:
    """Whether a path that names no file is an app route (``/kins/42``), not a missing file."""
    parts = PurePosixPath(path).parts
    return bool(parts) and parts[0] != "assets" and not PurePosixPath(path).suffix


def _locate(root: Path, path: str) -> Path | None:
    """The file of the build ``path`` names, if any (dot files and escapes name nothing).

    A ``stat`` of a local file: quick enough to do on the event loop.
    """
    if any(part.startswith(".") for part in PurePosixPath(path).parts):
        return None
    target = safe_join(str(root), path)
    if target is None:
        return None
    try:
        return Path(target) if Path(target).is_file() else None
    except OSError:  # a name too long for the file system, say: no such file
        return None


@blueprint.get("/")
@blueprint.get("/<not_api:path>")
@public
@hide
async def serve(path: str = "") -> Response:
    """Serve a file of the build, or ``index.html`` for an app route (the SPA fallback)."""
    root = build_dir()
    if _locate(root, "index.html") is None:
        response = Response(MISSING_BUILD_PAGE, status=503, mimetype="text/html")
        return _with_cache(response, REVALIDATE)
    if not path or path == "index.html":
        return await _index(root)
    found = _locate(root, path)
    if found is not None:
        if path.startswith("assets/"):
            return _with_cache(await _asset(root, path, found), IMMUTABLE)
        return _with_cache(await send_from_directory(root, path), REVALIDATE)
    if _is_route_like(path):
        return await _index(root)
    raise NotFound()

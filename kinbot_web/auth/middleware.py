"""Runs before every request: load the session, defend against CSRF, apply the access policy."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from quart import Quart, current_app, g, request

from kinbot_web.app_context import current_platform
from kinbot_web.auth.access import access_of, require
from kinbot_web.auth.session import SESSION_COOKIE
from kinbot_web.errors import ApiError
from kinbot_web.host_guard import host_policy

logger = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Views registered by libraries, public by nature (the OpenAPI document and its viewer).
LIBRARY_PUBLIC_ENDPOINTS = frozenset({"openapi", "swagger_ui"})


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _allowed_origins() -> set[str]:
    """``trusted_origins``, ``public_url``'s origin, and the request's own origin when its
    host is one the instance answers to (never a name taken from the request alone)."""
    settings = current_platform().settings
    allowed = {_origin_of(origin) for origin in settings.trusted_origins}
    if settings.public_url:
        allowed.add(_origin_of(settings.public_url))
    if host_policy(current_app).allows(request.host):
        allowed.add(f"{request.scheme}://{request.host}".lower())
    return allowed


def same_origin_request() -> bool:
    """The CSRF check of OWASP's "verifying origin with standard headers".

    Browsers send ``Origin`` with every cross-origin state-changing request and
    ``Sec-Fetch-Site`` with every request; a client sending neither is not a browser and
    carries no ambient cookie on someone else's behalf.
    """
    origin = request.headers.get("Origin")
    if origin is not None:
        return origin != "null" and _origin_of(origin) in _allowed_origins()
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site in ("same-origin", "none")
    return True


def install(app: Quart) -> None:
    """Install the authentication, CSRF and access checks on every ``/api`` request."""

    @app.before_request
    async def authorise() -> None:
        g.user = None
        g.session_id = None
        if request.path != "/api" and not request.path.startswith("/api/"):
            return
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            found = await current_platform().accounts.authenticate(token)
            if found is not None:
                g.user, g.session_id = found
        if request.method not in SAFE_METHODS and not same_origin_request():
            raise ApiError(
                403, "cross_origin_refused", "This request came from another site; refused."
            )
        if request.endpoint is None or request.endpoint in LIBRARY_PUBLIC_ENDPOINTS:
            return  # no route matched: routing answers 404 or 405
        access = access_of(app.view_functions.get(request.endpoint))
        if access is None:
            logger.error("route %s declares no access policy: refused", request.endpoint)
            raise ApiError(403, "forbidden", "This route is not available.")
        require(access)

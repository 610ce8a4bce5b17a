"""The session cookie and what the request says about the client."""

from __future__ import annotations

import time

from quart import Response, request

from kinbot_core.accounts import SessionGrant
from kinbot_core.config import Settings

SESSION_COOKIE = "kinbot_session"


def cookie_secure(settings: Settings) -> bool:
    """Whether the cookie is marked Secure for this request."""
    if settings.cookie_secure == "always":
        return True
    if settings.cookie_secure == "never":
        return False
    return request.scheme in ("https", "wss")


def set_session_cookie(response: Response, grant: SessionGrant, settings: Settings) -> None:
    """Give the browser the session token: HTTP-only, SameSite=Lax, Secure over HTTPS."""
    response.set_cookie(
        SESSION_COOKIE,
        grant.token,
        max_age=max(round(grant.expires_at - time.time()), 0),
        path="/",
        httponly=True,
        samesite="Lax",
        secure=cookie_secure(settings),
    )


def clear_session_cookie(response: Response, settings: Settings) -> None:
    """Make the browser forget the session cookie."""
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="Lax", secure=cookie_secure(settings)
    )


def client_ip() -> str | None:
    """The client's address (as rewritten by the trusted-proxy middleware, if any)."""
    return request.remote_addr


def user_agent() -> str | None:
    return request.headers.get("User-Agent")

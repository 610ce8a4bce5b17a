"""Who is asking: session cookies, the access policy of every route, the CSRF defence."""

from kinbot_web.auth.access import admin_only, current_user, public, signed_in

__all__ = ["admin_only", "current_user", "public", "signed_in"]

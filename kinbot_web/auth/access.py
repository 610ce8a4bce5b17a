"""Every API route declares who may call it; a route that does not is refused to everyone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from quart import g

from kinbot_core.accounts import AccountView
from kinbot_web.errors import ApiError

Access = Literal["public", "user", "admin"]
ACCESS_ATTRIBUTE = "kinbot_access"

F = TypeVar("F", bound=Callable[..., Any])


def _mark(access: Access) -> Callable[[F], F]:
    def decorate(view: F) -> F:
        setattr(view, ACCESS_ATTRIBUTE, access)
        return view

    return decorate


#: Anyone, signed in or not (health, onboarding's first screen, sign-in).
public = _mark("public")
#: Any signed-in, active user.
signed_in = _mark("user")
#: Signed-in administrators only.
admin_only = _mark("admin")


def access_of(view: Callable[..., Any] | None) -> Access | None:
    """The access a view declared, or ``None``."""
    return getattr(view, ACCESS_ATTRIBUTE, None)


def current_user() -> AccountView:
    """The signed-in user of the request (the access policy guarantees one on user routes)."""
    user: AccountView | None = g.get("user")
    if user is None:
        raise ApiError(401, "unauthenticated", "Sign in first.")
    return user


def require(access: Access) -> None:
    """Refuse the request unless its user satisfies ``access``."""
    if access == "public":
        return
    user = current_user()
    if access == "admin" and not user.is_admin:
        raise ApiError(403, "forbidden", "Only an administrator can do this.")

"""Who may create the first administrator of a fresh instance.

Until someone has an account, whoever creates the first one owns the instance. The identity
step of onboarding is therefore open only to a client on this machine (loopback), or to
whoever shows the one-time set-up code printed in the server's log at start-up (as Jupyter
does with its token): reading the log proves one runs the server.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

from quart import Quart, request

from kinbot_core.config import Settings

SETUP_CODE_KEY = "kinbot.setup_code"
SETUP_PARAMETER = "setup"


class SetupCode:
    """The one-time code of a fresh instance; none once an administrator exists."""

    def __init__(self) -> None:
        self._value: str | None = None

    def issue(self) -> str:
        """A new random code, replacing any earlier one."""
        self._value = secrets.token_urlsafe(18)
        return self._value

    def accepts(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is the current code (compared in constant time)."""
        if self._value is None or not candidate:
            return False
        return hmac.compare_digest(candidate.strip().encode(), self._value.encode())

    def discard(self) -> None:
        """Forget the code: the first administrator exists."""
        self._value = None


def setup_code(app: Quart) -> SetupCode:
    """The set-up code of ``app`` (without an issued code, nothing is accepted)."""
    code: SetupCode = app.extensions.setdefault(SETUP_CODE_KEY, SetupCode())
    return code


def is_loopback_address(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def request_from_loopback(settings: Settings) -> bool:
    """Whether the client of the current request is on this machine.

    Without trusted proxies this is the connection's peer address. With them, it is the
    address the proxies forwarded (a proxy on this machine forwarding a remote browser is
    not a local client), and a request that did not come through them as configured
    (fewer ``X-Forwarded-For`` entries than trusted hops) is not local either.
    """
    hops = settings.trusted_proxy_hops
    if hops:
        forwarded = [
            part.strip()
            for value in request.headers.getlist("X-Forwarded-For")
            for part in value.split(",")
        ]
        if len(forwarded) < hops:
            return False
        # the trusted-proxy middleware has already made it the connection's client address
    client = request.scope.get("client")
    return is_loopback_address(client[0] if client else None)


def setup_link(base_url: str, code: str) -> str:
    """The onboarding page's address with the code, for the log."""
    return f"{base_url.rstrip('/')}/onboarding?{SETUP_PARAMETER}={code}"

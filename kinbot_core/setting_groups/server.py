"""The settings of the server itself: where it listens and keeps its data, who may reach it
and sign in, and which plugins it loads (part of ``kinbot_core.config.Settings``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

#: An entry of ``allowed_hosts``: a host name, ``*.`` and a domain, or ``*``.
HOST_PATTERN = re.compile(r"\*|(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*")


def default_data_dir() -> Path:
    """The per-user data directory used when ``KINBOT_DATA_DIR`` is not set."""
    return Path(platformdirs.user_data_dir("kinbot", appauthor=False))


class ServerSettings(BaseModel):
    """Server and storage, accounts and access, plugins."""

    # -- server and storage ----------------------------------------------------------------
    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="Directory holding the SQLite database, uploads, workspaces and keys.",
    )
    host: str = Field("127.0.0.1", description="Address `kinbot serve` listens on.")
    port: int = Field(8787, ge=0, le=65535, description="TCP port `kinbot serve` listens on.")
    log_level: str = Field("INFO", description="Logging level (DEBUG, INFO, WARNING, ERROR).")
    secret_key: SecretStr | None = Field(
        None,
        description=(
            "Master key that encrypts secrets at rest. When unset, one is generated on first "
            "start into a 0600 key file in the data directory."
        ),
    )
    shutdown_grace_seconds: float = Field(
        10.0, gt=0, description="On SIGTERM, how long in-flight work may take before exit."
    )
    keep_alive_timeout_seconds: float = Field(
        130.0,
        gt=0,
        description=(
            "How long an idle kept-alive HTTP connection stays open. Longer than the idle "
            "timeouts of clients and reverse proxies (aiohttp 15 s, nginx 60 s, Go and Traefik "
            "90 s, Firefox 115 s, Caddy 120 s), so that they close first and never send a "
            "request on a connection the server is closing at that moment."
        ),
    )
    public_url: str = Field(
        "",
        description=(
            "The address people open KinBot at, when it is not the address it listens on "
            "(a domain name, a reverse proxy): `https://kinbot.example.org`. Its host name is "
            "answered to, its origin may send state-changing requests, and the set-up link "
            "printed at first start uses it."
        ),
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "More host names KinBot answers to, comma-separated (`kinbot.lan, "
            "*.home.example.org`; `*` answers to any name, which gives up the protection). "
            "Always answered: IP addresses, `localhost`, this machine's host name (and "
            "`<name>.local`), the hosts of `public_url` and `trusted_origins`. A request "
            "naming another host gets 421: a page of another site whose name was made to point "
            "at this machine (DNS rebinding) cannot talk to KinBot."
        ),
    )
    database_read_workers: int = Field(
        4, ge=1, le=64, description="Threads running read queries off the event loop."
    )
    database_busy_timeout_seconds: float = Field(
        5.0, gt=0, description="How long a query waits for a lock held by another writer."
    )
    frontend_dir: Path | None = Field(
        None,
        description=(
            "Directory of the built web interface served at `/`; unset: the build inside the "
            "package (`kinbot_web/static`, made by `make run` or `npm run build`)."
        ),
    )

    # -- accounts and access ---------------------------------------------------------------
    password_min_length: int = Field(
        10, ge=8, le=128, description="Shortest password accepted for an account."
    )
    session_lifetime_days: float = Field(
        30.0, gt=0, description="How long a browser stays signed in without signing in again."
    )
    invitation_lifetime_hours: float = Field(
        72.0, gt=0, description="How long an invitation code can be used."
    )
    login_rate_limit_per_account: int = Field(
        5, ge=1, description="Failed sign-ins allowed per account per login rate window."
    )
    login_rate_limit_per_ip: int = Field(
        20, ge=1, description="Failed sign-ins allowed per client address per login rate window."
    )
    login_rate_window_seconds: float = Field(
        900.0, gt=0, description="The window of the two login rate limits."
    )
    trusted_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Extra origins allowed to send state-changing requests (e.g. the address of a "
            "reverse proxy: `https://kinbot.example.org`), comma-separated. The origin of "
            "the request's own host (one of the `allowed_hosts`) is always allowed."
        ),
    )
    trusted_proxy_hops: int = Field(
        0,
        ge=0,
        description=(
            "Reverse proxies in front of KinBot whose X-Forwarded-For/-Proto/-Host headers "
            "are believed (0: none, the headers are ignored). KinBot must then be reachable "
            "only through them: the forwarded client address decides, among other things, "
            "whether the first administrator may be created without the set-up code."
        ),
    )
    cookie_secure: Literal["auto", "always", "never"] = Field(
        "auto",
        description=(
            "Mark the session cookie Secure: `auto` when the request came over HTTPS "
            "(directly or through a trusted proxy), `always` or `never`."
        ),
    )

    # -- plugins ---------------------------------------------------------------------------
    disabled_plugins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Plugins disabled at start-up, comma-separated, before they are loaded.",
    )
    plugin_hook_timeout_seconds: float = Field(
        10.0, gt=0, description="Time limit of one plugin hook implementation or event handler."
    )

    @field_validator("public_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        url = value.strip().rstrip("/")
        if not url:
            return ""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// address with a host name")
        return url

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        names = []
        for entry in value:
            name = entry.strip().lower().rstrip(".")
            if not HOST_PATTERN.fullmatch(name):
                raise ValueError(
                    f"{entry!r} is not a host name (a name such as kinbot.lan, a pattern such "
                    "as *.example.org, or *), without scheme or port"
                )
            names.append(name)
        return names

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"unknown log level {value!r}")
        return level

    @property
    def database_path(self) -> Path:
        """The SQLite file inside the data directory."""
        return self.data_dir / "kinbot.db"

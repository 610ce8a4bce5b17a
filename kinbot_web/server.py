"""Running the app under hypercorn, with a graceful drain on SIGTERM.

On SIGTERM (or SIGINT) the browsers' event streams are closed first (an open stream would
otherwise hold the shutdown for the whole grace period, then be cut), hypercorn stops
accepting connections and lets in-flight requests finish within ``shutdown_grace_seconds``,
and the platform stops. While no account exists, the log shows the one-time link that lets
a browser on another machine create the first administrator.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config
from quart import Quart

from kinbot_core.config import Settings
from kinbot_core.platform import Platform
from kinbot_web.app import create_app
from kinbot_web.blueprints.events import close_streams
from kinbot_web.setup_code import setup_code, setup_link

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoundSocket:
    """A listening socket handed to hypercorn by file descriptor, and where it listens."""

    fd: int
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def bind_socket(host: str, port: int) -> BoundSocket:
    """Listen on ``host``:``port`` (0 picks a free port) before hypercorn starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=128)
    bound_host, bound_port = sock.getsockname()[:2]
    return BoundSocket(sock.detach(), bound_host, bound_port)


def hypercorn_config(bound: BoundSocket, settings: Settings) -> Config:
    """Hypercorn settings: serve on ``bound``, drain requests for the shutdown grace."""
    config = Config()
    config.bind = [f"fd://{bound.fd}"]
    config.graceful_timeout = settings.shutdown_grace_seconds
    config.keep_alive_timeout = settings.keep_alive_timeout_seconds
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    return config


def browser_url(bound: BoundSocket, settings: Settings) -> str:
    """Where a browser opens this instance: ``public_url``, else the listening address (a
    wildcard one, 0.0.0.0 or ::, given as loopback)."""
    if settings.public_url:
        return settings.public_url
    return _reachable(bound).url


def _reachable(bound: BoundSocket) -> BoundSocket:
    """``bound`` with a wildcard address (0.0.0.0 or ::) given as loopback."""
    return replace(bound, host={"0.0.0.0": "127.0.0.1", "::": "::1"}.get(bound.host, bound.host))


async def set_when_answering(bound: BoundSocket, serving: asyncio.Event) -> None:
    """Set ``serving`` once the server answers on ``bound``: this asks ``/api/health``
    itself, again every 20 ms until an HTTP answer comes."""
    target = _reachable(bound)
    authority = target.url.removeprefix("http://")
    request = f"GET /api/health HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    while not serving.is_set():
        try:
            async with asyncio.timeout(10):
                reader, writer = await asyncio.open_connection(target.host, target.port)
                try:
                    writer.write(request.encode())
                    if (await reader.readline()).startswith(b"HTTP/"):
                        serving.set()
                finally:
                    writer.close()
        except (OSError, TimeoutError):
            pass
        if not serving.is_set():
            await asyncio.sleep(0.02)


def close_streams_on(stop: asyncio.Event, app: Quart) -> Callable[[], Awaitable[None]]:
    """Hypercorn's shutdown trigger: once ``stop`` is set, end the event streams first."""

    async def trigger() -> None:
        await stop.wait()
        close_streams(app)

    return trigger


#: Allocations (less deallocations) of container objects between two collections of the
#: youngest generation; each takes about 1.5 ms of CPU at this size.
YOUNG_GENERATION_THRESHOLD = 10_000


def settle_garbage_collector() -> None:
    """Move everything start-up created (modules, SDK clients, the model, caches) out of the
    garbage collector's sight: a full collection then scans only what came since, instead of
    stalling every Kin's turn for 60-140 ms each time it runs. The youngest generation is
    collected every ``YOUNG_GENERATION_THRESHOLD`` allocations instead of Python's 700: a
    turn allocates a few hundred objects that outlive it briefly (views, events, futures),
    and collecting them twice a turn cost 0.17 ms of CPU per turn, against 0.01 ms now."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, *gc.get_threshold()[1:])


async def serve(settings: Settings, *, shutdown: asyncio.Event | None = None) -> None:
    """Start the platform and serve it until SIGTERM or SIGINT (or ``shutdown`` is set).

    On the signal, the event streams end, hypercorn stops accepting connections and gives
    in-flight requests up to ``shutdown_grace_seconds``; the platform then delivers pending
    events and closes the database. Without any account yet, the log shows the set-up link.
    """
    platform = Platform(settings)
    stop = shutdown or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await platform.start(serving=False)
        app = create_app(platform)
        code = None if await platform.accounts.has_users() else setup_code(app).issue()
        settle_garbage_collector()
        bound = bind_socket(settings.host, settings.port)
        logger.info("KinBot listening on %s (data in %s)", bound.url, settings.data_dir)
        if code is not None:
            logger.warning(
                "No account yet. To create the administrator from another machine, open %s "
                "(or enter the set-up code %s; it works once). From this machine no code is "
                "needed.",
                setup_link(browser_url(bound, settings), code),
                code,
            )
        print(f"KinBot is running on {bound.url}", flush=True)
        platform.spawn(set_when_answering(bound, platform.serving), name="kinbot-serving")
        await hypercorn_serve(
            app,
            hypercorn_config(bound, settings),
            shutdown_trigger=close_streams_on(stop, app),
        )
    finally:
        await platform.stop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    logger.info("KinBot stopped")

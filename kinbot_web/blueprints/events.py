"""``/api/events``: one Server-Sent Events stream per browser session."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from quart import Blueprint, Quart, Response, current_app, g, request

from kinbot_web.app_context import EXTENSION_KEY, current_platform
from kinbot_web.auth import current_user, signed_in
from kinbot_web.auth.session import SESSION_COOKIE
from kinbot_web.errors import ApiError

blueprint = Blueprint("events", __name__)

HEARTBEAT_SECONDS = 15.0
#: How long an item waits for the rest of its burst before it is written.
BURST_SECONDS = 0.005
#: Set on the app once the server is stopping: no stream opens any more.
STREAMS_CLOSED_KEY = "kinbot.streams_closed"


def close_streams(app: Quart) -> None:
    """End every open stream of ``app`` and refuse new ones (the server is stopping).

    Each browser sees its stream end normally, and reconnects once the server is back.
    """
    app.extensions[STREAMS_CLOSED_KEY] = True
    app.extensions[EXTENSION_KEY].live.close_all()


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


@blueprint.get("/api/events")
@signed_in
async def events() -> Response:
    """Token deltas, new messages, tool progress, queue counts and Kin states, as SSE.

    Each event has an id; a reconnecting browser sends ``Last-Event-ID`` and receives what it
    missed (or a ``resync`` event when that is no longer kept). A comment is sent every 15
    seconds. The stream ends when the session does (signed out, disabled, role lowered).
    """
    if current_app.extensions.get(STREAMS_CLOSED_KEY):
        raise ApiError(503, "server_stopping", "KinBot is stopping; try again in a moment.")
    platform = current_platform()
    user = current_user()
    token = request.cookies.get(SESSION_COOKIE, "")
    session_id = g.session_id
    subscription, complete = platform.live.subscribe(
        user.id, after=_last_event_id(), session_id=session_id
    )

    async def session_alive() -> bool:
        found = await platform.accounts.authenticate(token)
        return found is not None and found[1] == session_id

    async def stream() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 3000\n\n"
            if not complete:
                yield b"event: resync\ndata: {}\n\n"
            check_at = time.monotonic() + HEARTBEAT_SECONDS
            while True:
                wait = max(check_at - time.monotonic(), 0.0)
                try:
                    async with asyncio.timeout(wait):
                        item = await subscription.next()
                except TimeoutError:
                    # Every 15 seconds, however busy the stream: is the session still valid?
                    if not await session_alive():
                        return
                    check_at = time.monotonic() + HEARTBEAT_SECONDS
                    yield b": heartbeat\n\n"
                    continue
                if item is None:
                    return
                # What a turn publishes comes in bursts a millisecond or two apart (a message
                # and the queue's count, then the turn's start): one write for a burst.
                await asyncio.sleep(BURST_SECONDS)
                more, ended = subscription.waiting()
                yield b"".join(each.to_sse() for each in (item, *more))
                if ended:
                    return
        finally:
            subscription.close()

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    response.timeout = None
    return response

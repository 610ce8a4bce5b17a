"""Restricted Kins are invisible to whoever may not use them (``kinbot_core.kins.access``).

Runs before every ``/api`` request, after the access policy: a request that names a Kin —
in its path (``kin_id``), through one of the Kin's tasks, crons, uploads or webhooks
(``task_id``, ``cron_id``, ``upload_id``, ``webhook_id``), in its query (``?kin_id=``) or in
its JSON body (``kin_id``, ``kin_ids``) — is answered 404 ``not_found``, exactly as for a Kin
that does not exist, unless its user may use every Kin it names. A task, cron, upload or
webhook of such a Kin is answered exactly as one that does not exist (``TaskNotFound.of``,
``CronNotFound.of``, ``NO_SUCH_UPLOAD``, ``NO_SUCH_WEBHOOK``): worded for what was asked,
and telling nothing more. Routes that list
several Kins' things filter them with ``usable``.

A view marked ``manages_kin_access`` (reading or changing who may use a Kin) is reachable by
administrators for any Kin, so that a mistake can always be fixed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from quart import Quart, g, request

from kinbot_core.accounts import AccountView
from kinbot_core.crons.views import CronNotFound
from kinbot_core.kins.access import may_use, usable_ids
from kinbot_core.platform import Platform
from kinbot_core.tasks import TaskNotFound
from kinbot_core.upload_content import UploadError
from kinbot_core.uploads import NO_SUCH_UPLOAD, UploadStore
from kinbot_core.webhooks import WebhookError
from kinbot_core.webhooks.service import NO_SUCH_WEBHOOK
from kinbot_web.app_context import current_platform
from kinbot_web.errors import ApiError

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
MANAGES_KIN_ACCESS = "kinbot_manages_kin_access"
#: Body fields that name Kins.
BODY_KIN_FIELDS = ("kin_id", "kin_ids")


def manages_kin_access(view: F) -> F:
    """Mark a view that reads or changes a Kin's access: administrators reach it always."""
    setattr(view, MANAGES_KIN_ACCESS, True)
    return view


async def _task_kins(platform: Platform, task_id: str) -> list[str]:
    try:
        task = await platform.tasks.get(task_id)
    except TaskNotFound:
        return []
    return [task.parent_kin_id, task.kin_id]


async def _cron_kins(platform: Platform, cron_id: str) -> list[str]:
    try:
        return [(await platform.crons.get(cron_id)).kin_id]
    except CronNotFound:
        return []


async def _upload_kins(platform: Platform, upload_id: str) -> list[str]:
    try:
        return [(await UploadStore(platform.db, platform.settings).get(upload_id)).kin_id]
    except UploadError:
        return []


async def _webhook_kins(platform: Platform, webhook_id: str) -> list[str]:
    try:
        return [(await platform.webhooks.get(webhook_id)).kin_id]
    except WebhookError:
        return []


async def _itself(platform: Platform, kin_id: str) -> list[str]:
    return [kin_id]


#: Path parameters that name a Kin, and how to find it.
PATH_KINS: dict[str, Callable[[Platform, str], Awaitable[list[str]]]] = {
    "kin_id": _itself,
    "task_id": _task_kins,
    "cron_id": _cron_kins,
    "upload_id": _upload_kins,
    "webhook_id": _webhook_kins,
}


#: What a missing object of a path parameter is answered (the message of its own "not
#: found"); a hidden one is answered the same. Any other: "No such Kin."
MISSING_ANSWERS: dict[str, Callable[[str], str]] = {
    "task_id": lambda task_id: TaskNotFound.of(task_id).message,
    "cron_id": lambda cron_id: CronNotFound.of(cron_id).message,
    "upload_id": lambda _: NO_SUCH_UPLOAD,
    "webhook_id": lambda _: NO_SUCH_WEBHOOK,
}
NO_SUCH_KIN = "No such Kin."


async def kins_named(
    platform: Platform, *, skip_path_kin: bool = False
) -> list[tuple[list[str], str]]:
    """Every Kin the current request names in its path (directly or through a task, cron,
    upload or webhook of it), each group with the answer a person who may not use one of
    them receives: the one a missing object of that parameter receives."""
    named: list[tuple[list[str], str]] = []
    for name, value in (request.view_args or {}).items():
        if name in PATH_KINS and isinstance(value, str):
            if name == "kin_id" and skip_path_kin:
                continue
            answer = MISSING_ANSWERS[name](value) if name in MISSING_ANSWERS else NO_SUCH_KIN
            named.append((await PATH_KINS[name](platform, value), answer))
    return named


async def kins_given() -> list[str]:
    """Every Kin the current request gives in its query or JSON body. An id that names no
    Kin is kept: it is answered 404 like a Kin one may not use, so that nobody can tell a
    restricted Kin from a missing one by the answer."""
    named = [value for value in request.args.getlist("kin_id") if value]
    if request.is_json and request.method not in ("GET", "HEAD"):
        body = await request.get_json(silent=True)
        if isinstance(body, dict):
            for field in BODY_KIN_FIELDS:
                value = body.get(field)
                values = value if isinstance(value, list) else [value]
                named += [v for v in values if isinstance(v, str) and v]
    return named


def install(app: Quart) -> None:
    """Refuse, as not found, every request naming a Kin its user may not use."""

    @app.before_request
    async def hide_restricted_kins() -> None:
        user: AccountView | None = g.get("user")
        if user is None or request.endpoint is None or not request.path.startswith("/api/"):
            return
        view = app.view_functions.get(request.endpoint)
        platform = current_platform()
        skip = user.is_admin and getattr(view, MANAGES_KIN_ACCESS, False)
        named = await kins_named(platform, skip_path_kin=skip)
        named.append((await kins_given(), NO_SUCH_KIN))
        for kin_ids, answer in named:
            for kin_id in kin_ids:
                if not await may_use(platform, user, kin_id):
                    raise ApiError(404, "not_found", answer)


def usable(user: AccountView, items: Iterable[T], *kin_ids: Callable[[T], str | None]) -> list[T]:
    """The items (tasks, crons, webhooks…) whose Kins ``user`` may use, in order: each of
    ``kin_ids`` gives one Kin an item belongs to."""
    platform = current_platform()
    kept = []
    for item in items:
        named = [kin_id for get in kin_ids if (kin_id := get(item)) is not None]
        if len(usable_ids(platform, user, named)) == len(named):
            kept.append(item)
    return kept


def hidden_from(user: AccountView) -> frozenset[str]:
    """The Kins (and sub-Kin sessions) restricted to other people: what a list query leaves
    out before its limit, so that a person's page is full of what they may see."""
    restricted = current_platform().kin_access.restricted()
    return frozenset(kin_id for kin_id, members in restricted.items() if user.id not in members)

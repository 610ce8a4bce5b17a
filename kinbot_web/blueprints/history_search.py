"""``/api/kins/<id>/history/search``: a person searches a Kin's session, with the same
hybrid search (meaning and words) the Kin's own ``search_history`` tool uses, save that a
message found by meaning alone must be close enough to the query
(``history_search_min_score``): a query nothing is like finds nothing."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import validate_querystring

from kinbot_core.kins.history_window import metas_of
from kinbot_core.memory import HistoryHit
from kinbot_web.app_context import current_platform
from kinbot_web.asked_by import asked_by_person
from kinbot_web.auth import signed_in
from kinbot_web.errors import ApiError

blueprint = Blueprint("history_search", __name__)

#: Characters of a message shown around the first word of the query it contains.
SNIPPET_CHARS = 220
MAX_RESULTS = 50


class HistorySearchQuery(BaseModel):
    q: str = Field("", max_length=500)
    #: Results (1 to 50).
    limit: int = Field(20, ge=1, le=MAX_RESULTS)


def snippet(content: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``content`` on one line, around the first word of
    ``query`` it contains (its start when none does: a match by meaning), with "…" where it
    was cut."""
    text = " ".join(content.split())
    if len(text) <= width:
        return text
    words = [word for word in re.findall(r"\w+", query.lower()) if len(word) > 1]
    lowered = text.lower()
    found = [index for word in words if (index := lowered.find(word)) >= 0]
    start = max(0, min(found) - width // 3) if found else 0
    start = min(start, len(text) - width)
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    end = start + width
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def readable(hit: HistoryHit, meta: dict[str, object] | None) -> str:
    """What a person reads of a found message: a task's or a cron run's end by its result
    (the text the model reads names the task by its id)."""
    if meta and "task_title" in meta:
        return str(meta.get("result") or meta.get("error") or meta["task_title"])
    return hit.content


def _result(hit: HistoryHit, query: str, meta: dict[str, object] | None) -> dict[str, object]:
    return {
        "message_id": hit.message_id,
        "role": hit.role,
        "sender_name": hit.sender_name,
        "snippet": snippet(readable(hit, meta), query),
        "created_at": hit.created_at,
    }


@blueprint.get("/api/kins/<kin_id>/history/search")
@signed_in
@validate_querystring(HistorySearchQuery)
async def search_history(kin_id: str, query_args: HistorySearchQuery) -> dict[str, object]:
    """Messages of the Kin's session (users' and the Kin's) matching ``?q=``, best first,
    each with a snippet; open one in context with ``GET /api/kins/<id>/messages?around=``."""
    query = query_args.q.strip()
    if not query:
        raise ApiError(400, "invalid_request", "Say what to search for (q).")
    platform = current_platform()
    await platform.kins.get(kin_id)  # a Kin's session, as its chat shows it (sub-Kins: 404)
    with asked_by_person(kin_id):  # the query's embedding counts against the Kin and them
        hits = await platform.memory.search_history(
            kin_id,
            query,
            limit=query_args.limit,
            min_similarity=platform.settings.history_search_min_score,
        )
    metas = await metas_of(platform.db, kin_id, [hit.message_id for hit in hits])
    return {"results": [_result(hit, query, metas.get(hit.message_id)) for hit in hits]}

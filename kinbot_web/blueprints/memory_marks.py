"""``/api/kins/<id>/memories/<memory_id>``: a person pins or archives one of a Kin's memories
(``kinbot_plugins.memory.injection``), and the usage figures the memories list shows."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from quart import Blueprint
from quart_schema import validate_request

from kinbot_core.memory import Memory
from kinbot_web.app_context import current_platform
from kinbot_web.auth import signed_in
from kinbot_web.blueprints.schemas import row_id_in_path
from kinbot_web.errors import ApiError

blueprint = Blueprint("memory_marks", __name__)

#: The figures of a memory never used.
NEVER_USED = {
    "injected_count": 0,
    "recalled_count": 0,
    "last_injected_at": None,
    "last_recalled_at": None,
}


class MemoryMarksIn(BaseModel):
    #: Always injected into the Kin's prompt (within the budget, first).
    pinned: bool | None = None
    #: Never injected nor recalled; ``false`` restores it.
    archived: bool | None = None


def with_usage(memories: list[Memory], usage: dict[int, Any]) -> list[dict[str, Any]]:
    """The memories as the API shows them, each with its ``usage`` figures."""
    return [
        {**memory.to_dict(), "usage": usage[memory.id].to_dict() if memory.id in usage
         else dict(NEVER_USED)}
        for memory in memories
    ]  # fmt: skip


@blueprint.patch("/api/kins/<kin_id>/memories/<memory_id>")
@signed_in
@validate_request(MemoryMarksIn)
async def mark_memory(kin_id: str, memory_id: str, data: MemoryMarksIn) -> dict[str, object]:
    """Pin or unpin, archive or restore one of the Kin's memories."""
    number = row_id_in_path(memory_id)
    if number is None:
        raise ApiError(404, "not_found", "No such memory.")
    platform = current_platform()
    await platform.kins.get(kin_id)
    memory = await platform.memory.mark(kin_id, number, pinned=data.pinned, archived=data.archived)
    usage = await platform.memory.usage(kin_id)
    return {"memory": with_usage([memory], usage)[0]}

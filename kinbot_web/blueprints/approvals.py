"""Tool approvals (docs/api.md "Tool approvals"): the requests waiting in a Kin's chat and
the decisions on them (anyone who may use the Kin allows once or declines; "always", which
sets the Kin's rule, is an administrator's), and the administrators' rules of which
tools ask first, platform-wide or for one Kin."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import validate_request

from kinbot_core.approvals import ApprovalNotFound, ApprovalView
from kinbot_core.approvals.catalog import all_tools, tools_of
from kinbot_core.kins.access import may_use
from kinbot_core.kins.service import KinError, KinNotFound
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in

blueprint = Blueprint("approvals", __name__)

#: A tool's name as the models see it (MCP tools: ``<server>__<tool>``).
TOOL_NAME = r"^[A-Za-z0-9_.:-]{1,128}$"


class DecisionIn(BaseModel):
    decision: Literal["allow_once", "always", "decline"]
    #: Why it is declined, given to the Kin as the call's result (decline only).
    reason: str | None = Field(None, max_length=2000)


class RuleIn(BaseModel):
    #: ``ask``: a person approves each call; ``allow`` (per Kin): never asks, over a
    #: platform-wide ``ask``; ``null``: no rule of its own.
    mode: Literal["ask", "allow"] | None


def _tool_name(name: str) -> str:
    if not re.fullmatch(TOOL_NAME, name):
        raise KinError("That is not a tool name.", code="tool_name_invalid")
    return name


async def _usable_kin(kin_id: str) -> None:
    """404 unless the signed-in person may use the Kin (a restricted Kin is invisible)."""
    platform = current_platform()
    if not await may_use(platform, current_user(), kin_id):
        raise KinNotFound("There is no such Kin.")
    await platform.kins.get(kin_id)


async def _usable_approval(approval_id: str) -> ApprovalView:
    platform = current_platform()
    if len(approval_id) > 64:
        raise ApprovalNotFound("There is no such approval request.")
    approval = await platform.approvals.get(approval_id)
    if not await may_use(platform, current_user(), approval.kin_id):
        raise ApprovalNotFound("There is no such approval request.")
    return approval


@blueprint.get("/api/kins/<kin_id>/approvals")
@signed_in
async def pending_approvals(kin_id: str) -> dict[str, object]:
    """The Kin's tool calls waiting for a person's decision."""
    await _usable_kin(kin_id)
    pending = await current_platform().approvals.pending(kin_id)
    return {"approvals": [approval.to_dict() for approval in pending]}


@blueprint.post("/api/approvals/<approval_id>/decision")
@signed_in
@validate_request(DecisionIn)
async def decide(approval_id: str, data: DecisionIn) -> dict[str, object]:
    """Allow once, always allow for this Kin (administrators only: it sets the Kin's rule;
    403 ``approval_always_admin_only`` for anyone else), or decline (with a reason the Kin
    receives); the waiting turn resumes. 409 ``approval_decided`` when it was already
    answered."""
    await _usable_approval(approval_id)
    user = current_user()
    decided = await current_platform().approvals.decide(
        approval_id,
        data.decision,
        user_id=user.id,
        reason=data.reason,
        may_set_rules=user.is_admin,
    )
    return {"approval": decided.to_dict()}


@blueprint.get("/api/approval-rules")
@admin_only
async def platform_rules() -> dict[str, object]:
    """The platform-wide rules and every tool offered to some Kin."""
    platform = current_platform()
    return {"rules": await platform.approvals.rules(None), "tools": await all_tools(platform)}


@blueprint.put("/api/approval-rules/<tool_name>")
@admin_only
@validate_request(RuleIn)
async def set_platform_rule(tool_name: str, data: RuleIn) -> dict[str, object]:
    """Set (``ask``) or remove (``null``) the platform-wide rule of a tool."""
    if data.mode == "allow":
        raise KinError(
            "Platform-wide, a tool either asks or has no rule.", code="approval_mode_invalid"
        )
    platform = current_platform()
    await platform.approvals.set_rule(None, _tool_name(tool_name), data.mode, current_user().id)
    return {"rules": await platform.approvals.rules(None)}


@blueprint.get("/api/kins/<kin_id>/approval-rules")
@admin_only
async def kin_rules(kin_id: str) -> dict[str, object]:
    """The Kin's own rules, the platform-wide ones, and the tools offered to it."""
    platform = current_platform()
    kin = await platform.kins.get(kin_id)
    return {
        "rules": await platform.approvals.rules(kin_id),
        "platform_rules": await platform.approvals.rules(None),
        "tools": await tools_of(platform, kin),
    }


@blueprint.put("/api/kins/<kin_id>/approval-rules/<tool_name>")
@admin_only
@validate_request(RuleIn)
async def set_kin_rule(kin_id: str, tool_name: str, data: RuleIn) -> dict[str, object]:
    """Set (``ask``, ``allow``) or remove (``null``) the Kin's own rule of a tool."""
    platform = current_platform()
    await platform.approvals.set_rule(kin_id, _tool_name(tool_name), data.mode, current_user().id)
    return {"rules": await platform.approvals.rules(kin_id)}

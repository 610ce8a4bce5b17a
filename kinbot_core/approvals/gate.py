"""Where a turn meets approvals: before a tool call runs (``check``), and when a waiting
turn resumes (``unanswered_calls``: the calls of its last step that have no result yet)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from hookspecs import HookVeto, NeedsApproval
from hookspecs.types import KinRef, ToolCall
from kinbot_core.approvals.notice import tell_the_asker
from kinbot_core.db.models import MessageRecord
from kinbot_core.providers import ToolCallEvent

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

#: What the model is told of a call a person declined (``{reason}``: theirs, if given).
DECLINED = "A person declined this call; it did not run."
DECLINED_BECAUSE = "A person declined this call; it did not run. Their reason: {reason}"
EXPIRED = "Nobody answered the request for approval in time; the call did not run."
#: A sub-Kin's call of a tool that needs approval: nobody watches a sub-Kin's session.
NOT_IN_TASK = (
    "This tool needs a person's approval, which a sub-Kin cannot ask for; the call did not "
    "run. Report back and let your parent Kin make the call."
)


class ApprovalPending(Exception):
    """The call waits for a person's decision (the request is stored): the turn ends waiting."""


class ApprovalRefused(Exception):
    """A person declined the call, or nobody answered in time: its message is the result
    the model reads; ``meta`` what the chat shows of it in the reader's language."""

    def __init__(self, status: str, reason: str | None = None) -> None:
        texts = {"declined": DECLINED, "expired": EXPIRED, "not_in_task": NOT_IN_TASK}
        super().__init__(DECLINED_BECAUSE.format(reason=reason) if reason else texts[status])
        self.status = status
        self.reason = reason

    def meta(self) -> dict[str, Any] | None:
        """``{"approval": {"status": "declined" | "expired", "reason"?}}`` (kins.meta); a
        sub-Kin's call that could not ask shows as any failed call."""
        if self.status == "not_in_task":
            return None
        shown: dict[str, Any] = {"status": self.status}
        if self.reason:
            shown["reason"] = self.reason
        return {"approval": shown}


async def check(
    platform: Platform, kin: KinRef, owner_id: str, trigger_id: int, call: ToolCall
) -> BaseException | None:
    """Whether ``call`` may run now: ``None`` when it may, else the exception whose words the
    model receives (a ``HookVeto`` or an ``ApprovalRefused``). Raises ``ApprovalPending``
    after storing a request when a person must decide first: the administrators' rule for
    the tool (the Kin's, else platform-wide; ``owner_id``: the Kin a sub-Kin belongs to)
    or a ``before_tool_call`` plugin raising ``NeedsApproval``."""
    approvals = platform.approvals
    decided = await approvals.decision_for(trigger_id, call.id)
    if decided is not None and decided.status == "declined":
        return ApprovalRefused("declined", decided.decline_reason)
    if decided is not None and decided.status == "expired":
        return ApprovalRefused("expired")
    if decided is not None and decided.status == "pending":
        raise ApprovalPending(decided.id)  # a turn resumed early: it waits on
    approved = decided is not None  # allowed once, or always
    asked: NeedsApproval | None = None
    try:
        await platform.hooks.call("before_tool_call", kin=kin, call=call, approved=approved)
    except NeedsApproval as ask:
        asked = ask
    except HookVeto as veto:
        return veto
    if approved:
        return None
    if asked is None and not await approvals.needs_approval(owner_id, call.name):
        return None
    if kin.task_id is not None:
        return ApprovalRefused("not_in_task")
    masked = platform.vault.masker().mask_data(call.arguments)
    request = await approvals.request(
        kin.id,
        trigger_id,
        call.id,
        call.name,
        masked,
        reason=asked.reason if asked is not None else None,
        asked_by=asked.plugin if asked is not None else None,
    )
    await tell_the_asker(platform, kin)  # only a main session asks (above)
    raise ApprovalPending(request.id)


def refusal_text(refusal: BaseException) -> str:
    """What the model receives for a refused call."""
    if isinstance(refusal, HookVeto):
        return f"The call was refused ({refusal.plugin}): {refusal.reason}"
    return str(refusal)


async def unanswered_calls(platform: Platform, trigger_id: int) -> list[ToolCallEvent]:
    """The tool calls of the turn's newest step (its latest assistant message, superseded
    ones left out) that have no result yet: what a resumed turn runs first, with the secrets
    the turn read back in their arguments (stored masked)."""

    def read() -> list[ToolCallEvent]:
        outputs = (MessageRecord.turn_of == trigger_id) & ~MessageRecord.superseded
        step = (
            MessageRecord.select()
            .where(outputs & (MessageRecord.role == "assistant"))
            .order_by(MessageRecord.id.desc())
            .first()
        )
        if step is None or not step.tool_calls:
            return []
        answered = {
            row.tool_call_id
            for row in MessageRecord.select(MessageRecord.tool_call_id).where(
                outputs & (MessageRecord.role == "tool") & (MessageRecord.id > step.id)
            )
        }
        return [
            ToolCallEvent(
                id=call["id"],
                name=call["name"],
                arguments=platform.vault.reveal_arguments(
                    trigger_id, dict(call.get("arguments") or {})
                ),
                extra=dict(call.get("extra") or {}),
            )
            for call in json.loads(step.tool_calls)
            if call["id"] not in answered
        ]

    return await platform.db.read(read)

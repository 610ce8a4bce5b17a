"""Tools that need a person's approval: the administrators' rules, and the requests a Kin's
calls make. A request is a row in the database; the turn that made it ends waiting (its
message's status ``waiting``), and a decision or the request's expiry queues that message
again, so a restart in between changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import (
    KinRecord,
    MessageRecord,
    ToolApprovalRecord,
    ToolApprovalRuleRecord,
)
from kinbot_core.kins.service import USER_PRIORITY, KinError

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: What a person may decide: run the call once, run it and every later call of the tool by
#: this Kin, or refuse it.
DECISIONS = ("allow_once", "always", "decline")
#: A decision's stored status.
STATUS_OF = {"allow_once": "allowed", "always": "always", "decline": "declined"}
#: A rule's modes: the tool asks first, or it never does (a Kin's rule over a platform one).
MODES = ("ask", "allow")
#: Longest wait between two looks for expired requests (the clock may be moved meanwhile).
SWEEP_INTERVAL = 60.0


class ApprovalNotFound(KinError):
    """No such request (or the person may not use its Kin)."""

    code = "not_found"
    status = 404


class ApprovalAlwaysForbidden(KinError):
    """Only an administrator may answer ``always``: it sets the Kin's rule for the tool,
    which is theirs to choose (anyone who may use the Kin allows once or declines)."""

    code = "approval_always_admin_only"
    status = 403


class ApprovalDecided(KinError):
    """The request was already decided (by someone else, or it expired)."""

    code = "approval_decided"
    status = 409


@dataclass(frozen=True)
class ApprovalView:
    """A request for approval as the API gives it."""

    id: str
    kin_id: str
    trigger_id: int
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    reason: str | None
    asked_by: str | None
    status: str
    decline_reason: str | None
    decided_by: str | None
    created_at: float
    expires_at: float
    decided_at: float | None

    @classmethod
    def of(cls, row: ToolApprovalRecord) -> ApprovalView:
        data = row.__data__
        return cls(
            id=row.id,
            kin_id=data["kin"],
            trigger_id=data["trigger"],
            tool_call_id=row.tool_call_id,
            tool_name=row.tool_name,
            arguments=json.loads(row.arguments),
            reason=row.reason,
            asked_by=row.asked_by,
            status=row.status,
            decline_reason=row.decline_reason,
            decided_by=data.get("decided_by"),
            created_at=row.created_at,
            expires_at=row.expires_at,
            decided_at=row.decided_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kin_id": self.kin_id,
            "turn": self.trigger_id,
            "tool_call_id": self.tool_call_id,
            "tool_name": self.tool_name,
            "arguments": self.arguments,
            "reason": self.reason,
            "status": self.status,
            "decline_reason": self.decline_reason,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "decided_at": self.decided_at,
        }


class ApprovalService:
    """Rules and requests of tool approvals, and the timer that expires requests."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self._db = platform.db
        self._live = platform.live
        self._sweeper: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._unsubscribe: Any = None

    # -- rules -----------------------------------------------------------------------------

    async def rules(self, kin_id: str | None) -> dict[str, str]:
        """The rules of one Kin (``kin_id``) or the platform-wide ones: tool name → mode."""
        scope = (
            ToolApprovalRuleRecord.kin.is_null()
            if kin_id is None
            else ToolApprovalRuleRecord.kin == kin_id
        )
        rows = await self._db.read(lambda: list(ToolApprovalRuleRecord.select().where(scope)))
        return {row.tool_name: row.mode for row in rows}

    async def set_rule(
        self, kin_id: str | None, tool_name: str, mode: str | None, user_id: str | None
    ) -> None:
        """Set the rule of ``tool_name`` for one Kin or platform-wide; ``mode`` ``None``
        removes it (a Kin then follows the platform-wide rule)."""
        if mode is not None and mode not in MODES:
            raise KinError(f"Unknown approval mode {mode!r}.", code="approval_mode_invalid")
        if kin_id is not None:
            await self._platform.kins.get(kin_id)

        def write() -> None:
            _write_rule(kin_id, tool_name, mode, user_id)

        await self._db.write(write)

    async def needs_approval(self, kin_id: str, tool_name: str) -> bool:
        """Whether a call of ``tool_name`` by Kin ``kin_id`` waits for a person: the Kin's
        rule, else the platform-wide one; without either, it does not."""

        def lookup() -> list[tuple[str | None, str]]:
            query = ToolApprovalRuleRecord.select(
                ToolApprovalRuleRecord.kin, ToolApprovalRuleRecord.mode
            ).where(
                (ToolApprovalRuleRecord.tool_name == tool_name)
                & (ToolApprovalRuleRecord.kin.is_null() | (ToolApprovalRuleRecord.kin == kin_id))
            )
            return [(row.__data__["kin"], row.mode) for row in query]

        found = dict(await self._db.read(lookup))
        return (found.get(kin_id) or found.get(None)) == "ask"

    # -- requests --------------------------------------------------------------------------

    async def decision_for(self, trigger_id: int, tool_call_id: str) -> ApprovalView | None:
        """The request a call of the turn of ``trigger_id`` made, if it made one."""
        row = await self._db.read(
            lambda: ToolApprovalRecord.get_or_none(
                (ToolApprovalRecord.trigger == trigger_id)
                & (ToolApprovalRecord.tool_call_id == tool_call_id)
            )
        )
        return ApprovalView.of(row) if row is not None else None

    async def request(
        self,
        kin_id: str,
        trigger_id: int,
        call_id: str,
        tool_name: str,
        arguments: dict[str, Any],
        *,
        reason: str | None = None,
        asked_by: str | None = None,
    ) -> ApprovalView:
        """Ask for approval of a call, and leave its turn waiting: in one transaction the
        request is stored, the turn's message marked ``waiting`` and the Kin idle."""
        now = self._platform.clock.time()
        expires_at = now + self._platform.settings.tool_approval_timeout_seconds

        def write() -> ToolApprovalRecord:
            row = ToolApprovalRecord.create(
                id=uuid.uuid4().hex,
                kin=kin_id,
                trigger=trigger_id,
                tool_call_id=call_id,
                tool_name=tool_name,
                arguments=json.dumps(arguments, default=str),
                reason=reason,
                asked_by=asked_by,
                created_at=now,
                expires_at=expires_at,
            )
            MessageRecord.update(status="waiting").where(MessageRecord.id == trigger_id).execute()
            KinRecord.update(state="idle").where(KinRecord.id == kin_id).execute()
            return row

        view = ApprovalView.of(await self._db.write(write))
        self._live.publish(
            "message.status", {"kin_id": kin_id, "id": trigger_id, "status": "waiting"}
        )
        self._live.publish(
            "kin.state", {"kin_id": kin_id, "state": "idle", "error": None, "error_code": None}
        )
        self._live.publish("approval.requested", {"kin_id": kin_id, "approval": view.to_dict()})
        self._wake.set()
        return view

    async def pending(self, kin_id: str) -> list[ApprovalView]:
        """The Kin's requests waiting for a decision, oldest first."""
        rows = await self._db.read(
            lambda: list(
                ToolApprovalRecord.select()
                .where(
                    (ToolApprovalRecord.kin == kin_id) & (ToolApprovalRecord.status == "pending")
                )
                .order_by(ToolApprovalRecord.created_at)
            )
        )
        return [ApprovalView.of(row) for row in rows]

    async def waiting(self, kin_id: str) -> bool:
        """Whether a turn of the Kin waits for a decision (its queue waits with it)."""
        return bool(
            self._db.read_kept(  # asked before every turn
                "select 1 from tool_approval where kin_id = ? and status = 'pending' limit 1",
                (kin_id,),
                [("tool_approval", kin_id)],
            )
        )

    async def get(self, approval_id: str) -> ApprovalView:
        """One request; ``ApprovalNotFound`` for an unknown id."""
        row = await self._db.read(
            lambda: ToolApprovalRecord.get_or_none(ToolApprovalRecord.id == approval_id)
        )
        if row is None:
            raise ApprovalNotFound("There is no such approval request.")
        return ApprovalView.of(row)

    async def decide(
        self,
        approval_id: str,
        decision: str,
        *,
        user_id: str,
        reason: str | None = None,
        may_set_rules: bool = False,
    ) -> ApprovalView:
        """Decide a pending request (``DECISIONS``) and queue its turn again. ``always``
        also sets the Kin's rule for the tool to ``allow``, so it needs ``may_set_rules``
        (an administrator deciding): ``ApprovalAlwaysForbidden`` otherwise.
        ``ApprovalDecided`` when it was already decided or expired."""
        if decision not in DECISIONS:
            raise KinError(f"Unknown decision {decision!r}.", code="approval_decision_invalid")
        if decision == "always" and not may_set_rules:
            raise ApprovalAlwaysForbidden(
                "Only an administrator can always allow a tool: allow it once or decline."
            )
        now = self._platform.clock.time()

        def write() -> ToolApprovalRecord:
            row = ToolApprovalRecord.get_or_none(ToolApprovalRecord.id == approval_id)
            if row is None:
                raise ApprovalNotFound("There is no such approval request.")
            if row.status != "pending":
                raise ApprovalDecided("This request was already answered.")
            row.status = STATUS_OF[decision]
            row.decline_reason = (reason or "").strip() or None if decision == "decline" else None
            row.decided_by = user_id  # type: ignore[assignment]  # a foreign key by its id
            row.decided_at = now
            row.save()
            if decision == "always":
                _write_rule(row.__data__["kin"], row.tool_name, "allow", user_id)
            _requeue(row.__data__["trigger"])
            return row

        view = ApprovalView.of(await self._db.write(write))
        self._after_decision(view)
        return view

    async def expire_due(self) -> list[ApprovalView]:
        """Expire every pending request whose time is up and queue their turns again (the
        model is told the call did not run). Returns those expired."""
        now = self._platform.clock.time()

        def write() -> list[ToolApprovalRecord]:
            rows = list(
                ToolApprovalRecord.select().where(
                    (ToolApprovalRecord.status == "pending")
                    & (ToolApprovalRecord.expires_at <= now)
                )
            )
            for row in rows:
                row.status = "expired"
                row.decided_at = now
                row.save()
                _requeue(row.__data__["trigger"])
            return rows

        expired = [ApprovalView.of(row) for row in await self._db.write(write)]
        for view in expired:
            self._after_decision(view)
        if expired:
            logger.info("%d tool approval request(s) expired", len(expired))
        return expired

    def _after_decision(self, view: ApprovalView) -> None:
        self._live.publish(
            "approval.decided", {"kin_id": view.kin_id, "id": view.id, "status": view.status}
        )
        self._platform.kins.requeued(view.kin_id, view.trigger_id)

    # -- the expiry timer ------------------------------------------------------------------

    async def start(self) -> None:
        """Expire what expired while the server was stopped, then keep watching."""
        await self.expire_due()
        self._unsubscribe = self._platform.clock.subscribe(self._wake.set)
        self._sweeper = asyncio.get_running_loop().create_task(
            self._sweep(), name="approval-expiry"
        )

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)

    async def _sweep(self) -> None:
        while True:
            timeout = await self._next_wait()  # before the wait is made: stopping cancels here
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=timeout)
            self._wake.clear()
            try:
                await self.expire_due()
            except Exception:
                logger.exception("expiring tool approval requests failed")

    async def _next_wait(self) -> float:
        """Seconds until the next pending request expires (at most ``SWEEP_INTERVAL``)."""
        soonest = await self._db.read(
            lambda: (
                ToolApprovalRecord.select(ToolApprovalRecord.expires_at)
                .where(ToolApprovalRecord.status == "pending")
                .order_by(ToolApprovalRecord.expires_at)
                .scalar()
            )
        )
        if soonest is None:
            return SWEEP_INTERVAL
        return min(max(float(soonest) - self._platform.clock.time(), 0.0), SWEEP_INTERVAL)


def _write_rule(kin_id: str | None, tool_name: str, mode: str | None, user_id: str | None) -> None:
    """Set or remove one rule (on the writer thread)."""
    rule = ToolApprovalRuleRecord
    scope = rule.kin.is_null() if kin_id is None else rule.kin == kin_id
    ToolApprovalRuleRecord.delete().where(
        scope & (ToolApprovalRuleRecord.tool_name == tool_name)
    ).execute()
    if mode is not None:
        ToolApprovalRuleRecord.create(
            kin=kin_id, tool_name=tool_name, mode=mode, updated_by=user_id, updated_at=time.time()
        )


def _requeue(trigger_id: int) -> None:
    """Queue a waiting turn's message again, ahead of automatic messages (writer thread)."""
    MessageRecord.update(status="queued", priority=USER_PRIORITY, processed_at=None).where(
        (MessageRecord.id == trigger_id) & (MessageRecord.status == "waiting")
    ).execute()

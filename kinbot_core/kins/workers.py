"""One queue worker per Kin: one turn at a time per Kin, every Kin in parallel."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from kinbot_core.kins import meta
from kinbot_core.kins.claims import Claimed
from kinbot_core.kins.drafts import TurnDraft
from kinbot_core.kins.replies import keep_stopped
from kinbot_core.kins.turn import Turn
from kinbot_core.kins.views import TurnEnd

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)


class KinWorkers:
    """Drains each Kin's queue. A worker sleeps until a message is enqueued for its Kin; one
    sleeping on an empty queue is handed the next message by the transaction storing it
    (``kinbot_core.kins.claims``)."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._turns: dict[str, asyncio.Task[str | None]] = {}
        self._drafts: dict[str, TurnDraft] = {}
        #: Kins whose turn was stopped on purpose, and whether its reply so far is kept.
        self._stopped_by_user: dict[str, bool] = {}
        self._retired: set[str] = set()
        self._stopping = False
        #: Kins whose worker sleeps on an empty queue.
        self._idle: set[str] = set()
        #: Kins a message is being stored for, taken for their worker (``take_on_arrival``).
        self._arriving: set[str] = set()
        #: What those transactions took, until each worker picks it up.
        self._handed: dict[str, Claimed] = {}

    async def start(self) -> None:
        """Recover turns cut short by the last stop, then the tasks they belong to (before
        any turn runs), then start every Kin's worker."""
        requeued = await self._platform.kins.recover()
        if requeued:
            logger.info("resuming %d queued message(s) after a restart", len(requeued))
        await self._platform.tasks.recover()
        for kin in await self._platform.kins.list_all():
            self.wake(kin.id)
        for kin_id in await self._platform.tasks.running_sessions():
            self.wake(kin_id)  # sub-Kins whose task goes on (an ended one never runs again)

    def retire(self, kin_id: str) -> None:
        """A sub-Kin's task ended: its worker stops once its running turn (if any) is over."""
        self._retired.add(kin_id)
        wake = self._wake.get(kin_id)
        if wake is not None:
            wake.set()

    def wake(self, kin_id: str) -> None:
        """Tell the Kin's worker there is work (starting it if needed)."""
        if self._stopping or kin_id in self._retired:
            return
        self._wake.setdefault(kin_id, asyncio.Event()).set()
        worker = self._workers.get(kin_id)
        if worker is None or worker.done():
            self._workers[kin_id] = asyncio.get_running_loop().create_task(
                self._run(kin_id), name=f"kin-worker:{kin_id}"
            )

    def sleeping(self, kin_id: str) -> bool:
        """Whether the Kin's worker sleeps on an empty queue."""
        return kin_id in self._idle

    def take_on_arrival(self, kin_id: str) -> bool:
        """Whether the message about to be stored for the Kin is taken in the transaction
        that stores it: when its worker sleeps on an empty queue and no other message is
        being taken for it. When ``True``, ``hand`` must follow."""
        if (
            self._stopping
            or kin_id in self._retired
            or not self.sleeping(kin_id)
            or kin_id in self._arriving
        ):
            return False
        self._arriving.add(kin_id)
        return True

    def hand(self, kin_id: str, claimed: Claimed | None) -> None:
        """The transaction that stored a message for the Kin ended, and took ``claimed``
        for its worker (``None``: nothing, or it failed)."""
        self._arriving.discard(kin_id)
        if claimed is not None:
            self._handed[kin_id] = claimed
        self.wake(kin_id)

    def draft(self, kin_id: str) -> dict[str, Any] | None:
        """What the Kin's running turn has streamed and is running but not stored yet, as the
        API gives it (``None`` when no turn runs)."""
        draft = self._drafts.get(kin_id)
        return draft.to_dict() if draft is not None else None

    def alone(self, kin_id: str) -> bool:
        """Whether no turn of another Kin runs now."""
        return not self._turns or (len(self._turns) == 1 and kin_id in self._turns)

    def running(self, kin_id: str) -> bool:
        """Whether a turn of the Kin is running now."""
        turn = self._turns.get(kin_id)
        return turn is not None and not turn.done()

    def stop_turn(self, kin_id: str, *, keep_reply: bool = False) -> bool:
        """Stop the Kin's running turn (its message is marked cancelled). With
        ``keep_reply`` (a member pressed Stop), the text streamed so far is kept as the Kin's
        reply, marked stopped, or a note says the turn was stopped. Returns whether one was
        running."""
        turn = self._turns.get(kin_id)
        if turn is None or turn.done():
            return False
        self._stopped_by_user[kin_id] = keep_reply
        turn.cancel()
        return True

    async def forget(self, kin_id: str) -> None:
        """A Kin was deleted: stop its turn and its worker."""
        self._retired.add(kin_id)  # the worker may swallow one cancellation (a stopped turn)
        self.stop_turn(kin_id)
        worker = self._workers.pop(kin_id, None)
        self._wake.pop(kin_id, None)
        self._handed.pop(kin_id, None)
        if worker is not None:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)

    async def _run(self, kin_id: str) -> None:
        wake = self._wake[kin_id]
        kins = self._platform.kins
        while not self._stopping and kin_id not in self._retired:
            wake.clear()
            claimed = self._handed.pop(kin_id, None)
            if claimed is None:
                if kin_id in self._arriving:
                    await wake.wait()  # the message being stored is taken for this worker
                    continue
                if await self._platform.approvals.waiting(kin_id):
                    await wake.wait()  # a turn waits for a person's decision: the queue with it
                    continue
                claimed = await kins.claim_next(kin_id)
            if claimed is None:
                self._idle.add(kin_id)
                try:
                    await wake.wait()
                finally:
                    self._idle.discard(kin_id)
                continue
            message, kin = claimed.message, claimed.kin
            runner = Turn(self._platform, claimed)
            turn = asyncio.get_running_loop().create_task(
                runner.run(), name=f"kin-turn:{kin_id}:{message.id}"
            )
            self._turns[kin_id] = turn
            self._drafts[kin_id] = runner.draft
            error: str | None = None
            try:
                error = await asyncio.shield(turn)
            except asyncio.CancelledError:
                if kin_id not in self._stopped_by_user:
                    raise  # the platform is stopping: recovery handles the message at next start
                error = "The turn was stopped."
                if self._stopped_by_user[kin_id]:
                    try:
                        await keep_stopped(self._platform, kin, message, runner.draft)
                    except Exception:
                        logger.exception("the stopped reply of Kin %s could not be kept", kin_id)
                await kins.finish(kin_id, TurnEnd(message.id, "cancelled", state="idle"))
            except Exception as exc:  # the turn could not even record its failure
                logger.exception("turn of Kin %s failed", kin_id)
                error = "An internal error stopped the turn."
                await self._record_failure(kin_id, message.id, error, exc)
            finally:
                self._stopped_by_user.pop(kin_id, None)
                self._turns.pop(kin_id, None)
                self._drafts.pop(kin_id, None)
            if kin.task_id is not None:
                try:
                    await self._platform.tasks.turn_ended(kin_id, message.id, error)
                except Exception:
                    logger.exception("the task of sub-Kin %s could not be updated", kin_id)
        if kin_id in self._retired:
            self._workers.pop(kin_id, None)
            self._wake.pop(kin_id, None)

    async def _record_failure(
        self, kin_id: str, trigger_id: int, error: str, exc: BaseException
    ) -> None:
        """A turn that could not record its own failure: an error message (code
        ``internal_error``, the log has the rest) and the warning state."""
        try:
            await self._platform.kins.add_message(
                kin_id,
                role="system",
                source="system",
                sender_name="KinBot",
                content=error,
                is_error=True,
                turn_of=trigger_id,
                meta=meta.failure(exc, str),
            )
        except Exception:
            logger.exception("the failure of Kin %s's turn could not be recorded", kin_id)
        end = TurnEnd(trigger_id, "failed", "error", error=error, error_code=meta.INTERNAL_ERROR)
        await self._platform.kins.finish(kin_id, end)

    async def stop(self, grace: float) -> None:
        """Let running turns finish for up to ``grace`` seconds, then cancel what is left
        (those messages are resumed or marked failed at the next start)."""
        self._stopping = True
        running = [t for t in self._turns.values() if not t.done()]
        if running:
            await asyncio.wait(running, timeout=grace)
        for task in [*self._turns.values(), *self._workers.values()]:
            task.cancel()
        await asyncio.gather(*self._turns.values(), *self._workers.values(), return_exceptions=True)

"""Compacting of Kins' sessions: when a session's context grows past a share of the model's
window, its older exchanges are folded by an LLM into a summary layer. Originals are never
deleted; every summary is a snapshot the user can purge or roll back.

Compacting runs in the background after a turn (never on the Kin's queue): a per-Kin lock,
shared with nothing else, keeps one compacting at a time per Kin, and the new snapshot is
stored only if nothing changed the Kin's summary layer during the summary call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from kinbot_core.compacting.folding import SessionFolding
from kinbot_core.compacting.snapshots import CompactingSnapshots
from kinbot_core.compacting.views import CompactingError, SessionContext, SnapshotView
from kinbot_core.events import Event
from kinbot_core.events.catalogue import KinStateChanged
from kinbot_core.kins import prompt_budget
from kinbot_core.kins.service import KinNotFound, KinView

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: Compactings in a row one background run may do (a long un-compacted session is folded in
#: several summary calls, each within the input budget).
MAX_ROUNDS = 3


class CompactingService(CompactingSnapshots, SessionFolding):
    """Compacting of every Kin's main session (see the module docstring)."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._stopping = False
        #: Per Kin, the size of its context as its provider last counted it (the prompt and
        #: the answer of its last model call), forgotten when the summary layer changes.
        self._reported: dict[str, int] = {}
        #: Per Kin, the estimated size of its last call's system prompt and tools.
        self._stable: dict[str, int] = {}

    # -- what turns use ------------------------------------------------------------------------

    def note_usage(self, kin_id: str, tokens: int) -> None:
        """A model call of the Kin's turn reported its tokens: the provider's own count of the
        context, which the next check uses when it is above the estimate."""
        self._reported[kin_id] = tokens

    def note_prompt(self, kin_id: str, tokens: int) -> None:
        """A turn's call sent about ``tokens`` of stable prompt (its system prompt and tools'
        definitions): the session may fill the window less that (``_limits``)."""
        self._stable[kin_id] = tokens

    def _measured(self, kin_id: str, estimate: int) -> int:
        """The context's size: the provider's last count (less the stable prompt, when a turn
        said how large it was) when higher than the estimate."""
        return max(estimate, self._reported.get(kin_id, 0) - self._stable.get(kin_id, 0))

    async def session(self, kin_id: str, window: int) -> SessionContext:
        """The active summary and the last ``window`` messages after its cut."""

        return SessionContext(*self._platform.kins.windows.read(kin_id, window))

    async def _limits(
        self, kin: KinView, reported: int | None = None
    ) -> tuple[int, int | None, int | None]:
        """The context size, in tokens, that triggers compacting for the Kin, its model's
        window in force (``kinbot_core.kins.prompt_budget.window_for``; ``None`` when unknown:
        then the absolute fallback applies) and the room the window leaves the session (the
        window less the answer's room and the stable prompt; ``None`` when unknown). A
        window the server ``reported`` when it refused a prompt wins when it is smaller
        (``PromptBudget.within``).

        The threshold is the configured share of the window, or that room when smaller (but
        not under ``SESSION_MIN_SHARE`` of the window), so that compacting comes before a
        call would overflow; both in estimated tokens (``prompt_budget.session_limits``)."""
        settings = self._platform.settings
        budget = await prompt_budget.budget_for(self._platform, kin.model)
        budget = budget.within(reported)
        if budget.window.source == "fallback":
            return settings.compacting_threshold_tokens, None, None
        stable = self._stable.get(kin.id, 0)
        share = settings.compacting_threshold_share
        threshold, room = prompt_budget.session_limits(budget, stable, share)
        return threshold, budget.window.tokens, room

    # -- what the UI is told ---------------------------------------------------------------------

    def _published(self, kin_id: str, status: str, **data: Any) -> None:
        payload: dict[str, Any] = {"kin_id": kin_id, "status": status}
        for key, value in data.items():
            payload[key] = value.to_dict() if isinstance(value, SnapshotView) else value
        self._platform.live.publish("kin.compacting", payload)

    # -- background ------------------------------------------------------------------------------

    def on_kin_state(self, event: Event) -> None:
        """Event-bus handler: when a turn ends, check the Kin's session in the background."""
        if isinstance(event, KinStateChanged) and event.state != "thinking":
            self.schedule(event.kin_id)

    def schedule(self, kin_id: str) -> None:
        """Compact the Kin's session in the background if it passed the threshold."""
        if self._stopping:
            return
        task = self._tasks.get(kin_id)
        if task is not None and not task.done():
            self._again.add(kin_id)  # check again once the running one ends
            return
        self._tasks[kin_id] = asyncio.get_running_loop().create_task(
            self._background(kin_id), name=f"kin-compacting:{kin_id}"
        )

    async def _background(self, kin_id: str) -> None:
        while True:
            self._again.discard(kin_id)
            try:
                for _round in range(MAX_ROUNDS):
                    if await self.compact(kin_id) is None:
                        break
            except (CompactingError, KinNotFound):
                pass  # logged and published where it happened, or the Kin is gone
            except Exception:
                logger.exception("compacting of Kin %s failed", kin_id)
            if kin_id not in self._again or self._stopping:
                return

    async def stop(self) -> None:
        """Cancel background compactings (a summary call in flight is simply lost)."""
        self._stopping = True
        tasks = [task for task in self._tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

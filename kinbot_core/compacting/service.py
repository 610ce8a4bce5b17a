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
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookspecs.types import CompactingContext, KinRef, Outcome
from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.compacting.selection import Candidate, choose_cut
from kinbot_core.compacting.summary import SYSTEM_PROMPT, summary_request_text
from kinbot_core.compacting.tokens import (
    estimate_tokens,
    message_tokens,
)
from kinbot_core.db.models import MessageRecord
from kinbot_core.events import Event
from kinbot_core.events.catalogue import KinStateChanged
from kinbot_core.kins import prompt_budget
from kinbot_core.kins.service import KinNotFound, KinView, MessageView
from kinbot_core.kins.session_rows import placed_after, session_size, size_after
from kinbot_core.providers import ChatMessage, ChatRequest, ProviderError, TextDelta
from kinbot_core.providers.light_models import background_model
from kinbot_core.usage import attributed

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: Compactings in a row one background run may do (a long un-compacted session is folded in
#: several summary calls, each within the input budget).
MAX_ROUNDS = 3


class CompactingError(Exception):
    """A compacting request that cannot be done; ``status`` is the HTTP status it maps to."""

    status = 400
    code = "compacting_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SnapshotNotFound(CompactingError):
    status = 404
    code = "not_found"


class NothingToCompact(CompactingError):
    status = 409
    code = "nothing_to_compact"


class CompactingConflict(CompactingError):
    status = 409
    code = "compacting_conflict"


class SummaryFailed(CompactingError):
    """The summary call failed; the previous state is intact."""

    status = 502
    code = "summary_failed"


@dataclass(frozen=True)
class SnapshotView:
    """A compacting snapshot as the API shows it."""

    id: int
    kin_id: str
    kind: str
    summary: str
    through_position: int
    through_message_id: int | None
    messages_folded: int
    tokens_before: int
    summary_tokens: int
    model: str | None
    active: bool
    created_at: float

    @classmethod
    def of(cls, row: CompactingSnapshot) -> SnapshotView:
        return cls(
            id=row.id,
            kin_id=row.__data__["kin"],
            kind=row.kind,
            summary=row.summary,
            through_position=row.through_position,
            through_message_id=row.through_message_id,
            messages_folded=row.messages_folded,
            tokens_before=row.tokens_before,
            summary_tokens=row.summary_tokens,
            model=row.model,
            active=bool(row.active),
            created_at=row.created_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SessionContext:
    """What a turn gives the model of its session: the summary in force (if any) and the
    messages after its cut, oldest first."""

    summary: str | None
    messages: list[MessageView]


@dataclass(frozen=True)
class CompactingState:
    """A Kin's summary layer: the active snapshot, the context's size, the trigger."""

    kin_id: str
    active: SnapshotView | None
    context_tokens: int
    messages_after_cut: int
    threshold_tokens: int
    context_window: int | None
    running: bool
    snapshots: list[SnapshotView]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kin_id": self.kin_id,
            "active": self.active.to_dict() if self.active else None,
            "context_tokens": self.context_tokens,
            "messages_after_cut": self.messages_after_cut,
            "threshold_tokens": self.threshold_tokens,
            "context_window": self.context_window,
            "running": self.running,
            "snapshots": [s.to_dict() for s in self.snapshots],
        }


class CompactingService:
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

    # -- API -----------------------------------------------------------------------------------

    async def state(self, kin_id: str) -> CompactingState:
        """The Kin's summary layer and every snapshot kept, newest first."""
        kin = await self._platform.kins.get(kin_id)

        db = self._platform.db

        def load() -> tuple[CompactingSnapshot | None, tuple[int, int], list[Any]]:
            active = _active(kin_id)
            size = size_after(db, kin_id, active.through_position if active else 0)
            snapshots = list(
                CompactingSnapshot.select()
                .where(CompactingSnapshot.kin == kin_id)
                .order_by(CompactingSnapshot.id.desc())
            )
            return active, size, snapshots

        active, (count, tokens), snapshots = await db.read(load)
        summary = active.summary if active is not None else ""
        threshold, window, _room = await self._limits(kin)
        task = self._tasks.get(kin_id)
        lock = self._locks.get(kin_id)
        return CompactingState(
            kin_id=kin_id,
            active=SnapshotView.of(active) if active else None,
            context_tokens=self._measured(kin_id, estimate_tokens(summary or "") + tokens),
            messages_after_cut=count,
            threshold_tokens=threshold,
            context_window=window,
            running=bool((task and not task.done()) or (lock and lock.locked())),
            snapshots=[SnapshotView.of(row) for row in snapshots],
        )

    async def purge(self, kin_id: str) -> SnapshotView:
        """Start again from a blank summary (the cut stays; originals stay). Recorded as a
        ``purge`` snapshot, so a rollback can undo it."""
        await self._platform.kins.get(kin_id)
        kept = self._platform.settings.compacting_snapshots_kept

        def purge() -> CompactingSnapshot:
            active = _active(kin_id)
            CompactingSnapshot.update(active=False).where(
                (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
            ).execute()
            row = CompactingSnapshot.create(
                kin=kin_id,
                kind="purge",
                summary="",
                through_position=active.through_position if active else 0,
                through_message_id=active.through_message_id if active else None,
                active=True,
                created_at=time.time(),
            )
            _prune(kin_id, kept)
            return row

        view = SnapshotView.of(await self._platform.db.write(purge))
        self._reported.pop(kin_id, None)
        self._published(kin_id, "purged", snapshot=view)
        return view

    async def rollback(self, kin_id: str, snapshot_id: int) -> SnapshotView:
        """Make an earlier (or later) kept snapshot of the Kin the active one."""
        await self._platform.kins.get(kin_id)

        def rollback() -> CompactingSnapshot | None:
            row = CompactingSnapshot.get_or_none(
                (CompactingSnapshot.id == snapshot_id) & (CompactingSnapshot.kin == kin_id)
            )
            if row is None:
                return None
            CompactingSnapshot.update(active=False).where(
                (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
            ).execute()
            row.active = True
            row.save()
            return row

        row = await self._platform.db.write(rollback)
        if row is None:
            raise SnapshotNotFound("No such snapshot for this Kin.")
        view = SnapshotView.of(row)
        self._reported.pop(kin_id, None)
        self._published(kin_id, "rolled_back", snapshot=view)
        return view

    # -- compacting ------------------------------------------------------------------------------

    async def compact(
        self,
        kin_id: str,
        *,
        force: bool = False,
        harder: bool = False,
        window: int | None = None,
    ) -> SnapshotView | None:
        """Fold the older part of the session into a new summary snapshot.

        Without ``force``, only when the context passes the threshold (``None`` otherwise,
        or when nothing can be folded yet). With ``force`` (a user asked), whatever can be
        folded is, or ``NothingToCompact``. ``harder`` (a turn whose prompt the server found
        too long) keeps fewer recent messages verbatim, measured against the ``window`` the
        server said it has (when it said, and it is smaller than the one in force). A failed
        summary call raises ``SummaryFailed`` and changes nothing.
        """
        async with self._locks.setdefault(kin_id, asyncio.Lock()):
            with attributed(kin_id, origin="compacting"):  # the summary counts against the Kin
                return await self._compact(kin_id, force, harder, window)

    async def _compact(
        self, kin_id: str, force: bool, harder: bool, reported: int | None
    ) -> SnapshotView | None:
        platform = self._platform
        settings = platform.settings
        kin = await platform.kins.get(kin_id)

        threshold, window, room = await self._limits(kin, reported)

        if not force:  # this runs after every turn: measure in SQL before loading rows
            kept = platform.kins.windows.size(kin_id)
            summary, count, tokens = kept or session_size(platform.db, kin_id)
            if (
                self._measured(kin_id, estimate_tokens(summary or "") + tokens) <= threshold
                and count <= settings.compacting_max_messages
            ):
                return None

        def load() -> tuple[CompactingSnapshot | None, list[tuple[MessageView, int]]]:
            active = _active(kin_id)
            return active, placed_after(
                platform.db, kin_id, active.through_position if active else 0
            )

        active, placed = await platform.db.read(load)
        if not placed:
            if force:
                raise NothingToCompact("Nothing can be compacted yet: the session is empty.")
            return None
        previous = active.summary if active is not None and active.summary else None
        candidates = [_candidate(view, position) for view, position in placed]
        tokens_before = self._measured(
            kin_id, estimate_tokens(previous or "") + sum(c.tokens for c in candidates)
        )
        summary_max = settings.compacting_summary_max_tokens
        if window is not None:  # the summary call must fit the window too
            summary_max = min(summary_max, prompt_budget.reply_room(window))
        model = await background_model(platform, kin, "compacting")
        # The summary's model may not be the Kin's: its own window bounds its call as well.
        limits = await prompt_budget.background_limits(
            platform, model, SYSTEM_PROMPT.format(name=kin.name), summary_max
        )
        summary_max = limits.reply
        previous_tokens = estimate_tokens(previous or "")
        fold_budget = max(threshold - summary_max - previous_tokens, threshold // 4)
        if limits.prompt is not None:
            fold_budget = min(fold_budget, max(limits.prompt - previous_tokens, 1))
        cut = choose_cut(
            candidates,
            keep_recent=kept_recent(
                candidates, settings.compacting_keep_recent_messages, room, harder=harder
            ),
            budget_tokens=fold_budget,
        )
        if cut == 0:
            if force:
                raise NothingToCompact(
                    "Nothing can be compacted yet: the recent messages stay verbatim."
                )
            return None
        folded = [view for view, _position in placed[:cut]]
        context = CompactingContext(
            message_ids=[str(m.id) for m in folded], previous_summary=previous
        )
        ref = KinRef(id=kin.id, name=kin.name, model=kin.model)
        self._published(kin_id, "running", messages=len(folded))
        await platform.hooks.call("before_compacting", kin=ref, compacting=context)
        started = time.perf_counter()
        try:
            summary = await self._summarise(kin, model, previous, folded, summary_max)
        except SummaryFailed as error:
            await self._after(ref, context, started, error=error)
            logger.warning("compacting of Kin %s failed: %s", kin_id, error.message)
            self._published(kin_id, "failed", error=error.message)
            raise
        through, through_position = placed[cut - 1]

        def store() -> CompactingSnapshot | None:
            current = _active(kin_id)
            if (current.id if current else None) != (active.id if active else None):
                return None  # a purge or rollback happened during the summary call
            redacting = (
                _after_cut(kin_id, active.through_position if active else 0)
                .where(
                    (MessageRecord.position <= through_position) & MessageRecord.redaction_pending
                )
                .exists()
            )
            if redacting:
                return None
            CompactingSnapshot.update(active=False).where(
                (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
            ).execute()
            row = CompactingSnapshot.create(
                kin=kin_id,
                kind="summary",
                summary=summary,
                through_position=through_position,
                through_message_id=through.id,
                messages_folded=len(folded),
                tokens_before=tokens_before,
                summary_tokens=estimate_tokens(summary),
                model=model,
                active=True,
                created_at=time.time(),
            )
            _prune(kin_id, settings.compacting_snapshots_kept)
            return row

        row = await platform.db.write(store)
        if row is None:
            conflict = CompactingConflict(
                "The summary layer changed during the compacting (a purge, a rollback or a "
                "redaction request); nothing was stored."
            )
            await self._after(ref, context, started, error=conflict)
            self._published(kin_id, "failed", error=conflict.message)
            raise conflict
        self._reported.pop(kin_id, None)
        await self._after(ref, context, started, result=summary)
        view = SnapshotView.of(row)
        logger.info("Kin %s compacted: %d messages folded", kin_id, len(folded))
        self._published(kin_id, "done", snapshot=view)
        return view

    async def _summarise(
        self,
        kin: KinView,
        model: str,
        previous: str | None,
        folded: list[MessageView],
        max_tokens: int,
    ) -> str:
        request = ChatRequest(
            model=model,
            system=SYSTEM_PROMPT.format(name=kin.name),
            messages=(
                ChatMessage(role="user", content=summary_request_text(previous, folded, kin.name)),
            ),
            max_tokens=max_tokens,
        )
        parts: list[str] = []
        try:
            async for event in self._platform.providers.chat(model, request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
        except ProviderError as error:
            raise SummaryFailed(f"The summary call failed: {error.message}") from error
        summary = "".join(parts).strip()
        if not summary:
            raise SummaryFailed("The summary call returned no text.")
        return summary

    async def _after(
        self,
        kin: KinRef,
        context: CompactingContext,
        started: float,
        *,
        result: str | None = None,
        error: BaseException | None = None,
    ) -> None:
        outcome = Outcome(duration=time.perf_counter() - started, result=result, error=error)
        await self._platform.hooks.call(
            "after_compacting", kin=kin, compacting=context, outcome=outcome
        )

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


# -- queries (run on database threads) -----------------------------------------------------------


def _active(kin_id: str) -> CompactingSnapshot | None:
    row: CompactingSnapshot | None = CompactingSnapshot.get_or_none(
        (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
    )
    return row


def _after_cut(kin_id: str, position: int) -> Any:
    """The Kin's messages placed in the conversation after ``position``, oldest first (not
    the ones a retry superseded: they are no longer part of it)."""
    return (
        MessageRecord.select()
        .where(
            (MessageRecord.kin == kin_id)
            & MessageRecord.position.is_null(False)
            & (MessageRecord.position > position)
            & ~MessageRecord.superseded
        )
        .order_by(MessageRecord.position)
    )


def _prune(kin_id: str, kept: int) -> None:
    """Keep the ``kept`` newest snapshots of the Kin, and the active one whatever its age."""
    old = [
        row.id
        for row in CompactingSnapshot.select(CompactingSnapshot.id, CompactingSnapshot.active)
        .where(CompactingSnapshot.kin == kin_id)
        .order_by(CompactingSnapshot.id.desc())
        .offset(kept)
        if not row.active
    ]
    if old:
        CompactingSnapshot.delete().where(CompactingSnapshot.id.in_(old)).execute()


def kept_recent(
    candidates: list[Candidate], setting: int, room: int | None, *, harder: bool = False
) -> int:
    """How many recent messages a compacting keeps verbatim: the setting, or fewer when they
    would not leave the rest of the window's ``room`` free (they may fill half of it, a
    quarter when compacting ``harder``; at least the last one or two). Compacting ``harder``
    keeps whole exchanges only: what it keeps starts at a person's message, fewer kept
    rather than more (a cut lands only before one: keeping ``[answer, question]`` would
    fold nothing)."""
    if room is None and not harder:
        return setting
    limit = (room or 0) // (4 if harder else 2)
    kept, tokens = 0, 0
    for candidate in reversed(candidates):
        tokens += candidate.tokens
        if kept >= setting or tokens > limit:
            break
        kept += 1
    if not harder:
        return max(kept, 2)
    starts = [n for n in range(1, kept + 1) if candidates[-n].role == "user"]
    return max(starts[-1] if starts else kept, 1)


def _candidate(view: MessageView, position: int) -> Candidate:
    return Candidate(
        id=view.id,
        position=position,
        role=view.role,
        tokens=message_tokens(view.content, view.tool_calls),
        tool_calls=view.tool_calls,
        tool_call_id=view.tool_call_id,
        redaction_pending=view.redaction_pending,
    )

"""One compacting of a Kin's session: measured against its threshold, the older exchanges
chosen and folded by the summary call, the new snapshot stored unless the summary layer
changed meanwhile, the hooks called and the UI told at each step."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from hookspecs.types import CompactingContext, KinRef, Outcome
from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.compacting.selection import Candidate, choose_cut
from kinbot_core.compacting.snapshots import active_snapshot, prune_snapshots
from kinbot_core.compacting.summary import SYSTEM_PROMPT, summary_request_text
from kinbot_core.compacting.tokens import estimate_tokens, message_tokens
from kinbot_core.compacting.views import (
    CompactingConflict,
    NothingToCompact,
    SnapshotView,
    SummaryFailed,
)
from kinbot_core.db.models import MessageRecord
from kinbot_core.kins import prompt_budget, session_rows
from kinbot_core.kins.service import KinView, MessageView
from kinbot_core.providers import ChatMessage, ChatRequest, ProviderError, TextDelta
from kinbot_core.providers.light_models import background_model
from kinbot_core.usage import attributed

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)


class SessionFolding:
    """The folding half of ``CompactingService``, which mixes it in and holds what it uses."""

    _platform: Platform
    _locks: dict[str, asyncio.Lock]
    _reported: dict[str, int]

    if TYPE_CHECKING:

        def _measured(self, kin_id: str, estimate: int) -> int: ...

        async def _limits(
            self, kin: KinView, reported: int | None = None
        ) -> tuple[int, int | None, int | None]: ...

        def _published(self, kin_id: str, status: str, **data: Any) -> None: ...

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
            summary, count, tokens = kept or session_rows.session_size(platform.db, kin_id)
            if (
                self._measured(kin_id, estimate_tokens(summary or "") + tokens) <= threshold
                and count <= settings.compacting_max_messages
            ):
                return None

        def load() -> tuple[CompactingSnapshot | None, list[tuple[MessageView, int]]]:
            active = active_snapshot(kin_id)
            return active, session_rows.placed_after(
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
            current = active_snapshot(kin_id)
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
            prune_snapshots(kin_id, settings.compacting_snapshots_kept)
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


# -- queries (run on database threads) -----------------------------------------------------------


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

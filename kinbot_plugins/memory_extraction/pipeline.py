"""Mining a Kin's session for long-term memories, batch by batch, from a persisted watermark.

Each batch is the next messages after the Kin's watermark (their ``position``), stopping
before a turn still running and before a message awaiting redaction (it is mined once
redacted). Only user and assistant text goes to the extraction model. Each memory it returns
is compared with the Kin's nearest memories: a near-identical one is dropped as a duplicate,
a close one is settled by the model (duplicate, merged into an update, or new), anything else
is added. The watermark moves past a batch only once all of it is done, so a provider error
or an unreadable reply loses nothing: the same messages are tried again at the next run (and
what that batch had already stored is then found again as a duplicate).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, cast

import peewee

from kinbot_core.db.models import MessageRecord
from kinbot_core.kins.prompt_budget import background_limits
from kinbot_core.kins.service import KinNotFound, KinView
from kinbot_core.memory import Memory
from kinbot_core.memory import MemoryError as MemoryBackendError
from kinbot_core.providers import ChatMessage, ChatRequest, ProviderError, TextDelta
from kinbot_core.providers.light_models import background_model
from kinbot_core.usage import attributed
from kinbot_plugins.memory_extraction.prompts import (
    DECISION_SYSTEM,
    Candidate,
    Decision,
    MalformedReply,
    TranscriptLine,
    decision_prompt,
    extraction_system,
    fitting,
    parse_candidates,
    parse_decision,
    transcript,
)
from kinbot_plugins.memory_extraction.records import ExtractionState, MemoryDecision

logger = logging.getLogger(__name__)

#: Roles whose text is mined; tool results and system notices never are.
TEXT_ROLES = ("user", "assistant")
#: Existing memories a new one is compared with.
NEIGHBOURS = 5
MAX_REPLY_TOKENS = 2000
#: The longest wait, in seconds, between runs after turns once runs keep failing.
MAX_BACKOFF_SECONDS = 3600.0


@dataclass(frozen=True)
class Batch:
    """Messages to mine in one call, and the position the watermark reaches after them."""

    lines: list[TranscriptLine]
    through: int


@dataclass
class RunReport:
    """What one run did. ``error`` is set when it stopped on a failure."""

    kin_id: str
    batches: int = 0
    added: int = 0
    merged: int = 0
    duplicates: int = 0
    through: int | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kin_id": self.kin_id,
            "status": "failed" if self.error else "done",
            "batches": self.batches,
            "added": self.added,
            "merged": self.merged,
            "duplicates": self.duplicates,
            "through_position": self.through,
            "error": self.error,
        }


class MemoryExtractor:
    """The extraction pipeline of one platform; one run at a time per Kin."""

    def __init__(self, platform: Any) -> None:
        self.platform = platform
        self._locks: dict[str, asyncio.Lock] = {}

    async def extract_when_due(self, kin_id: str) -> RunReport | None:
        """The run after turns: ``extract``, unless the last runs failed in a row (n of
        them) less than ``memory_extraction_delay_seconds * 2**n`` seconds ago (an hour at
        most), so that a model that keeps failing is not called after every turn. Nothing is
        lost: the messages wait for the next run. ``None`` when it waits."""
        state = await self.platform.db.read(
            lambda: ExtractionState.get_or_none(ExtractionState.kin == kin_id)
        )
        if state is not None and state.failures:
            delay = self.platform.settings.memory_extraction_delay_seconds
            backoff = min(delay * 2**state.failures, MAX_BACKOFF_SECONDS)
            if time.time() - state.updated_at < backoff:
                logger.debug("memory extraction for Kin %s waits after %d failures",
                             kin_id, state.failures)  # fmt: skip
                return None
        return await self.extract(kin_id)

    async def extract(self, kin_id: str, *, through_position: int | None = None) -> RunReport:
        """Mine the Kin's messages not extracted yet (up to ``through_position`` when given),
        until none is left or a batch fails. Failures are logged, recorded on the Kin's
        extraction state and published; they are not raised."""
        report = RunReport(kin_id)
        # The extraction's model and embedding calls count against the Kin.
        with attributed(kin_id, origin="extraction"):
            return await self._extract(kin_id, through_position, report)

    async def _extract(
        self, kin_id: str, through_position: int | None, report: RunReport
    ) -> RunReport:
        async with self._locks.setdefault(kin_id, asyncio.Lock()):
            try:
                kin = await self.platform.kins.get(kin_id)
            except KinNotFound:
                return report
            db = self.platform.db
            size = self.platform.settings.memory_extraction_batch_messages
            try:
                while True:
                    batch = await db.read(_next_batch, kin_id, through_position, size)
                    if batch is None:
                        break
                    if batch.lines:
                        await self._mine(kin, batch, report)
                    await db.write(_advance, kin_id, batch.through)
                    report.batches += 1
                    report.through = batch.through
            except (ProviderError, MalformedReply, MemoryBackendError) as error:
                report.error = _describe(error)
                logger.warning("memory extraction for Kin %s failed: %s", kin_id, report.error)
                await db.write(_record_failure, kin_id, report.error)
            if report.batches or report.error:
                self.platform.live.publish("memory.extraction", report.to_dict())
        return report

    async def _mine(self, kin: KinView, batch: Batch, report: RunReport) -> None:
        model = await self.model_for(kin)
        system = extraction_system(kin.name)
        # Within the extraction model's own window, as a turn's call is within the Kin's.
        limits = await background_limits(self.platform, model, system, MAX_REPLY_TOKENS)
        for lines in fitting(batch.lines, limits.prompt):
            reply = await self._complete(model, system, transcript(lines), limits.reply)
            ids = {line.message_id for line in lines}
            fallback = lines[-1].message_id
            for candidate in parse_candidates(reply):
                source = candidate.source_message_id
                source = source if source in ids else fallback
                await self._place(kin, candidate, source, model, limits.reply, report)

    async def model_for(self, kin: KinView) -> str:
        """The Kin's extraction model, else the platform's, else the light model of the
        Kin's provider, else the Kin's own (``kinbot_core.providers.light_models``)."""
        return await background_model(self.platform, kin, "extraction")

    async def _place(
        self,
        kin: KinView,
        candidate: Candidate,
        source: int,
        model: str,
        reply_tokens: int,
        report: RunReport,
    ) -> None:
        """Add the candidate, merge it into a close memory, or drop it as a duplicate."""
        memory = self.platform.memory
        settings = self.platform.settings
        text = (
            f"{candidate.subject}: {candidate.content}" if candidate.subject else candidate.content
        )
        near: list[tuple[Memory, float]] = await memory.similar(kin.id, text, limit=NEIGHBOURS)
        if near and near[0][1] >= settings.memory_duplicate_similarity:
            report.duplicates += 1
            await self._decided(
                kin.id, "duplicate", near[0][0], candidate, source, near[0][1], model
            )
            return
        close = [
            (found, score) for found, score in near if score >= settings.memory_merge_similarity
        ]
        decision = Decision(action="add", memory_id=None, content=None)
        if close:
            decision = await self._decide(model, candidate, close, reply_tokens)
        chosen = next((pair for pair in close if pair[0].id == decision.memory_id), None)
        if decision.action == "duplicate":
            target, score = chosen or close[0]
            report.duplicates += 1
            await self._decided(kin.id, "duplicate", target, candidate, source, score, model)
        elif decision.action == "merge" and chosen is not None and decision.content:
            merged = await memory.update(kin.id, chosen[0].id, decision.content)
            report.merged += 1
            await self._decided(kin.id, "merged", merged, candidate, source, chosen[1], model)
        else:
            if decision.action == "merge":
                logger.warning("merge into an unknown memory or without content: added instead")
            added = await memory.memorize(
                kin.id,
                candidate.content,
                candidate.category,
                candidate.subject,
                source_message_id=source,
            )
            report.added += 1
            best = close[0][1] if close else (near[0][1] if near else None)
            await self._decided(kin.id, "added", added, candidate, source, best, model)

    async def _decide(
        self, model: str, candidate: Candidate, close: list[tuple[Memory, float]], reply_tokens: int
    ) -> Decision:
        prompt = decision_prompt(candidate, [(m.id, m.content, score) for m, score in close])
        reply = await self._complete(model, DECISION_SYSTEM, prompt, reply_tokens)
        try:
            return parse_decision(reply)
        except MalformedReply as error:
            logger.warning("unreadable merge decision (%s): the memory is added as new", error)
            return Decision(action="add", memory_id=None, content=None)

    async def _complete(self, model: str, system: str, prompt: str, reply_tokens: int) -> str:
        request = ChatRequest(
            model=model,
            system=system,
            messages=(ChatMessage(role="user", content=prompt),),
            max_tokens=reply_tokens,
            temperature=0,
        )
        parts = [
            event.text
            async for event in self.platform.providers.chat(model, request)
            if isinstance(event, TextDelta)
        ]
        return "".join(parts)

    async def _decided(
        self,
        kin_id: str,
        action: str,
        memory: Memory,
        candidate: Candidate,
        source: int,
        similarity: float | None,
        model: str,
    ) -> None:
        """Log, store and publish one decision."""
        row = await self.platform.db.write(
            lambda: MemoryDecision.create(
                kin=kin_id,
                action=action,
                memory_id=memory.id,
                content=candidate.content,
                category=candidate.category,
                subject=candidate.subject,
                source_message_id=source,
                similarity=similarity,
                model=model,
                created_at=time.time(),
            )
        )
        logger.info(
            "memory %s for Kin %s: memory %d (%s, subject %r, similarity %s, message %d)",
            action,
            kin_id,
            memory.id,
            candidate.category,
            candidate.subject,
            "-" if similarity is None else f"{similarity:.3f}",
            source,
        )
        self.platform.live.publish(
            f"memory.{action}",
            {
                "kin_id": kin_id,
                "decision_id": row.id,
                "memory": memory.to_dict(),
                "candidate": candidate.content,
                "similarity": similarity,
                "source_message_id": source,
            },
        )


def _describe(error: Exception) -> str:
    if isinstance(error, ProviderError):
        return f"the extraction model failed: {error.message}"
    if isinstance(error, MalformedReply):
        return f"the extraction model's reply was unreadable: {error}"
    return f"the memory backend failed: {error}"


# -- on the database threads ----------------------------------------------------------------


def _watermark(kin_id: str) -> int:
    state = ExtractionState.get_or_none(ExtractionState.kin == kin_id)
    return int(state.last_position) if state is not None else 0


def _next_batch(kin_id: str, through: int | None, size: int) -> Batch | None:
    """The next messages to mine, or ``None`` when there are none yet."""
    after = _watermark(kin_id)
    in_session = (
        (MessageRecord.kin == kin_id)
        & MessageRecord.position.is_null(False)
        & (MessageRecord.position > after)
    )
    # Not past a turn still running (its messages come after it) nor a message awaiting
    # redaction: both are mined later, when done.
    blocked = (
        MessageRecord.select(peewee.fn.MIN(MessageRecord.position))
        .where(
            in_session
            & ((MessageRecord.status == "processing") | (MessageRecord.redaction_pending == True))  # noqa: E712
        )
        .scalar()
    )
    query = MessageRecord.select().where(in_session)
    if blocked is not None:
        query = query.where(MessageRecord.position < blocked)
    if through is not None:
        query = query.where(MessageRecord.position <= through)
    rows = list(query.order_by(MessageRecord.position).limit(size))
    if not rows:
        return None
    lines = [
        TranscriptLine(row.id, f"{row.sender_name or row.source} ({row.role})", row.content)
        for row in rows
        if row.role in TEXT_ROLES and row.content.strip() and not row.superseded
    ]
    return Batch(lines, cast(int, rows[-1].position))  # not null: selected by position


def _advance(kin_id: str, position: int) -> None:
    (
        ExtractionState.insert(
            kin=kin_id, last_position=position, failures=0, last_error=None, updated_at=time.time()
        )
        .on_conflict(
            conflict_target=[ExtractionState.kin],
            update={
                ExtractionState.last_position: position,
                ExtractionState.failures: 0,
                ExtractionState.last_error: None,
                ExtractionState.updated_at: time.time(),
            },
        )
        .execute()
    )


def _record_failure(kin_id: str, error: str) -> None:
    (
        ExtractionState.insert(
            kin=kin_id, last_position=0, failures=1, last_error=error, updated_at=time.time()
        )
        .on_conflict(
            conflict_target=[ExtractionState.kin],
            update={
                ExtractionState.failures: ExtractionState.failures + 1,
                ExtractionState.last_error: error,
                ExtractionState.updated_at: time.time(),
            },
        )
        .execute()
    )

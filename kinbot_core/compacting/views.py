"""What compacting shows (a snapshot, a Kin's summary layer, what a turn gets of its session)
and the errors its requests raise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.kins.service import MessageView


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

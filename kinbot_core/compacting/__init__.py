"""Compacting of Kins' sessions into a summary layer, with snapshots, purge and rollback."""

from kinbot_core.compacting.service import CompactingService
from kinbot_core.compacting.views import (
    CompactingConflict,
    CompactingError,
    CompactingState,
    NothingToCompact,
    SessionContext,
    SnapshotNotFound,
    SnapshotView,
    SummaryFailed,
)

__all__ = [
    "CompactingConflict",
    "CompactingError",
    "CompactingService",
    "CompactingState",
    "NothingToCompact",
    "SessionContext",
    "SnapshotNotFound",
    "SnapshotView",
    "SummaryFailed",
]

"""A Kin's compacting snapshots as users see and change them: the summary layer's state,
a purge back to a blank summary, a rollback to another kept snapshot."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.compacting.views import CompactingState, SnapshotNotFound, SnapshotView
from kinbot_core.kins import session_rows

if TYPE_CHECKING:
    from kinbot_core.kins.service import KinView
    from kinbot_core.platform import Platform


class CompactingSnapshots:
    """The snapshot half of ``CompactingService``, which mixes it in and holds what it uses."""

    _platform: Platform
    _locks: dict[str, asyncio.Lock]
    _tasks: dict[str, asyncio.Task[None]]
    _reported: dict[str, int]

    if TYPE_CHECKING:

        def _measured(self, kin_id: str, estimate: int) -> int: ...

        async def _limits(
            self, kin: KinView, reported: int | None = None
        ) -> tuple[int, int | None, int | None]: ...

        def _published(self, kin_id: str, status: str, **data: Any) -> None: ...

    async def state(self, kin_id: str) -> CompactingState:
        """The Kin's summary layer and every snapshot kept, newest first."""
        kin = await self._platform.kins.get(kin_id)

        db = self._platform.db

        def load() -> tuple[CompactingSnapshot | None, tuple[int, int], list[Any]]:
            active = active_snapshot(kin_id)
            size = session_rows.size_after(db, kin_id, active.through_position if active else 0)
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
            active = active_snapshot(kin_id)
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
            prune_snapshots(kin_id, kept)
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


# -- queries (run on database threads) -----------------------------------------------------------


def active_snapshot(kin_id: str) -> CompactingSnapshot | None:
    """The Kin's active snapshot, the one its turns use; ``None`` when never compacted."""
    row: CompactingSnapshot | None = CompactingSnapshot.get_or_none(
        (CompactingSnapshot.kin == kin_id) & CompactingSnapshot.active
    )
    return row


def prune_snapshots(kin_id: str, kept: int) -> None:
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

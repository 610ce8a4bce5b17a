"""Long-term memory extraction: after each turn of a Kin (debounced, in the background) and
before each compacting (awaited), a model mines the messages not yet mined for durable
memories, which are added, merged into an existing memory, or dropped as duplicates.

The model is the Kin's ``memory_extraction_model``, else the ``memory_extraction_model``
setting, else the cheapest capable model of the Kin's provider, else the Kin's own model
(``kinbot_core.providers.light_models``). ``memory.added``, ``memory.merged``, ``memory.duplicate``
and ``memory.extraction`` (one per run) appear on the live feed; decisions are also logged and
kept in the ``memory_decision`` table.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Coroutine
from typing import Any

from kinbot_core import CompactingContext, Event, KinRef, hookimpl
from kinbot_core.db.models import MessageRecord
from kinbot_core.events.catalogue import KinStateChanged
from kinbot_plugins.memory_extraction.debounce import Debouncer
from kinbot_plugins.memory_extraction.pipeline import MemoryExtractor

__all__ = ["MemoryExtraction", "extraction_of"]


class MemoryExtraction:
    """The pipeline of one platform and its per-Kin debouncing."""

    def __init__(self, platform: Any) -> None:
        self.extractor = MemoryExtractor(platform)

        def spawn(coroutine: Coroutine[Any, Any, None], name: str) -> Any:
            return platform.spawn(coroutine, name=f"memory-extraction:{name}")

        self.debouncer = Debouncer(
            spawn,
            self.extractor.extract_when_due,
            lambda: float(platform.settings.memory_extraction_delay_seconds),
        )

    def turn_ended(self, event: Event) -> None:
        """A Kin went idle (or into error) after a turn: mine its session once it is quiet."""
        if isinstance(event, KinStateChanged) and event.state in ("idle", "error"):
            self.debouncer.poke(event.kin_id)


# One pipeline per platform (a process may run several, as the tests do).
_pipelines: weakref.WeakKeyDictionary[Any, MemoryExtraction] = weakref.WeakKeyDictionary()


def extraction_of(platform: Any) -> MemoryExtraction:
    """The extraction pipeline serving ``platform``."""
    pipeline = _pipelines.get(platform)
    if pipeline is None:
        pipeline = _pipelines[platform] = MemoryExtraction(platform)
    return pipeline


@hookimpl
def register_events(subscribe: Callable[..., Any], platform: Any) -> None:
    subscribe(KinStateChanged.type, extraction_of(platform).turn_ended)


@hookimpl
async def before_compacting(kin: KinRef, compacting: CompactingContext, platform: Any) -> None:
    """Mine what the compacting folds (and anything older not mined yet) before it goes."""
    ids = [int(i) for i in compacting.message_ids if str(i).isdigit()]
    if not ids:
        return

    def last_position() -> int | None:
        return (  # type: ignore[no-any-return]
            MessageRecord.select(MessageRecord.position)
            .where((MessageRecord.id.in_(ids)) & (MessageRecord.kin == kin.id))
            .order_by(MessageRecord.position.desc(nulls="last"))
            .scalar()
        )

    through = await platform.db.read(last_position)
    if through is not None:
        await extraction_of(platform).extractor.extract(kin.id, through_position=through)

"""Recording provider calls' usage without slowing the calls down.

A call's usage is noted in memory (no database work on the caller's path) and written in
batches on the database's writer thread by one background task, a moment after the first
call of a batch (so that a burst of calls shares one transaction instead of adding one to
each turn); :meth:`UsageRecorder.flush` writes what is noted at once and waits for it (a
budget check does before it reads the totals).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from kinbot_core.db import Database
from kinbot_core.db.models import UsageRecord
from kinbot_core.usage.attribution import UsageFor, collecting, usage_for
from kinbot_core.usage.prices import load_prices, price_of
from kinbot_core.usage.spending import MonthlySpending

logger = logging.getLogger(__name__)

#: Seconds between the first call noted and the write of its batch.
WRITE_DELAY_SECONDS = 1.0


@dataclass(frozen=True)
class NotedUsage:
    """One call's usage, before it is written."""

    at: float
    kind: str
    provider_id: str
    model: str
    who: UsageFor
    input_tokens: int = 0
    output_tokens: int = 0
    units: int = 0


class UsageRecorder:
    """Notes every provider call's usage and writes it in batches.

    ``on_written`` is awaited with each batch once it is stored (the budget warnings).
    """

    def __init__(
        self,
        db: Database,
        on_written: Callable[[list[NotedUsage]], Awaitable[None]] | None = None,
    ) -> None:
        self._db = db
        self._on_written = on_written
        #: This month's totals of the people and Kins with a budget.
        self.spending = MonthlySpending()
        self._noted: list[NotedUsage] = []
        self._writer: asyncio.Task[None] | None = None
        self._due: asyncio.TimerHandle | None = None

    def chat(self, provider_id: str, model: str, input_tokens: int, output_tokens: int) -> None:
        """A chat call's reported tokens (its ``Usage`` event)."""
        self.note(
            NotedUsage(
                time.time(),
                "chat",
                provider_id,
                model,
                usage_for.get(),
                input_tokens,
                output_tokens,
            )
        )

    @contextmanager
    def metered(self, kind: str, provider_id: str, model: str = "") -> Iterator[None]:
        """Record the call made inside the block (an embedding, an image, a search) once it
        returns, with what the plugin reported (``report_usage``); a failed call is not
        recorded. ``model`` is used when the plugin names none (a search: the provider's
        type is used when empty); images and searches count one unit unless reported."""
        who = usage_for.get()
        with collecting() as reports:
            yield
        if not reports:
            units = 1 if kind in ("image", "search") else 0
            self.note(NotedUsage(time.time(), kind, provider_id, model, who, units=units))
        for report in reports:
            units = report.units if report.units is not None else int(kind in ("image", "search"))
            self.note(
                NotedUsage(
                    time.time(),
                    kind,
                    provider_id,
                    report.model or model,
                    who,
                    report.input_tokens,
                    report.output_tokens,
                    units,
                )
            )

    def note(self, usage: NotedUsage) -> None:
        """Keep ``usage`` to be written by the background writer (``WRITE_DELAY_SECONDS``
        later, with whatever is noted meanwhile)."""
        self._noted.append(usage)
        if self._due is None:
            self._due = asyncio.get_running_loop().call_later(WRITE_DELAY_SECONDS, self._write)

    def _write(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None
        if self._noted and (self._writer is None or self._writer.done()):
            self._writer = asyncio.get_running_loop().create_task(
                self._write_noted(), name="usage-recorder"
            )

    async def flush(self) -> None:
        """Store every usage noted so far, now, and wait until it is stored."""
        self._write()
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    async def _write_noted(self) -> None:
        while self._noted:
            batch, self._noted = self._noted, []
            try:
                await self._db.write(_store, batch, self.spending)
            except Exception:
                logger.exception("%d usage records could not be stored", len(batch))
                continue
            if self._on_written is not None:
                try:
                    await self._on_written(batch)
                except Exception:
                    logger.exception("the budgets could not be checked after usage was recorded")


_INSERT = (
    "insert into usage_record (created_at, day, kind, provider, model, kin_id, user_id, origin, "
    "input_tokens, output_tokens, units, cost, priced) "
    "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _store(batch: list[NotedUsage], spending: MonthlySpending) -> None:
    """Write ``batch``, costed with the price table as it is now (writer thread)."""
    prices = load_prices()
    database = UsageRecord._meta.database
    provider_ids = sorted({usage.provider_id for usage in batch})
    providers = {
        row[0]: (row[1], row[2])
        for row in database.execute_sql(
            "select id, name, type from provider where id in "
            f"({', '.join('?' * len(provider_ids))})",
            provider_ids,
        )
    }
    rows = []
    for usage in batch:
        name, type_name = providers.get(usage.provider_id, (usage.provider_id, ""))
        model = usage.model or type_name or "unknown"
        price = price_of(model, prices)
        cost = price.cost(usage.input_tokens, usage.output_tokens, usage.units) if price else 0.0
        day = datetime.fromtimestamp(usage.at, UTC).strftime("%Y-%m-%d")
        who = usage.who
        tokens = (usage.input_tokens, usage.output_tokens, usage.units)
        where = (usage.at, day, usage.kind, name, model, who.kin_id, who.user_id, who.origin)
        rows.append((*where, *tokens, cost, price is not None))
    # One prepared statement for the batch: building a multi-row insert in peewee costs
    # about half a millisecond per row.
    database.cursor().executemany(_INSERT, rows)
    spending.add([(row[5], row[6], row[11]) for row in rows])

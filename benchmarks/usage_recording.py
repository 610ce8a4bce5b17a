"""What recording usage and checking budgets add to a turn.

1. Noting a provider call's usage (what the providers service does on the call's path, per
   ``Usage`` event or embedding/image/search call): microseconds per call.
2. Writing the noted rows (on the database's writer thread, off the turn's path, batched):
   milliseconds per batch and per row.
3. The budget check before a turn, with a person's and a Kin's budget set and 100,000 usage
   rows this month: the first reads the month's totals (indexed sums), the next ones use the
   totals the writer keeps current (p50 and p99 over 200 checks). Without any budget the
   check reads nothing.
4. A month's summary (by day, person, Kin, model) over those rows, as Settings → Usage asks.

Run: ``.venv/bin/python -m benchmarks.usage_recording``.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from kinbot_core.config import load_settings
from kinbot_core.db.models import KinRecord, UsageRecord, User
from kinbot_core.platform import Platform
from kinbot_core.usage import Period, attributed

ROWS = 100_000
NOTES = 10_000
CHECKS = 200


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(data_dir: Path) -> None:
    platform = Platform(load_settings(data_dir=data_dir, log_level="WARNING"))
    await platform.start()
    try:
        user_id, kin_id = uuid.uuid4().hex, uuid.uuid4().hex

        def people_and_kin() -> None:
            now = time.time()
            User.insert(id=user_id, email="bench@example.org", first_name="Bench",
                        last_name="Mark", pseudonym="Bench", password_hash="x",
                        role="admin", created_at=now, updated_at=now).execute()  # fmt: skip
            KinRecord.insert(id=kin_id, name="Chef", model="gpt-4o", workspace="/tmp",
                             created_at=now, updated_at=now).execute()  # fmt: skip

        await platform.db.write(people_and_kin)
        recorder = platform.usage.recorder

        with attributed(kin_id, user_id=user_id, origin="user"):
            started = time.perf_counter()
            for _ in range(NOTES):
                recorder.chat("no-such-provider", "gpt-4o", 1200, 300)
            noted = time.perf_counter() - started
            started = time.perf_counter()
            await recorder.flush()
            written = time.perf_counter() - started
        print(f"Noting a call's usage: {noted / NOTES * 1e6:.1f} µs per call ({NOTES} calls)")
        print(
            f"Writing {NOTES} noted rows off the turn's path: {written * 1000:.0f} ms "
            f"({written / NOTES * 1e6:.0f} µs per row, batched)"
        )

        def fill() -> None:
            now = time.time()
            start = Period.this_month().start
            rows = [
                {"created_at": start + (now - start) * n / ROWS, "day": "2026-12-01",
                 "kind": "chat", "provider": "OpenAI", "model": "gpt-4o",
                 "kin_id": kin_id if n % 2 else uuid.uuid4().hex[:8],
                 "user_id": user_id if n % 3 else None, "origin": "user",
                 "input_tokens": 1200, "output_tokens": 300, "cost": 0.006}
                for n in range(ROWS)
            ]  # fmt: skip
            for first in range(0, ROWS, 1000):
                UsageRecord.insert_many(rows[first : first + 1000]).execute()

        await platform.db.write(fill)
        without: list[float] = []
        for _ in range(CHECKS):
            started = time.perf_counter()
            await platform.usage.refuse_over_budget(kin_id=kin_id, user_id=user_id)
            without.append(time.perf_counter() - started)
        await platform.usage.set_budget("user", user_id, 1_000_000, 80)
        await platform.usage.set_budget("kin", kin_id, 1_000_000, 80)
        checks: list[float] = []
        for _ in range(CHECKS):
            started = time.perf_counter()
            await platform.usage.refuse_over_budget(kin_id=kin_id, user_id=user_id)
            checks.append(time.perf_counter() - started)
        nothing = percentile(without, 0.5) * 1e6
        print(f"Budget check before a turn, no budget set: p50 {nothing:.0f} µs")
        first, rest = checks[0], checks[1:]
        print(
            f"Budget check before a turn, a person's and a Kin's budget, {ROWS} rows this "
            f"month: the first {first * 1000:.1f} ms (reads the month's totals once), then "
            f"p50 {percentile(rest, 0.5) * 1e6:.0f} µs, p99 {percentile(rest, 0.99) * 1e6:.0f} µs"
        )
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            await platform.usage.summary(Period.this_month())
            runs.append(time.perf_counter() - started)
        print(
            f"This month's summary over {ROWS + NOTES} rows: "
            f"{statistics.median(runs) * 1000:.0f} ms (median of 5)"
        )
    finally:
        await platform.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(measure(Path(directory)))


if __name__ == "__main__":
    main()

"""How long an upgrade takes on a family's database: migrations 0028 (full-text indexes
rebuilt with each text's language, ``kinbot_core.fulltext``) and 0029 (an index on
``message.turn_of``) applied to a database left at 0027 holding N messages and N/10
memories, as ``kinbot serve`` does at its first start after the upgrade.

The messages alternate French and English sentences of family life (a few words changed per
row, so that the terms vary); the memories are one sentence each. Printed per size: the time
of each migration (wall and CPU of the process), CPU per thousand rows, and the file's size.

    .venv/bin/python -m benchmarks.migration_upgrade [--sizes 10000 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from playhouse.migrations import Runner

from kinbot_core.db import Database
from kinbot_core.db.database import MIGRATIONS_DIR

BEFORE = "0027_memory_usage"
SENTENCES = (
    "Nous partons en vacances à la montagne avec les enfants le {n} juillet.",
    "Remind me to buy {n} apples and some bread for the picnic on Sunday.",
    "Les grands-parents arrivent mardi ; il faut préparer la chambre d'amis.",
    "The plumber said the boiler needs a new valve, about {n} euros.",
    "Léa a son cours de piano mercredi à {n} heures, pense à l'emmener.",
    "What did we decide about the school trip to the museum in room {n}?",
)


def fill(db: Database, count: int) -> None:
    """``count`` messages and ``count // 10`` memories of one Kin (inside a write)."""
    rng = random.Random(7)
    now = time.time()
    connection = db.peewee.connection()  # type: ignore[no-untyped-call]
    connection.execute(
        "insert into kin (id, name, role, character, expertise, model, workspace, created_at, "
        "updated_at) "
        "values ('k', 'Maison', '', '', '', 'OpenAI/gpt-4o', '/tmp/k', ?, ?)",
        (now, now),
    )
    messages = [
        ("k", "user" if i % 2 else "assistant", "user", "Nico",
         rng.choice(SENTENCES).format(n=rng.randint(1, 999)), i, now - count + i)
        for i in range(count)
    ]  # fmt: skip
    connection.executemany(
        "insert into message (kin_id, role, source, sender_name, content, position, created_at) "
        "values (?, ?, ?, ?, ?, ?, ?)",
        messages,
    )
    memories = [
        ("k", rng.choice(SENTENCES).format(n=i), "fact", now, now) for i in range(count // 10)
    ]
    connection.executemany(
        "insert into memory (kin_id, content, category, created_at, updated_at) "
        "values (?, ?, ?, ?, ?)",
        memories,
    )


async def measure(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = Database(Path(folder) / "kinbot.db")
        runner = Runner(db.peewee, directory=str(MIGRATIONS_DIR))
        await db._submit(db._writer, runner.up, BEFORE)
        await db.write(fill, db, count)
        pending = [m.name for m in runner.status() if not m.applied]
        for name in pending:
            wall, cpu = time.perf_counter(), time.process_time()
            await db._submit(db._writer, runner.up, name)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            cpu_per_k = cpu / (count + count // 10) * 1000
            print(f"{count:>9,} messages  {name:<28} {wall:7.2f} s wall  {cpu:7.2f} s CPU"
                  f"  ({cpu_per_k * 1000:.0f} ms of CPU per 1,000 rows)")  # fmt: skip
        size = (Path(folder) / "kinbot.db").stat().st_size
        print(f"{count:>9,} messages  file {size / 1e6:.0f} MB")
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    for count in parser.parse_args().sizes:
        asyncio.run(measure(count))


if __name__ == "__main__":
    main()

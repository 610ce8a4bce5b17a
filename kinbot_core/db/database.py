"""One SQLite file, reached from async code without stalling the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

import peewee
from playhouse.migrations import Runner

from kinbot_core.db.changes import ChangeLog
from kinbot_core.db.driver import load_vec, select_driver
from kinbot_core.db.grouped_writes import GroupedWrites
from kinbot_core.db.kept_reads import Dependency, KeptReads
from kinbot_core.db.models import database_proxy
from kinbot_core.fulltext import register_sql_functions

MIGRATIONS_DIR = Path(__file__).parent / "migrations"

P = ParamSpec("P")
T = TypeVar("T")


def _create_private_file(path: Path) -> None:
    """The data directory and the database hold a family's secrets: owner-only access.

    SQLite gives its -wal and -shm files the database file's permissions.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)


class _VecSqliteDatabase(peewee.SqliteDatabase):
    """peewee's SQLite database on a chosen driver, with sqlite-vec loaded and the full-text
    terms function (``kinbot_core.fulltext``) registered on every connection."""

    def __init__(self, database: str, *, driver: ModuleType, timeout: float, **kwargs: Any) -> None:
        self._driver = driver
        self._busy_timeout = timeout
        self._opened: list[Any] = []
        self._opened_lock = threading.Lock()
        super().__init__(database, timeout=timeout, **kwargs)

    def _connect(self) -> Any:
        conn = self._driver.connect(
            self.database,
            timeout=self._busy_timeout,
            isolation_level=None,
            check_same_thread=False,
            **self.connect_params,
        )
        try:
            load_vec(conn)
            register_sql_functions(conn)
            self._add_conn_hooks(conn)  # type: ignore[attr-defined]  # absent from the stubs
        except Exception:
            conn.close()
            raise
        with self._opened_lock:
            self._opened.append(conn)
        return conn

    @contextlib.contextmanager
    def lent(self, connection: Any) -> Iterator[None]:
        """Meanwhile, this thread's queries (models' included) run on ``connection``: the
        writer's, lent to the event loop for a brief write (``GroupedWrites``)."""
        state = self._state  # type: ignore[attr-defined]  # peewee's, per thread
        saved = (state.conn, state.closed, state.ctx, state.transactions)
        bound = database_proxy.obj
        state.set_connection(connection)
        database_proxy.initialize(self)
        try:
            yield
        finally:
            state.conn, state.closed, state.ctx, state.transactions = saved
            database_proxy.obj = bound

    def close_all(self) -> None:
        """Close every connection any thread opened (once no thread uses them any more)."""
        with self._opened_lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()


@dataclass(frozen=True)
class DatabaseInfo:
    """What ``/api/health`` reports about the database."""

    path: str
    driver: str
    sqlite_version: str
    sqlite_vec_version: str
    fts5: bool
    journal_mode: str
    migrations: list[str]


class Database:
    """The platform's SQLite database.

    Queries do not run on the event loop (but for ``read_now``'s lookups by key and
    ``write_inline``'s few statements): ``read`` runs a function on a small pool of reader
    threads, ``write`` on the single writer thread inside an immediate transaction (writes
    queued together share one, each in a savepoint), so writes are serialised without lock
    contention and readers proceed in parallel (WAL).
    The functions use peewee models and ``self.peewee`` as usual; each thread keeps its own
    connection.

    Background work (embedding the history, say) writes with ``write_later``: it waits while
    other writes are queued or running, so that a turn's writes wait behind at most one
    background transaction, never behind a queue of them.
    """

    def __init__(self, path: Path, *, read_workers: int = 4, busy_timeout: float = 5.0) -> None:
        self.path = path
        self.driver = select_driver()
        self.peewee = _VecSqliteDatabase(
            str(path),
            driver=self.driver,
            timeout=busy_timeout,
            pragmas={
                "journal_mode": "wal",
                "synchronous": "normal",
                "foreign_keys": 1,
                "busy_timeout": int(busy_timeout * 1000),
                # Deleted or overwritten content is zeroed, not left in free space: a secret
                # taken out of a message (Vault redaction) must not stay in the file.
                "secure_delete": 1,
            },
        )
        self._writer = ThreadPoolExecutor(
            1, "kinbot-db-write", database_proxy.initialize, (self.peewee,)
        )
        self._readers = ThreadPoolExecutor(
            read_workers, "kinbot-db-read", database_proxy.initialize, (self.peewee,)
        )
        #: What the writer changed, transaction by transaction (``kinbot_core.db.changes``).
        self.changes = ChangeLog()
        self._grouped = GroupedWrites(
            self.peewee,
            self._writer,
            self.changes,
            busy_timeout_ms=int(busy_timeout * 1000),
            lend=self.peewee.lent,
        )
        self._kept_reads = KeptReads(self.changes, self.read_now)
        self._closed = False
        #: Writes submitted with ``write`` and not finished yet.
        self._writes_in_flight = 0
        #: Background writes waiting for ``_writes_in_flight`` to reach zero.
        self._waiting_later: list[asyncio.Future[None]] = []

    async def open(self) -> list[str]:
        """Create the file if needed, bind the models and apply pending migrations.

        Returns the names of the migrations applied now (none when already up to date).
        """
        await asyncio.to_thread(_create_private_file, self.path)
        return await self._submit(self._writer, self._migrate)

    def _migrate(self) -> list[str]:
        with self._grouped.connection_lock:
            applied: list[str] = Runner(self.peewee, directory=str(MIGRATIONS_DIR)).up()
        self.changes.schema_changed()
        return applied

    async def read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` on a reader thread and return its result."""
        return await self._submit(self._readers, fn, *args, **kwargs)

    def read_now(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one cheap read in plain SQL (a lookup by key, a few rows), run on the
        calling thread, the event loop's: handing a statement that takes a few microseconds
        to a reader thread costs ten times more than running it. Anything that scans or
        builds model queries belongs in ``read`` (model queries fail on this thread). It
        runs on the writer's connection when the writer thread leaves it idle, whose page
        cache the writer's commits keep."""
        if self._closed:
            raise RuntimeError("the database is closed")
        rows = self._grouped.read_here(statement, params)
        if rows is not None:
            return rows
        self.peewee.connect(reuse_if_open=True)
        return self.sql(statement, params).fetchall()  # type: ignore[no-any-return]

    def read_kept(
        self, statement: str, params: Sequence[Any], depends_on: Sequence[Dependency]
    ) -> list[Any]:
        """``read_now``'s rows, kept until a row of ``depends_on`` changes: for the lookups
        every turn makes with nearly always the same answer (``kinbot_core.db.kept_reads``)."""
        return self._kept_reads.read(statement, params, depends_on)

    async def write(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` on the writer thread inside a transaction, and return once that has
        committed. Writes queued together share one transaction, each in its own savepoint:
        one that raises takes back its own changes only (``kinbot_core.db.grouped_writes``)."""
        return await self._counted(functools.partial(fn, *args, **kwargs), inline=False)

    async def write_inline(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``write`` for a few statements (a turn's, when no other turn runs): run at once on
        the event loop's thread, on the writer's connection, when the writer thread is idle
        and no other process holds the write lock; else queued as ``write`` would. Handing
        a write to the writer thread and back costs more CPU than such a write itself."""
        return await self._counted(functools.partial(fn, *args, **kwargs), inline=True)

    async def write_later(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``write`` for background work: submitted only once no other write is queued or
        running (keep its transactions short: a write that comes meanwhile waits for it)."""
        while self._writes_in_flight:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting_later.append(waiter)
            await waiter
        return await self._grouped_write(functools.partial(fn, *args, **kwargs), inline=False)

    async def _counted(self, call: Callable[[], T], *, inline: bool) -> T:
        self._writes_in_flight += 1
        try:
            return await self._grouped_write(call, inline=inline)
        finally:
            self._writes_in_flight -= 1
            if not self._writes_in_flight:
                waiting, self._waiting_later = self._waiting_later, []
                for future in waiting:
                    if not future.done():
                        future.set_result(None)

    async def _grouped_write(self, call: Callable[[], T], *, inline: bool) -> T:
        if self._closed:
            raise RuntimeError("the database is closed")
        result: T = await self._grouped.submit(call, inline=inline)
        return result

    async def _submit(
        self, executor: ThreadPoolExecutor, fn: Callable[..., T], *args: Any, **kwargs: Any
    ) -> T:
        if self._closed:
            raise RuntimeError("the database is closed")
        call = functools.partial(self._run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(executor, call)

    def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        self.peewee.connect(reuse_if_open=True)
        return fn(*args, **kwargs)

    async def checkpoint(self) -> bool:
        """Copy the write-ahead log into the database file and truncate it to zero bytes,
        so that old versions of pages (a redacted secret, say) do not linger in the -wal
        file. Returns False when readers kept part of the log from being copied."""
        return await self._submit(self._writer, self._checkpoint)

    def _checkpoint(self) -> bool:
        with self._grouped.connection_lock:
            busy = self.sql("pragma wal_checkpoint(truncate)").fetchone()[0]
        return not busy

    def sql(self, statement: str, params: Sequence[Any] = ()) -> Any:
        """Run raw SQL on the calling thread's connection; returns the DB-API cursor.

        For use inside functions given to ``read`` or ``write``.
        """
        return self.peewee.execute_sql(statement, params)  # type: ignore[no-untyped-call]

    async def info(self) -> DatabaseInfo:
        """Versions and state of the database, read through a live connection."""
        return await self.read(self._info)

    def _info(self) -> DatabaseInfo:
        def scalar(sql: str) -> Any:
            return self.sql(sql).fetchone()[0]

        options = {row[0] for row in self.sql("pragma compile_options")}
        migrations = [row[0] for row in self.sql("select name from schema_migration order by id")]
        return DatabaseInfo(
            path=str(self.path),
            driver=self.driver.__name__,
            sqlite_version=str(scalar("select sqlite_version()")),
            sqlite_vec_version=str(scalar("select vec_version()")),
            fts5="ENABLE_FTS5" in options,
            journal_mode=str(scalar("pragma journal_mode")),
            migrations=migrations,
        )

    async def close(self) -> None:
        """Finish queued work, then close every connection."""
        if self._closed:
            return
        self._closed = True
        await self._grouped.idle()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._shutdown)

    def _shutdown(self) -> None:
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        self.peewee.close_all()

"""SQLite persistence shared by the servers: one database, versioned schemas, idempotency keys.

Why a database at all? AG-UI's human-in-the-loop model ends a run when it needs an approval
(spec 1.1, ``basic/patterns/interrupt-resume``): the *waiting* is not a suspended coroutine but a
row saying "thread T has interrupt I open". A2A tasks outlive the request that created them. If
those rows lived in memory, restarting the server would silently drop every pending approval,
and a double-clicked "Approve" could refund twice. This module keeps such facts on disk with the
standard library's :mod:`sqlite3`.

Theory of operation
-------------------
* One :class:`Store` owns one SQLite database: a file, or ``":memory:"`` for tests and notebooks.
  All its methods go through a single connection guarded by a re-entrant lock, so it is safe to
  share between uvicorn's event loop and worker threads. :meth:`Store.transaction` gives the same
  guarantee to callers that need several statements to happen atomically (``BEGIN IMMEDIATE``
  takes SQLite's write lock up front, so two processes sharing a file also serialise).
* Schemas are versioned per *component* (:meth:`Store.ensure_schema`): this module owns the
  ``core`` component; the AG-UI thread tables (:class:`agentproto.agui.threadstore.ThreadStore`),
  the A2A task tables (:class:`agentproto.a2a.taskstore.TaskStore`) and the demo tools register
  their own tables in the same file without touching these.
* :meth:`Store.idempotent` is the one primitive every "exactly once" in the project rests on:
  the first caller with a key runs the action and records its result inside the same
  transaction; every later caller with that key gets the recorded result back.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from agentproto.clock import Clock
from agentproto.runtime import SystemClock

__all__ = ["Store", "StoreError", "dumps_json", "loads_json"]

T = TypeVar("T")

_CORE_DDL = (
    """CREATE TABLE IF NOT EXISTS schema_versions (
        component TEXT PRIMARY KEY,
        version   INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS idempotency_keys (
        key        TEXT PRIMARY KEY,
        result     TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    )""",
)


class StoreError(Exception):
    """Base class for errors raised by :class:`Store`."""


def dumps_json(value: Any) -> str:
    """Compact JSON for a TEXT column (UTF-8 kept as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads_json(text: str | None) -> Any:
    """The value of a JSON TEXT column (``None`` for SQL NULL)."""
    return None if text is None else json.loads(text)


class Store:
    """A SQLite database and the keys that make actions happen once.

    >>> store = Store(":memory:")
    >>> store.idempotent("refund:t-1:int-1", lambda: {"refundId": "R-1"})
    ({'refundId': 'R-1'}, False)
    >>> store.idempotent("refund:t-1:int-1", lambda: {"refundId": "R-2"})
    ({'refundId': 'R-1'}, True)
    """

    def __init__(self, path: str | Path = ":memory:", *, clock: Clock | None = None) -> None:
        self.path = str(path)
        self.clock: Clock = clock or SystemClock()
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = self._open()
        with self.transaction() as conn:
            for ddl in _CORE_DDL:
                conn.execute(ddl)

    # -- connections and schema -------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def connect(self) -> sqlite3.Connection:
        """A new, independent connection to the same database file.

        For tools and other components that prefer their own connection (they must use
        ``BEGIN IMMEDIATE`` for writes). An in-memory database exists only inside this
        store's own connection, so for ``":memory:"`` use :meth:`transaction` instead.
        """
        if self.path == ":memory:":
            raise StoreError("an in-memory store cannot be opened twice; use Store.transaction()")
        return self._open()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block of statements atomically; commit on success, roll back on error.

        Re-entrant: a transaction opened inside another joins it.
        """
        with self._lock:
            conn = self._conn
            if conn.in_transaction:  # nested: the outer block commits
                yield conn
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def ensure_schema(
        self, component: str, version: int, migrations: Mapping[int, Sequence[str]] | Sequence[str]
    ) -> int:
        """Bring ``component``'s tables up to ``version`` and return the version found before.

        ``migrations`` maps each version to the statements that reach it from the one before;
        a plain list of statements is taken as version 1. Refuses to open a database written by
        a newer version of the component rather than guess at its layout.
        """
        steps = dict(migrations) if isinstance(migrations, Mapping) else {1: tuple(migrations)}
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT version FROM schema_versions WHERE component = ?", (component,)
            ).fetchone()
            found = row["version"] if row else 0
            if found > version:
                raise StoreError(
                    f"{self.path}: component {component!r} has schema version "
                    f"{found}, newer than this code's {version}"
                )
            for step in range(found + 1, version + 1):
                for statement in steps.get(step, ()):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_versions(component, version) VALUES (?, ?) "
                "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
                (component, version),
            )
        return found

    def schema_version(self, component: str) -> int | None:
        """The schema version recorded for ``component``, or None if it has no tables here."""
        with self._lock:
            row = self._conn.execute(
                "SELECT version FROM schema_versions WHERE component = ?", (component,)
            ).fetchone()
        return row["version"] if row else None

    def close(self) -> None:
        """Close the connection. The file (if any) keeps everything committed."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- idempotency keys ---------------------------------------------------------------------

    def idempotent(self, key: str, action: Callable[[], T]) -> tuple[T, bool]:
        """Run ``action`` once per ``key``; return ``(result, replayed)``.

        The first call runs ``action`` and records its (JSON-serialisable) result in the same
        transaction, so a crash between acting and recording is impossible for actions that
        write to this database. Later calls return the recorded result with ``replayed=True``
        and do not run ``action``. An action that raises records nothing.
        """
        with self.transaction() as conn:
            row = conn.execute("SELECT result FROM idempotency_keys WHERE key = ?", (key,)).fetchone()
            if row is not None:
                return json.loads(row["result"]), True
            result = action()
            conn.execute(
                "INSERT INTO idempotency_keys(key, result, created_ms) VALUES (?, ?, ?)",
                (key, dumps_json(result), self.clock.now_ms()),
            )
            return result, False

    def recorded(self, key: str) -> tuple[bool, Any]:
        """``(True, result)`` if ``key`` has a recorded result, else ``(False, None)``."""
        with self._lock:
            row = self._conn.execute("SELECT result FROM idempotency_keys WHERE key = ?", (key,)).fetchone()
        return (True, json.loads(row["result"])) if row else (False, None)

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
  ``core`` component; the AG-UI thread tables (:class:`agentproto.agui._threadstore.ThreadStore`),
  the A2A task tables (:class:`agentproto.a2a._taskstore.TaskStore`) and the demo tools register
  their own tables in the same file without touching these.
* :meth:`Store.idempotent` is the one primitive every "exactly once" in the project rests on:
  the first caller with a key runs the action and records its result inside the same
  transaction; every later caller with that key gets the recorded result back.
* The files are private (:data:`FILE_MODE`, :data:`DIRECTORY_MODE`): they hold conversations,
  approvals and webhook credentials. The database file is created ``0600`` before SQLite opens
  it, and SQLite gives its ``-wal`` and ``-shm`` files the database file's mode; directories the
  store creates are ``0700``. An existing file readable or writable by group or others is
  tightened to ``0600`` (with one warning), not just reported: nothing in the kit shares its
  database with other users, and a warning in a server log is easy to miss. Directories the
  store did not create (``/tmp``, a home directory) are left as they are.
* One *server* per database file: a server recovers "its" interrupted work when it starts
  (running AG-UI runs become errors, working A2A tasks fail), and keeps live tasks in memory,
  so a second server on the same file would undo the first one's work. ``Store(path,
  exclusive=True)`` takes an exclusive advisory lock on ``<path>.lock`` (``fcntl.flock``; the
  holder's PID written inside) for the life of the store, and a second exclusive opener gets
  :class:`DatabaseInUseError` naming that PID. Opening without ``exclusive`` (tests, notebooks,
  tools reading a served file) takes no lock and is never refused.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from agentproto.clock import Clock
from agentproto.errors import AgentProtoError
from agentproto.system import SystemClock

__all__ = [
    "Store",
    "StoreError",
    "DatabaseInUseError",
    "FILE_MODE",
    "DIRECTORY_MODE",
    "LOCK_SUFFIX",
    "dumps_json",
    "loads_json",
]

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Mode of the database file (SQLite copies it to ``-wal``/``-shm``) and of the lock file.
FILE_MODE = 0o600
#: Mode of every directory the store creates for its file.
DIRECTORY_MODE = 0o700
#: The lock file of ``Store(path, exclusive=True)`` is ``path + LOCK_SUFFIX``.
LOCK_SUFFIX = ".lock"
#: Files SQLite keeps next to the database (WAL mode, rollback journal).
_SIDE_FILES = ("-wal", "-shm", "-journal")

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


class StoreError(AgentProtoError):
    """Base class for errors raised by :class:`Store`."""


class DatabaseInUseError(StoreError):
    """Another process (or another exclusive store in this one) serves this database file.

    The message is written to be printed as is, e.g. by ``agentproto serve``."""

    code = "database_in_use"

    def __init__(self, path: str, lock_path: str, holder_pid: int | None) -> None:
        holder = f"process {holder_pid}" if holder_pid is not None else "another process"
        super().__init__(
            f"the database {path} is already in use by {holder} (lock file {lock_path}); "
            "stop that server first, or give this one another database"
        )
        self.path = path
        self.lock_path = lock_path
        self.holder_pid = holder_pid


def _make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and its missing parents with :data:`DIRECTORY_MODE`."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        if directory.parent == directory:
            break
        directory = directory.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, DIRECTORY_MODE)
        except FileExistsError:  # created meanwhile by someone else: theirs, left alone
            pass


def _make_private_file(path: str) -> None:
    """Create ``path`` with :data:`FILE_MODE` if it is missing; tighten it and SQLite's side
    files if group or others may read or write them."""
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, FILE_MODE))
    for name in (path, *(path + suffix for suffix in _SIDE_FILES)):
        try:
            current = os.stat(name).st_mode & 0o777
        except FileNotFoundError:
            continue
        if current & 0o077:
            try:
                os.chmod(name, current & ~0o077)
            except OSError as exc:  # not our file: say so, and go on
                log.warning(
                    "%s is readable by other users (mode %s) and cannot be tightened: %s",
                    name,
                    oct(current),
                    exc,
                )
                continue
            log.warning(
                "%s was readable by other users (mode %s); tightened to %s",
                name,
                oct(current),
                oct(current & ~0o077),
            )


class _ServerLock:
    """An exclusive advisory lock on ``<db>.lock``, held until :meth:`release`."""

    def __init__(self, db_path: str) -> None:
        self.path = db_path + LOCK_SUFFIX
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, FILE_MODE)
        try:
            if not self._try_lock(fd):
                raise DatabaseInUseError(db_path, self.path, self._holder(fd))
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except BaseException:
            os.close(fd)
            raise
        self._fd: int | None = fd

    @staticmethod
    def _try_lock(fd: int) -> bool:
        if sys.platform == "win32":  # pragma: no cover - the kit is tested on Linux
            import msvcrt

            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except OSError:
                return False
            return True
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    @staticmethod
    def _holder(fd: int) -> int | None:
        try:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except (OSError, AttributeError):  # pragma: no cover - pread is POSIX
            return None
        return int(text) if text.isdigit() else None  # empty: the holder is still writing it

    def release(self) -> None:
        """Unlock (closing the descriptor drops the lock). The file stays: removing a lock file
        another process has just opened would let two holders in."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


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

    def __init__(
        self, path: str | Path = ":memory:", *, clock: Clock | None = None, exclusive: bool = False
    ) -> None:
        """Open (creating if need be) the database at ``path``.

        ``exclusive=True`` is for a server: it holds ``<path>.lock`` until :meth:`close` and
        raises :class:`DatabaseInUseError` if another exclusive store holds it (an in-memory
        store has nothing to share, so the flag changes nothing there).
        """
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).expanduser())
        self.clock: Clock = clock or SystemClock()
        self._server_lock: _ServerLock | None = None
        if self.path != ":memory:":
            _make_private_dirs(Path(self.path).parent)
            if exclusive:  # before anything is written: a refused server changes nothing
                self._server_lock = _ServerLock(self.path)
            try:
                _make_private_file(self.path)
            except BaseException:
                self._release()
                raise
        self._lock = threading.RLock()
        try:
            self._conn = self._open()
            with self.transaction() as conn:
                for ddl in _CORE_DDL:
                    conn.execute(ddl)
        except BaseException:
            self._release()
            raise

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
        """Close the connection (and give up the server lock, if held). The file (if any)
        keeps everything committed."""
        with self._lock:
            self._conn.close()
        self._release()

    def _release(self) -> None:
        if self._server_lock is not None:
            self._server_lock.release()
            self._server_lock = None

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

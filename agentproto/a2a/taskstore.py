"""SQLite persistence for A2A tasks, their transition history and push configs.

The tables live in the project's shared database (:class:`agentproto.store.Store`, standard
library :mod:`sqlite3`): ``":memory:"`` for tests and notebooks, a file for
``agentproto serve --db PATH``, next to the AG-UI tables. They are registered as schema
component ``"a2a"``, so the shared store versions and migrates them like its own. Every call is
one short transaction on the store's single, lock-guarded connection, safe to use from the
server's event loop and from a notebook cell at the same time.

``ListTasks`` ordering and paging follow spec §3.1.4: newest status first, cursor ("keyset")
pagination whose token names the last row of the page, so a token stays valid when tasks are
added. Ties in the status timestamp are broken by insertion order, newest first.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from agentproto.a2a.errors import InvalidParamsError
from agentproto.a2a.machine import Transition
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import Task, TaskPushNotificationConfig
from agentproto.store import Store

__all__ = ["TaskStore", "TaskPage", "A2A_SCHEMA_VERSION"]

log = logging.getLogger(__name__)

#: Version of the ``a2a_*`` tables (component ``"a2a"`` of the shared store).
A2A_SCHEMA_VERSION = 1

_SCHEMA_V1 = (
    """CREATE TABLE IF NOT EXISTS a2a_tasks (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    context_id TEXT NOT NULL,
    state      TEXT NOT NULL,
    status_ms  INTEGER NOT NULL,
    body       TEXT NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS a2a_tasks_order ON a2a_tasks (status_ms DESC, seq DESC)",
    "CREATE INDEX IF NOT EXISTS a2a_tasks_context ON a2a_tasks (context_id)",
    """CREATE TABLE IF NOT EXISTS a2a_transitions (
    task_id TEXT NOT NULL,
    n       INTEGER NOT NULL,
    source  TEXT,
    target  TEXT NOT NULL,
    at_ms   INTEGER NOT NULL,
    reason  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (task_id, n)
)""",
    """CREATE TABLE IF NOT EXISTS a2a_push_configs (
    task_id TEXT NOT NULL,
    id      TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (task_id, id)
)""",
)


@dataclass(frozen=True)
class TaskPage:
    """One page of :meth:`TaskStore.page`."""

    tasks: list[Task]
    next_page_token: str
    total_size: int


def _encode_cursor(status_ms: int, seq: int) -> str:
    return base64.urlsafe_b64encode(f"{status_ms}:{seq}".encode()).decode().rstrip("=")


def _decode_cursor(token: str) -> tuple[int, int]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        ms, seq = raw.split(":")
        return int(ms), int(seq)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidParamsError(
            f"invalid pageToken {token!r}: pass back a nextPageToken exactly as received",
            violations=[("pageToken", "not a token this server issued")],
        ) from None


class TaskStore:
    """Tasks (as ProtoJSON), transitions and push configs in one SQLite database."""

    def __init__(self, store: Store | str = ":memory:") -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self.store.ensure_schema("a2a", A2A_SCHEMA_VERSION, {1: _SCHEMA_V1})
        self._tx = self.store.transaction
        #: Records that failed to load: task id (or body prefix) → the error (see ``_task``).
        self.quarantined: dict[str, str] = {}

    @property
    def path(self) -> str:
        return self.store.path

    def close(self) -> None:
        self.store.close()

    # -- tasks -----------------------------------------------------------------------------

    def save(self, task: Task, *, status_ms: int, transition: tuple[int, Transition] | None = None) -> None:
        """Insert or replace a task; ``status_ms`` is its status time (the sort key).

        ``transition`` — ``(n, t)``, the task's ``n``-th transition (0 = creation) — is stored
        in the same transaction, so the task and its history never disagree.
        """
        body = task.model_dump_json(by_alias=True, exclude_defaults=True)
        with self._tx() as db:
            db.execute(
                "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "context_id=excluded.context_id, state=excluded.state, "
                "status_ms=excluded.status_ms, body=excluded.body",
                (task.id, task.context_id, task.status.state.value, status_ms, body),
            )
            if transition is not None:
                self._insert_transition(db, task.id, *transition)

    def load(self, task_id: str) -> Task | None:
        with self._tx() as db:
            row = db.execute("SELECT body FROM a2a_tasks WHERE id = ?", (task_id,)).fetchone()
        return None if row is None else self._task(row[0], task_id)

    def _task(self, body: str, task_id: str = "") -> Task | None:
        """A stored task, or None if its record no longer loads (a *poison* record, e.g.
        written before :mod:`agentproto.limits` existed): it is quarantined — remembered in
        :attr:`quarantined` and logged once — and never breaks a read or a listing."""
        try:
            return Task.model_validate_json(body)
        except (ValueError, RecursionError) as exc:  # pydantic ValidationError, deep JSON
            key = task_id or body[:80]
            if key not in self.quarantined:
                self.quarantined[key] = f"{type(exc).__name__}: {str(exc)[:200]}"
                log.warning(
                    json.dumps(
                        {"event": "a2a_task_quarantined", "taskId": task_id, "error": type(exc).__name__}
                    )
                )
            return None

    def tasks_in(self, states: Iterable[TaskState]) -> list[Task]:
        """Every task currently in one of ``states`` (e.g. to recover after a restart)."""
        wanted = [s.value for s in states]
        marks = ",".join("?" * len(wanted))
        with self._tx() as db:
            rows = db.execute(
                f"SELECT body, id FROM a2a_tasks WHERE state IN ({marks}) ORDER BY seq", wanted
            ).fetchall()
        return [t for t in (self._task(r[0], r[1]) for r in rows) if t is not None]

    def page(
        self,
        *,
        context_id: str = "",
        state: TaskState | None = None,
        status_after_ms: int | None = None,
        page_size: int = 50,
        page_token: str = "",
    ) -> TaskPage:
        """Filter, order newest-status-first and cut one page (spec §3.1.4)."""
        where: list[str] = []
        args: list[object] = []
        if context_id:
            where.append("context_id = ?")
            args.append(context_id)
        if state is not None and state is not TaskState.UNSPECIFIED:
            where.append("state = ?")
            args.append(state.value)
        if status_after_ms is not None:
            where.append("status_ms >= ?")
            args.append(status_after_ms)
        filt = (" WHERE " + " AND ".join(where)) if where else ""
        page_where = list(where)
        page_args = list(args)
        if page_token:
            ms, seq = _decode_cursor(page_token)
            page_where.append("(status_ms < ? OR (status_ms = ? AND seq < ?))")
            page_args += [ms, ms, seq]
        pfilt = (" WHERE " + " AND ".join(page_where)) if page_where else ""
        with self._tx() as db:
            total = db.execute(f"SELECT COUNT(*) FROM a2a_tasks{filt}", args).fetchone()[0]
            rows = db.execute(
                f"SELECT body, status_ms, seq, id FROM a2a_tasks{pfilt} "
                "ORDER BY status_ms DESC, seq DESC LIMIT ?",
                [*page_args, page_size + 1],
            ).fetchall()
        more = len(rows) > page_size
        rows = rows[:page_size]
        token = _encode_cursor(rows[-1][1], rows[-1][2]) if more and rows else ""
        tasks = [t for t in (self._task(r[0], r[3]) for r in rows) if t is not None]
        return TaskPage(tasks, token, total - (len(rows) - len(tasks)))

    # -- transitions -----------------------------------------------------------------------

    def record_transition(self, task_id: str, n: int, t: Transition) -> None:
        """Store the ``n``-th transition of a task (0 = creation)."""
        with self._tx() as db:
            self._insert_transition(db, task_id, n, t)

    @staticmethod
    def _insert_transition(db: sqlite3.Connection, task_id: str, n: int, t: Transition) -> None:
        db.execute(
            "INSERT OR REPLACE INTO a2a_transitions VALUES (?, ?, ?, ?, ?, ?)",
            (task_id, n, t.source.value if t.source else None, t.target.value, t.at_ms, t.reason),
        )

    def transitions(self, task_id: str) -> list[Transition]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT source, target, at_ms, reason FROM a2a_transitions WHERE task_id = ? ORDER BY n",
                (task_id,),
            ).fetchall()
        return [Transition(TaskState(s) if s else None, TaskState(t), at, r) for s, t, at, r in rows]

    # -- push notification configs ---------------------------------------------------------

    def save_push_config(self, config: TaskPushNotificationConfig) -> None:
        body = config.model_dump_json(by_alias=True, exclude_defaults=True)
        with self._tx() as db:
            db.execute(
                "INSERT INTO a2a_push_configs (task_id, id, seq, body) VALUES (?, ?, "
                "(SELECT COALESCE(MAX(seq), 0) + 1 FROM a2a_push_configs), ?) "
                "ON CONFLICT(task_id, id) DO UPDATE SET body=excluded.body",
                (config.task_id, config.id, body),
            )

    def push_config(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        with self._tx() as db:
            row = db.execute(
                "SELECT body FROM a2a_push_configs WHERE task_id = ? AND id = ?",
                (task_id, config_id),
            ).fetchone()
        return None if row is None else TaskPushNotificationConfig.model_validate_json(row[0])

    def push_configs(self, task_id: str) -> list[TaskPushNotificationConfig]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT body FROM a2a_push_configs WHERE task_id = ? ORDER BY seq", (task_id,)
            ).fetchall()
        return [TaskPushNotificationConfig.model_validate_json(r[0]) for r in rows]

    def delete_push_config(self, task_id: str, config_id: str) -> bool:
        with self._tx() as db:
            cur = db.execute(
                "DELETE FROM a2a_push_configs WHERE task_id = ? AND id = ?", (task_id, config_id)
            )
        return cur.rowcount > 0

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

Ownership (schema version 2): every task, push config and context is stored with the
``(tenant, owner)`` of the :class:`~agentproto.a2a.jsonrpc.CallerScope` that created it, and
every read takes a scope and filters by it *in the query* — so a record outside the caller's
scope is indistinguishable from one that does not exist (spec §13.1: "authorization checks
MUST occur before any database queries or operations that could leak information about the
existence of resources outside the caller's authorization scope"). A version-1 database is
migrated in place: its rows belong to the anonymous caller of the default tenant, which is who
could read them before.

Contexts per caller (schema version 3): a ``contextId`` is keyed by ``(tenant, owner,
contextId)``, so two callers may use the same client-chosen string and each gets a context of
their own. Neither can tell whether the other used it — no answer differs — and nobody can
claim a predictable id (``c-1``) before its owner does. A version-2 database keeps every
context row, with the owner it had.

History is append-only: a transition ``n`` is recorded once (plain ``INSERT``; a second writer
of the same ``n`` gets :class:`TaskConflictError` instead of rewriting history), and a task in a
terminal state never changes state again — the ``UPDATE`` itself refuses it, so no process,
however stale its view of the task, can turn a FAILED task into CANCELED.
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
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.machine import Transition
from agentproto.a2a.states import TERMINAL_STATES, TaskState
from agentproto.a2a.types import Task, TaskPushNotificationConfig
from agentproto.store import Store, StoreError

__all__ = ["TaskStore", "TaskPage", "TaskConflictError", "A2A_SCHEMA_VERSION"]

log = logging.getLogger(__name__)

#: Version of the ``a2a_*`` tables (component ``"a2a"`` of the shared store).
A2A_SCHEMA_VERSION = 3

_TERMINAL_SQL = ", ".join(f"'{state.value}'" for state in sorted(TERMINAL_STATES, key=lambda s: s.value))

#: The upsert of :meth:`TaskStore.save` (built once: it runs on every task update).
_SAVE_SQL = (
    "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body, tenant, owner) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
    "context_id=excluded.context_id, state=excluded.state, "
    "status_ms=excluded.status_ms, body=excluded.body "
    "WHERE a2a_tasks.tenant = excluded.tenant AND a2a_tasks.owner = excluded.owner "
    f"AND (a2a_tasks.state NOT IN ({_TERMINAL_SQL}) OR a2a_tasks.state = excluded.state)"
)

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

#: Version 2: tenant and owner on tasks and push configs, and the contexts table. Existing rows
#: get ``("", "")`` — the anonymous caller of the default tenant, who could read them before.
_SCHEMA_V2 = (
    "ALTER TABLE a2a_tasks ADD COLUMN tenant TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE a2a_tasks ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX IF NOT EXISTS a2a_tasks_scope ON a2a_tasks (tenant, owner, status_ms DESC, seq DESC)",
    "ALTER TABLE a2a_push_configs ADD COLUMN tenant TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE a2a_push_configs ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
    """CREATE TABLE IF NOT EXISTS a2a_contexts (
    context_id TEXT PRIMARY KEY,
    tenant     TEXT NOT NULL,
    owner      TEXT NOT NULL
)""",
    "INSERT OR IGNORE INTO a2a_contexts (context_id, tenant, owner) "
    "SELECT context_id, tenant, owner FROM a2a_tasks ORDER BY seq",
)

#: Version 3: contexts keyed by ``(tenant, owner, context_id)`` — a client-chosen id is the
#: caller's own, whoever else uses the same string. Every version-2 row is kept as it was.
_SCHEMA_V3 = (
    """CREATE TABLE a2a_contexts_v3 (
    tenant     TEXT NOT NULL,
    owner      TEXT NOT NULL,
    context_id TEXT NOT NULL,
    PRIMARY KEY (tenant, owner, context_id)
)""",
    "INSERT INTO a2a_contexts_v3 (tenant, owner, context_id) "
    "SELECT tenant, owner, context_id FROM a2a_contexts",
    "DROP TABLE a2a_contexts",
    "ALTER TABLE a2a_contexts_v3 RENAME TO a2a_contexts",
)


class TaskConflictError(StoreError):
    """A write that would rewrite a task's history: a transition number already recorded, or a
    new state for a task that has already ended. Another writer got there first — most likely
    a second server on the same database (see ``Store(path, exclusive=True)``)."""

    code = "task_conflict"

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(f"task {task_id}: {message}")
        self.task_id = task_id


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
    """Tasks (as ProtoJSON), transitions, push configs and contexts in one SQLite database.

    Every read and write takes the caller's scope; the default, the anonymous caller, sees only
    the anonymous caller's records, so a call that forgets its scope fails closed."""

    def __init__(self, store: Store | str = ":memory:") -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        #: The schema version this database had when opened (0: new, 1: migrated from v1 …).
        self.found_version = self.store.ensure_schema(
            "a2a", A2A_SCHEMA_VERSION, {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3}
        )
        self._tx = self.store.transaction
        #: Records that failed to load: task id (or body prefix) → the error (see ``_task``).
        self.quarantined: dict[str, str] = {}

    @property
    def path(self) -> str:
        return self.store.path

    def close(self) -> None:
        self.store.close()

    # -- tasks -----------------------------------------------------------------------------

    def save(
        self,
        task: Task,
        *,
        status_ms: int,
        scope: CallerScope = ANONYMOUS,
        transitions: Iterable[tuple[int, Transition]] = (),
        claim_context: bool = False,
    ) -> None:
        """Insert or replace a task; ``status_ms`` is its status time (the sort key).

        ``scope`` owns a new task; an existing task keeps its owner (the update is refused
        silently for another scope: it matches no row). ``transitions`` — pairs ``(n, t)``,
        the task's ``n``-th transition (0 = creation) — are stored in the same transaction, so
        the task and its history never disagree; so is the claim of the task's context for
        ``scope`` (:meth:`claim_context`) if ``claim_context``: one transaction for a new task.

        Raises :class:`TaskConflictError` (and stores nothing) if the stored task has ended in
        another state than ``task``'s, or if a transition ``n`` is already recorded.
        """
        body = task.to_json()
        with self._tx() as db:
            if claim_context:
                self._claim(db, task.context_id, scope)
            cur = db.execute(
                _SAVE_SQL,
                (
                    task.id,
                    task.context_id,
                    task.status.state.value,
                    status_ms,
                    body,
                    scope.tenant,
                    scope.owner,
                ),
            )
            if cur.rowcount == 0:  # matched no row: another scope's task (silent) or an ended one
                row = db.execute(
                    "SELECT state FROM a2a_tasks WHERE id = ? AND tenant = ? AND owner = ?",
                    (task.id, scope.tenant, scope.owner),
                ).fetchone()
                if row is None:
                    return
                raise TaskConflictError(
                    task.id,
                    f"it has already ended as {row[0]} and cannot become {task.status.state.value}",
                )
            self._insert_transitions(db, task.id, transitions)

    def load(self, task_id: str, scope: CallerScope = ANONYMOUS) -> Task | None:
        """The task ``task_id`` if ``scope`` owns it, else None (as for an unknown id)."""
        with self._tx() as db:
            row = db.execute(
                "SELECT body FROM a2a_tasks WHERE id = ? AND tenant = ? AND owner = ?",
                (task_id, scope.tenant, scope.owner),
            ).fetchone()
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

    def tasks_in(self, states: Iterable[TaskState]) -> list[tuple[Task, CallerScope]]:
        """Every task currently in one of ``states``, with its owner's scope — across all
        scopes: this is the operator's view (recovery after a restart), never a caller's."""
        wanted = [s.value for s in states]
        marks = ",".join("?" * len(wanted))
        with self._tx() as db:
            rows = db.execute(
                f"SELECT body, id, tenant, owner FROM a2a_tasks WHERE state IN ({marks}) ORDER BY seq",
                wanted,
            ).fetchall()
        out = []
        for body, ident, tenant, owner in rows:
            task = self._task(body, ident)
            if task is not None:
                out.append((task, CallerScope(tenant, owner or None)))
        return out

    def count_in(self, states: Iterable[TaskState]) -> int:
        """How many tasks are in one of ``states``, across all scopes (the operator's view)."""
        wanted = [s.value for s in states]
        with self._tx() as db:
            (n,) = db.execute(
                f"SELECT COUNT(*) FROM a2a_tasks WHERE state IN ({','.join('?' * len(wanted))})", wanted
            ).fetchone()
        return int(n)

    def page(
        self,
        *,
        scope: CallerScope = ANONYMOUS,
        context_id: str = "",
        state: TaskState | None = None,
        status_after_ms: int | None = None,
        page_size: int = 50,
        page_token: str = "",
    ) -> TaskPage:
        """Filter, order newest-status-first and cut one page (spec §3.1.4) — of ``scope``'s
        tasks only (§3.1.4, §13.1: even without filters, results are the caller's)."""
        where: list[str] = ["tenant = ?", "owner = ?"]
        args: list[object] = [scope.tenant, scope.owner]
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

    # -- contexts ---------------------------------------------------------------------------

    def claim_context(self, context_id: str, scope: CallerScope) -> bool:
        """Record that ``scope`` uses ``context_id``; True once it is ``scope``'s.

        Contexts are keyed per caller (schema v3), so this always succeeds: another scope using
        the same string has a context of its own, invisible from here. (The boolean is kept
        for callers written when a context had a single owner.) One statement: after ``INSERT OR
        IGNORE`` on the row's own key the row exists — unless a key part was NULL, which the
        ``NOT NULL`` columns ignore — so no read-back is needed (this runs on every new
        conversation's hot path)."""
        with self._tx() as db:
            self._claim(db, context_id, scope)
        return None not in (scope.tenant, scope.owner, context_id)

    @staticmethod
    def _claim(db: sqlite3.Connection, context_id: str, scope: CallerScope) -> None:
        db.execute(
            "INSERT OR IGNORE INTO a2a_contexts (tenant, owner, context_id) VALUES (?, ?, ?)",
            (scope.tenant, scope.owner, context_id),
        )

    # -- transitions -----------------------------------------------------------------------

    def record_transition(self, task_id: str, n: int, t: Transition) -> None:
        """Store the ``n``-th transition of a task (0 = creation)."""
        with self._tx() as db:
            self._insert_transitions(db, task_id, [(n, t)])

    @staticmethod
    def _insert_transitions(
        db: sqlite3.Connection, task_id: str, transitions: Iterable[tuple[int, Transition]]
    ) -> None:
        rows = [
            (task_id, n, t.source.value if t.source else None, t.target.value, t.at_ms, t.reason)
            for n, t in transitions
        ]
        if not rows:
            return
        try:
            db.executemany("INSERT INTO a2a_transitions VALUES (?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.IntegrityError:
            which = (
                f"transition {rows[0][1]}"
                if len(rows) == 1
                else f"one of transitions {rows[0][1]}-{rows[-1][1]}"
            )
            raise TaskConflictError(
                task_id, f"{which} is already recorded; history is never rewritten"
            ) from None

    def transitions(self, task_id: str) -> list[Transition]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT source, target, at_ms, reason FROM a2a_transitions WHERE task_id = ? ORDER BY n",
                (task_id,),
            ).fetchall()
        return [Transition(TaskState(s) if s else None, TaskState(t), at, r) for s, t, at, r in rows]

    # -- push notification configs ---------------------------------------------------------

    # Push configs carry their own (tenant, owner) although their task does too: a config is
    # never read without its scope, even by a caller that guessed a task id and a config id.

    def save_push_config(self, config: TaskPushNotificationConfig, scope: CallerScope = ANONYMOUS) -> None:
        body = config.to_json()
        with self._tx() as db:
            db.execute(
                "INSERT INTO a2a_push_configs (task_id, id, seq, body, tenant, owner) VALUES (?, ?, "
                "(SELECT COALESCE(MAX(seq), 0) + 1 FROM a2a_push_configs), ?, ?, ?) "
                "ON CONFLICT(task_id, id) DO UPDATE SET body=excluded.body "
                "WHERE a2a_push_configs.tenant = excluded.tenant AND a2a_push_configs.owner = excluded.owner",
                (config.task_id, config.id, body, scope.tenant, scope.owner),
            )

    def push_config(
        self, task_id: str, config_id: str, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig | None:
        with self._tx() as db:
            row = db.execute(
                "SELECT body FROM a2a_push_configs WHERE task_id = ? AND id = ? AND tenant = ? AND owner = ?",
                (task_id, config_id, scope.tenant, scope.owner),
            ).fetchone()
        return None if row is None else TaskPushNotificationConfig.model_validate_json(row[0])

    def push_configs(self, task_id: str, scope: CallerScope = ANONYMOUS) -> list[TaskPushNotificationConfig]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT body FROM a2a_push_configs WHERE task_id = ? AND tenant = ? AND owner = ? "
                "ORDER BY seq",
                (task_id, scope.tenant, scope.owner),
            ).fetchall()
        return [TaskPushNotificationConfig.model_validate_json(r[0]) for r in rows]

    def delete_push_config(self, task_id: str, config_id: str, scope: CallerScope = ANONYMOUS) -> bool:
        with self._tx() as db:
            cur = db.execute(
                "DELETE FROM a2a_push_configs WHERE task_id = ? AND id = ? AND tenant = ? AND owner = ?",
                (task_id, config_id, scope.tenant, scope.owner),
            )
        return cur.rowcount > 0

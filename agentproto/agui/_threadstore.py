"""The AG-UI server's thread tables: threads, messages, runs, event logs and pending interrupts.

A :class:`ThreadStore` is a :class:`~agentproto.store.Store` (one SQLite database, versioned
schemas, idempotency keys) that also owns the ``agui`` component: everything a client needs to
rebuild a thread after a dropped connection or a server restart, and the interrupt ledger that
:func:`~agentproto.agui.interrupts.validate_resume` checks a resume against. Nothing here knows
HTTP or AG-UI events beyond plain JSON dicts: the server decides what to record, the store only
remembers it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentproto.agui.interrupts import InterruptRecord, ThreadRecord
from agentproto.clock import Clock
from agentproto.store import Store, StoreError, dumps_json, loads_json

__all__ = [
    "ThreadStore",
    "RunIdReusedError",
    "ThreadFullError",
    "RunRecord",
    "ThreadSnapshot",
    "AGUI_SCHEMA_VERSION",
]

#: Version of the tables this module owns. Bump it and add a migration step in
#: :data:`_AGUI_MIGRATIONS` when they change; :meth:`Store.ensure_schema` applies the steps.
AGUI_SCHEMA_VERSION = 1

#: version -> statements that bring the ``agui`` component from version-1 to version.
_AGUI_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE agui_threads (
            thread_id  TEXT PRIMARY KEY,
            state      TEXT NOT NULL,
            created_ms INTEGER NOT NULL,
            updated_ms INTEGER NOT NULL
        )""",
        # seq keeps the conversation order; replacing a message keeps its seq (position).
        """CREATE TABLE agui_messages (
            thread_id  TEXT NOT NULL,
            message_id TEXT NOT NULL,
            seq        INTEGER NOT NULL,
            body       TEXT NOT NULL,
            PRIMARY KEY (thread_id, message_id)
        )""",
        """CREATE TABLE agui_runs (
            thread_id   TEXT NOT NULL,
            run_id      TEXT NOT NULL,
            seq         INTEGER NOT NULL,
            kind        TEXT NOT NULL,
            status      TEXT NOT NULL,
            started_ms  INTEGER NOT NULL,
            finished_ms INTEGER,
            outcome     TEXT,
            result      TEXT,
            error       TEXT,
            replay_of   TEXT,
            PRIMARY KEY (thread_id, run_id)
        )""",
        """CREATE TABLE agui_events (
            thread_id TEXT NOT NULL,
            run_id    TEXT NOT NULL,
            seq       INTEGER NOT NULL,
            body      TEXT NOT NULL,
            PRIMARY KEY (thread_id, run_id, seq)
        )""",
        """CREATE TABLE agui_interrupts (
            thread_id    TEXT NOT NULL,
            interrupt_id TEXT NOT NULL,
            run_id       TEXT NOT NULL,
            seq          INTEGER NOT NULL,
            body         TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('pending', 'resolved', 'cancelled')),
            decision     TEXT,
            settled_by   TEXT,
            created_ms   INTEGER NOT NULL,
            settled_ms   INTEGER,
            PRIMARY KEY (thread_id, interrupt_id)
        )""",
    ),
}


class RunIdReusedError(StoreError):
    """A ``runId`` was used twice on one thread (spec 1.1 ``basic/index``: MUST NOT be reused)."""

    code = "run_id_reused"

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(
            f"Run {run_id!r} already exists on thread {thread_id!r}; a runId must not be reused on a thread"
        )
        self.thread_id = thread_id
        self.run_id = run_id


class ThreadFullError(StoreError):
    """New messages would take a thread past the most its server keeps (the server's limit)."""

    code = "thread_full"

    def __init__(self, thread_id: str, held: int, new: int, most: int) -> None:
        super().__init__(
            f"Thread {thread_id!r} holds {held} messages and this run adds {new}; this server keeps "
            f"at most {most} per thread: start a new thread"
        )
        self.thread_id, self.held, self.new, self.most = thread_id, held, new, most


@dataclass(frozen=True)
class RunRecord:
    """What the store remembers about one run."""

    thread_id: str
    run_id: str
    kind: str  #: ``new``, ``resume`` or ``replay``
    status: str  #: ``running``, ``success``, ``interrupt``, ``cancelled`` or ``error``
    started_ms: int
    finished_ms: int | None = None
    outcome: dict[str, Any] | None = None
    result: Any = None
    error: dict[str, Any] | None = None
    replay_of: str | None = None

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def to_json(self) -> dict[str, Any]:
        """The record in the camelCase shape the HTTP API returns."""
        out: dict[str, Any] = {
            "runId": self.run_id,
            "kind": self.kind,
            "status": self.status,
            "startedMs": self.started_ms,
        }
        for key, value in (
            ("finishedMs", self.finished_ms),
            ("outcome", self.outcome),
            ("result", self.result),
            ("error", self.error),
            ("replayOf", self.replay_of),
        ):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class ThreadSnapshot:
    """Everything a client needs to rebuild its view of a thread (``GET /ag-ui/threads/{id}``)."""

    thread_id: str
    state: Any
    messages: list[dict[str, Any]]
    pending_interrupts: list[dict[str, Any]]
    runs: list[RunRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "threadId": self.thread_id,
            "state": self.state,
            "messages": self.messages,
            "pendingInterrupts": self.pending_interrupts,
            "runs": [run.to_json() for run in self.runs],
        }


class ThreadStore(Store):
    """A :class:`~agentproto.store.Store` with the AG-UI thread tables.

    >>> store = ThreadStore(":memory:")
    >>> store.ensure_thread("thread-1", state={"step": 1})
    True
    >>> store.thread_state("thread-1")
    {'step': 1}
    """

    def __init__(
        self, path: str | Path = ":memory:", *, clock: Clock | None = None, exclusive: bool = False
    ) -> None:
        super().__init__(path, clock=clock, exclusive=exclusive)
        try:
            self.ensure_schema("agui", AGUI_SCHEMA_VERSION, _AGUI_MIGRATIONS)
        except BaseException:  # e.g. a newer schema: give the file (and its lock) back
            self.close()
            raise

    # -- threads ----------------------------------------------------------------------------

    def has_thread(self, thread_id: str) -> bool:
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM agui_threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return row is not None

    def ensure_thread(self, thread_id: str, *, state: Any = None) -> bool:
        """Create the thread if it is new (with ``state``, default ``{}``); True if created."""
        now = self.clock.now_ms()
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO agui_threads(thread_id, state, created_ms, updated_ms) "
                "VALUES (?, ?, ?, ?)",
                (thread_id, dumps_json({} if state is None else state), now, now),
            )
            return cur.rowcount == 1

    def thread_state(self, thread_id: str) -> Any:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM agui_threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return loads_json(row["state"]) if row else None

    def save_state(self, thread_id: str, state: Any) -> None:
        """Replace the thread's state (a STATE_SNAPSHOT replaces wholesale, so does this)."""
        with self.transaction() as conn:
            self.ensure_thread(thread_id)
            conn.execute(
                "UPDATE agui_threads SET state = ?, updated_ms = ? WHERE thread_id = ?",
                (dumps_json(state), self.clock.now_ms(), thread_id),
            )

    def messages(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's messages in conversation order (AG-UI wire shape)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT body FROM agui_messages WHERE thread_id = ? ORDER BY seq", (thread_id,)
            ).fetchall()
        return [json.loads(row["body"]) for row in rows]

    def save_messages(
        self, thread_id: str, messages: Sequence[dict[str, Any]], *, base: Collection[str] | None = None
    ) -> None:
        """Reconcile the stored messages with ``messages`` the way MESSAGES_SNAPSHOT does.

        A known id is replaced in place (its position kept), an unseen id is appended, and a
        stored message missing from ``messages`` is dropped (spec 1.1 ``events/state``). With
        ``base`` (the ids a run started from), only those are dropped: what other runs on the
        thread stored meanwhile is kept.
        """
        with self.transaction() as conn:
            self.ensure_thread(thread_id)
            known = {
                row["message_id"]: row["seq"]
                for row in conn.execute(
                    "SELECT message_id, seq FROM agui_messages WHERE thread_id = ?", (thread_id,)
                )
            }
            next_seq = max(known.values(), default=0) + 1
            keep = []
            for message in messages:
                message_id = str(message["id"])
                keep.append(message_id)
                if message_id in known:
                    conn.execute(
                        "UPDATE agui_messages SET body = ? WHERE thread_id = ? AND message_id = ?",
                        (dumps_json(message), thread_id, message_id),
                    )
                else:
                    conn.execute(
                        "INSERT INTO agui_messages(thread_id, message_id, seq, body) VALUES (?, ?, ?, ?)",
                        (thread_id, message_id, next_seq, dumps_json(message)),
                    )
                    known[message_id] = next_seq
                    next_seq += 1
            for message_id in (set(known) if base is None else set(base)) - set(keep):
                conn.execute(
                    "DELETE FROM agui_messages WHERE thread_id = ? AND message_id = ?",
                    (thread_id, message_id),
                )

    def append_messages(
        self,
        thread_id: str,
        messages: Sequence[dict[str, Any]],
        *,
        most: int | None = None,
        resume: bool = False,
    ) -> int:
        """Append the messages whose ids the thread has not seen; return how many ids were new.
        With ``most``, :class:`ThreadFullError` (nothing written) if the thread would then hold
        more than ``most`` messages, unless this is a ``resume`` that adds none: answering or
        cancelling an interrupt stays possible on a thread its agent filled."""
        with self.transaction():
            current = self.messages(thread_id)
            seen = {m["id"] for m in current}
            new = [m for m in messages if m.get("id") not in seen]
            adds = len({m.get("id") for m in new})  # an id sent twice is one message
            if most is not None and len(current) + adds > most and not (resume and adds == 0):
                raise ThreadFullError(thread_id, len(current), adds, most)
            if new:
                self.save_messages(thread_id, current + new)
            return adds

    # -- runs and their events --------------------------------------------------------------

    def start_run(
        self, thread_id: str, run_id: str, *, kind: str = "new", replay_of: str | None = None
    ) -> RunRecord:
        """Record that a run began. Raises :class:`RunIdReusedError` for a reused ``runId``."""
        now = self.clock.now_ms()
        with self.transaction() as conn:
            self.ensure_thread(thread_id)
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM agui_runs WHERE thread_id = ?", (thread_id,)
            ).fetchone()[0]
            try:
                conn.execute(
                    "INSERT INTO agui_runs(thread_id, run_id, seq, kind, status, started_ms, "
                    "replay_of) VALUES (?, ?, ?, ?, 'running', ?, ?)",
                    (thread_id, run_id, seq, kind, now, replay_of),
                )
            except sqlite3.IntegrityError:
                raise RunIdReusedError(thread_id, run_id) from None
        return RunRecord(thread_id, run_id, kind, "running", now, replay_of=replay_of)

    def finish_run(
        self,
        thread_id: str,
        run_id: str,
        *,
        status: str,
        outcome: dict[str, Any] | None = None,
        result: Any = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        """Record how a run ended (``success``, ``interrupt``, ``cancelled`` or ``error``).

        Only a run still ``running`` changes: an ended run's record is history, whoever writes
        later (a second process on the same file, say) cannot rewrite it."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE agui_runs SET status = ?, finished_ms = ?, outcome = ?, result = ?, "
                "error = ? WHERE thread_id = ? AND run_id = ? AND status = 'running'",
                (
                    status,
                    self.clock.now_ms(),
                    None if outcome is None else dumps_json(outcome),
                    None if result is None else dumps_json(result),
                    None if error is None else dumps_json(error),
                    thread_id,
                    run_id,
                ),
            )

    def abandon_running_runs(self) -> list[RunRecord]:
        """Mark runs left ``running`` by a previous process as failed; return them.

        Called when a server starts: a run cannot outlive the process executing it. A resumed
        run abandoned this way gives its interrupts back, so the person can answer again.
        """
        with self.transaction() as conn:
            stale = [
                self._run_from_row(row)
                for row in conn.execute("SELECT * FROM agui_runs WHERE status = 'running'")
            ]
            for run in stale:
                self.finish_run(
                    run.thread_id,
                    run.run_id,
                    status="error",
                    error={
                        "message": "The server stopped while the run was executing",
                        "code": "SERVER_RESTARTED",
                    },
                )
                if run.kind == "resume":
                    self.reopen_interrupts(run.thread_id, run.run_id)
        return stale

    def run(self, thread_id: str, run_id: str) -> RunRecord | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM agui_runs WHERE thread_id = ? AND run_id = ?", (thread_id, run_id)
            ).fetchone()
        return None if row is None else self._run_from_row(row)

    def runs(self, thread_id: str) -> list[RunRecord]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM agui_runs WHERE thread_id = ? ORDER BY seq", (thread_id,)
            ).fetchall()
        return [self._run_from_row(row) for row in rows]

    @staticmethod
    def _run_from_row(row: sqlite3.Row) -> RunRecord:
        return RunRecord(
            thread_id=row["thread_id"],
            run_id=row["run_id"],
            kind=row["kind"],
            status=row["status"],
            started_ms=row["started_ms"],
            finished_ms=row["finished_ms"],
            outcome=loads_json(row["outcome"]),
            result=loads_json(row["result"]),
            error=loads_json(row["error"]),
            replay_of=row["replay_of"],
        )

    def append_event(self, thread_id: str, run_id: str, event: dict[str, Any]) -> int:
        """Append one emitted event (wire dict) to the run's log; return its sequence number."""
        with self.transaction() as conn:
            seq = int(
                conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM agui_events WHERE thread_id = ? AND run_id = ?",
                    (thread_id, run_id),
                ).fetchone()[0]
            )
            conn.execute(
                "INSERT INTO agui_events(thread_id, run_id, seq, body) VALUES (?, ?, ?, ?)",
                (thread_id, run_id, seq, dumps_json(event)),
            )
        return seq

    def events(self, thread_id: str, run_id: str) -> list[dict[str, Any]]:
        """The events a run emitted, in order — the audit log of what the client was sent."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT body FROM agui_events WHERE thread_id = ? AND run_id = ? ORDER BY seq",
                (thread_id, run_id),
            ).fetchall()
        return [json.loads(row["body"]) for row in rows]

    # -- interrupts ---------------------------------------------------------------------------

    def add_interrupts(self, thread_id: str, run_id: str, interrupts: Sequence[dict[str, Any]]) -> None:
        """Record the interrupts a run finished with as pending on the thread."""
        now = self.clock.now_ms()
        with self.transaction() as conn:
            self.ensure_thread(thread_id)
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM agui_interrupts WHERE thread_id = ?", (thread_id,)
            ).fetchone()[0]
            for offset, interrupt in enumerate(interrupts, start=1):
                conn.execute(
                    "INSERT INTO agui_interrupts(thread_id, interrupt_id, run_id, seq, body, "
                    "status, created_ms) VALUES (?, ?, ?, ?, ?, 'pending', ?)",
                    (thread_id, interrupt["id"], run_id, seq + offset, dumps_json(interrupt), now),
                )

    def settle_interrupts(self, thread_id: str, entries: Sequence[dict[str, Any]], run_id: str) -> int:
        """Mark pending interrupts as answered by ``entries`` (ResumeEntry wire dicts).

        Only rows still ``pending`` change, so of two racing resumes exactly one settles an
        interrupt: the return value is how many rows this call settled.
        """
        now = self.clock.now_ms()
        changed = 0
        with self.transaction() as conn:
            for entry in entries:
                cur = conn.execute(
                    "UPDATE agui_interrupts SET status = ?, decision = ?, settled_by = ?, "
                    "settled_ms = ? WHERE thread_id = ? AND interrupt_id = ? "
                    "AND status = 'pending'",
                    (entry["status"], dumps_json(entry), run_id, now, thread_id, entry["interruptId"]),
                )
                changed += cur.rowcount
        return changed

    def reopen_interrupts(self, thread_id: str, run_id: str) -> int:
        """Put the interrupts settled by ``run_id`` back to pending; return how many.

        Used when a resumed run fails before completing its work, so the person can answer
        again (the tools' own idempotency keys keep a retried action from happening twice).
        """
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE agui_interrupts SET status = 'pending', decision = NULL, "
                "settled_by = NULL, settled_ms = NULL WHERE thread_id = ? AND settled_by = ?",
                (thread_id, run_id),
            )
            return cur.rowcount

    def interrupt_thread(self, interrupt_id: str) -> str | None:
        """The thread that raised ``interrupt_id`` (any status), or None if none did."""
        with self._lock:
            row = self._conn.execute(
                "SELECT thread_id FROM agui_interrupts WHERE interrupt_id = ? LIMIT 1", (interrupt_id,)
            ).fetchone()
        return row["thread_id"] if row else None

    def thread_record(self, thread_id: str) -> ThreadRecord:
        """The interrupt ledger of a thread, as :func:`~agentproto.agui.interrupts.validate_resume`
        reads it (an empty ledger for an unknown thread)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT i.*, r.seq AS run_seq FROM agui_interrupts i LEFT JOIN agui_runs r "
                "ON r.thread_id = i.thread_id AND r.run_id = i.run_id "
                "WHERE i.thread_id = ? ORDER BY i.seq",
                (thread_id,),
            ).fetchall()
            last = self._conn.execute(
                "SELECT run_id FROM agui_runs WHERE thread_id = ? AND status = 'interrupt' "
                "AND kind != 'replay' "
                "ORDER BY seq DESC LIMIT 1",
                (thread_id,),
            ).fetchone()
        records = tuple(
            InterruptRecord(
                interrupt=json.loads(row["body"]),
                run_id=row["run_id"],
                status=row["status"],
                decision=loads_json(row["decision"]),
                settled_by=row["settled_by"],
            )
            for row in rows
        )
        return ThreadRecord(
            thread_id=thread_id, interrupts=records, last_interrupted_run_id=last["run_id"] if last else None
        )

    def snapshot(self, thread_id: str) -> ThreadSnapshot | None:
        """The whole thread as the reconnect endpoint serves it, or None if it does not exist."""
        with self._lock:
            if not self.has_thread(thread_id):
                return None
            record = self.thread_record(thread_id)
            return ThreadSnapshot(
                thread_id=thread_id,
                state=self.thread_state(thread_id),
                messages=self.messages(thread_id),
                pending_interrupts=[r.interrupt for r in record.pending],
                runs=self.runs(thread_id),
            )

"""Who owns which AG-UI thread — and so its runs, events and interrupts.

The browser is outside the trust boundary, and so is every *other* authenticated client: when
an authentication layer in front of the AG-UI routes has verified a caller (``scope["state"]
["claims"].subject``, what :class:`agentproto.security.serving.BearerAuth` and ``agentproto
serve --auth`` set), the thread belongs to the subject whose request created it. Another
subject gets exactly what an unknown thread gets — ``404 thread_not_found`` for a snapshot or a
run's events, ``404 run_not_active`` for a cancel — and cannot post a new run or a resume into
it: the pending interrupts of a thread are answered only by its owner. Without authentication
every caller is the anonymous one (owner ``""``), which is the default mode's behaviour.

AG-UI itself defines no authentication or ownership (spec 1.1 is transport-agnostic); this is
the server's authorization model, kept in the same SQLite database as the threads (component
``agui_owners``), next to them and not in an ASGI layer, so no route can skip it.

Thread ids per owner (schema version 2). A ``threadId`` is the client's choice, so it is keyed
by ``(owner, threadId)``: two subjects may use the same string and each gets a thread of their
own. Nobody can claim a predictable id (``t-1``) before its owner does, and no answer tells a
caller whether another caller uses an id — a new id and someone else's id behave the same (a
new thread). The thread tables keep one key per thread, the *storage key* this table maps
``(owner, threadId)`` to: the thread id itself for the anonymous caller (so default-mode
databases, notebooks and tools read threads by their ids as before), ``<owner>/<threadId>`` for
an authenticated subject, with ``~2``, ``~3`` … appended in the rare case the key is already
taken. Events on the wire always carry the client's ``threadId``, never the storage key.
A version-1 database keeps every row: its threads keep their ids as storage keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentproto.store import Store

__all__ = ["ThreadOwners", "request_subject", "AGUI_OWNERS_SCHEMA_VERSION"]

AGUI_OWNERS_SCHEMA_VERSION = 2
_V1 = ("CREATE TABLE IF NOT EXISTS agui_thread_owners (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL)",)
#: Version 2: keyed by (owner, thread_id); ``store_key`` NULL means "the thread id itself" (what
#: every version-1 row, and a row written by an older migration, means).
_V2 = (
    """CREATE TABLE agui_thread_owners_v2 (
        owner     TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        store_key TEXT,
        PRIMARY KEY (owner, thread_id)
    )""",
    "INSERT INTO agui_thread_owners_v2 (owner, thread_id, store_key) "
    "SELECT owner, thread_id, NULL FROM agui_thread_owners",
    "DROP TABLE agui_thread_owners",
    "ALTER TABLE agui_thread_owners_v2 RENAME TO agui_thread_owners",
    "CREATE UNIQUE INDEX agui_thread_owners_key ON agui_thread_owners (COALESCE(store_key, thread_id))",
)
_KEY = "COALESCE(store_key, thread_id)"


def request_subject(asgi_scope: Mapping[str, Any]) -> str:
    """The authenticated subject of a request, ``""`` for the anonymous caller; verified
    claims without a subject raise ``ValueError`` rather than pass for the anonymous caller."""
    state = asgi_scope.get("state") or {}
    claims = state.get("claims")
    if claims is None:
        return ""
    subject = getattr(claims, "subject", None)
    if not isinstance(subject, str) or not subject:  # verified, but names nobody: fail closed
        raise ValueError("the authenticated caller has no subject")
    return subject


class ThreadOwners:
    """``(owner, thread_id) → storage key`` in ``store``. A thread in the thread tables that no
    row names belongs to the anonymous caller under its own id (threads written before this
    table existed, or by a store used without a server)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        store.ensure_schema("agui_owners", AGUI_OWNERS_SCHEMA_VERSION, {1: _V1, 2: _V2})

    def key(self, thread_id: str, subject: str) -> str | None:
        """The storage key of ``subject``'s thread ``thread_id``, or None if it has none."""
        with self.store.transaction() as db:
            row = db.execute(
                f"SELECT {_KEY} FROM agui_thread_owners WHERE owner = ? AND thread_id = ?",
                (subject, thread_id),
            ).fetchone()
            if row is not None:
                return str(row[0])
            if subject == "" and self._unclaimed_thread(db, thread_id):
                return thread_id
        return None

    def may_use(self, thread_id: str, subject: str) -> bool:
        """Has ``subject`` a thread ``thread_id``?"""
        return self.key(thread_id, subject) is not None

    def claim(self, thread_id: str, subject: str) -> str:
        """The storage key of ``subject``'s thread ``thread_id``, reserved now if it is new.

        Call it inside the transaction that creates the thread: if that transaction rolls back
        (a refused request), the reservation goes with it."""
        with self.store.transaction() as db:
            found = self.key(thread_id, subject)
            if found is not None:
                return found
            base = thread_id if subject == "" else f"{subject}/{thread_id}"
            candidate, n = base, 1
            while self._taken(db, candidate):
                n += 1
                candidate = f"{base}~{n}"
            db.execute(
                "INSERT INTO agui_thread_owners (owner, thread_id, store_key) VALUES (?, ?, ?)",
                (subject, thread_id, None if candidate == thread_id else candidate),
            )
            return candidate

    @staticmethod
    def _taken(db: Any, key: str) -> bool:
        named = db.execute(f"SELECT 1 FROM agui_thread_owners WHERE {_KEY} = ?", (key,)).fetchone()
        return named is not None or _thread_exists(db, key)

    @staticmethod
    def _unclaimed_thread(db: Any, key: str) -> bool:
        named = db.execute(f"SELECT 1 FROM agui_thread_owners WHERE {_KEY} = ?", (key,)).fetchone()
        return named is None and _thread_exists(db, key)


def _thread_exists(db: Any, key: str) -> bool:
    """Is ``key`` a thread in the thread tables? (They may not exist yet in a bare store.)"""
    table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agui_threads'"
    ).fetchone()
    if table is None:
        return False
    return db.execute("SELECT 1 FROM agui_threads WHERE thread_id = ?", (key,)).fetchone() is not None

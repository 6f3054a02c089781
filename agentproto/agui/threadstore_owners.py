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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentproto.store import Store

__all__ = ["ThreadOwners", "request_subject", "AGUI_OWNERS_SCHEMA_VERSION"]

AGUI_OWNERS_SCHEMA_VERSION = 1
_DDL = ("CREATE TABLE IF NOT EXISTS agui_thread_owners (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL)",)


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
    """``thread_id → owner`` in ``store``; a thread nobody claimed belongs to the anonymous
    caller (threads written before this table existed, or in default mode)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        store.ensure_schema("agui_owners", AGUI_OWNERS_SCHEMA_VERSION, {1: _DDL})

    def owner(self, thread_id: str) -> str | None:
        """The recorded owner, or None if the thread was never claimed."""
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT owner FROM agui_thread_owners WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def may_use(self, thread_id: str, subject: str) -> bool:
        """May ``subject`` read or continue ``thread_id``?"""
        owner = self.owner(thread_id)
        return (owner if owner is not None else "") == subject

    def claim(self, thread_id: str, subject: str, *, exists: bool) -> bool:
        """Make ``subject`` the owner of a thread it is about to use; True if it may.

        A thread that already ``exists`` without an owner row belongs to the anonymous caller
        and is not handed to the first authenticated subject that names it."""
        if self.owner(thread_id) is None and not exists:
            with self.store.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO agui_thread_owners (thread_id, owner) VALUES (?, ?)",
                    (thread_id, subject),
                )
        return self.may_use(thread_id, subject)

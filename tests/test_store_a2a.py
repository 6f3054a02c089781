"""The A2A task store keeps history honest (F10) and client-chosen context ids per caller (F15)."""

from __future__ import annotations

import pytest

from agentproto.a2a._taskstore import (
    _SCHEMA_V1,
    _SCHEMA_V2,
    A2A_SCHEMA_VERSION,
    TaskConflictError,
    TaskStore,
)
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.machine import Transition
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import Task, TaskStatus
from agentproto.store import Store, StoreError

ALICE = CallerScope("", "alice")
BOB = CallerScope("", "bob")
ACME_ALICE = CallerScope("acme", "alice")


def task(state: TaskState, task_id: str = "t-1", context_id: str = "c-1") -> Task:
    return Task(id=task_id, context_id=context_id, status=TaskStatus(state=state))


def started(store: TaskStore, scope: CallerScope = ALICE) -> None:
    store.save(
        task(TaskState.SUBMITTED),
        status_ms=1,
        scope=scope,
        transitions=[(0, Transition(None, TaskState.SUBMITTED, 1, "created"))],
    )
    store.save(
        task(TaskState.WORKING),
        status_ms=2,
        scope=scope,
        transitions=[(1, Transition(TaskState.SUBMITTED, TaskState.WORKING, 2, "agent"))],
    )


def test_a_recorded_transition_cannot_be_rewritten():
    store = TaskStore()
    started(store)
    failed = Transition(TaskState.WORKING, TaskState.FAILED, 3, "server restart")
    store.save(task(TaskState.FAILED), status_ms=3, scope=ALICE, transitions=[(2, failed)])
    with pytest.raises(TaskConflictError) as info:  # a second writer's n=2
        store.record_transition("t-1", 2, Transition(TaskState.WORKING, TaskState.CANCELED, 4, "CancelTask"))
    assert isinstance(info.value, StoreError) and "t-1" in str(info.value)
    assert [t.target for t in store.transitions("t-1")] == [
        TaskState.SUBMITTED,
        TaskState.WORKING,
        TaskState.FAILED,
    ]


def test_a_failed_task_never_becomes_canceled_in_the_store():
    """F10: the first server's stale view (WORKING) cancels a task the second one failed."""
    store = TaskStore()
    started(store)
    store.save(
        task(TaskState.FAILED),
        status_ms=3,
        scope=ALICE,
        transitions=[(2, Transition(TaskState.WORKING, TaskState.FAILED, 3, "server restart"))],
    )
    with pytest.raises(TaskConflictError):
        store.save(task(TaskState.CANCELED), status_ms=4, scope=ALICE)  # no transition: the guard
    with pytest.raises(TaskConflictError):
        store.save(
            task(TaskState.CANCELED),
            status_ms=4,
            scope=ALICE,
            transitions=[(3, Transition(TaskState.WORKING, TaskState.CANCELED, 4, "CancelTask"))],
        )
    assert store.load("t-1", ALICE).status.state is TaskState.FAILED
    assert [t.target for t in store.transitions("t-1")][-1] is TaskState.FAILED
    # the same terminal state may be saved again (an artifact's last chunk, a history trim)
    store.save(task(TaskState.FAILED), status_ms=5, scope=ALICE)
    # another caller's write still matches no row, silently, as before
    store.save(task(TaskState.CANCELED), status_ms=6, scope=BOB)
    assert store.load("t-1", ALICE).status.state is TaskState.FAILED


def test_client_chosen_context_ids_belong_to_each_caller_separately():
    store = TaskStore()
    assert store.claim_context("project-x", ALICE)
    assert store.claim_context("project-x", BOB)  # bob gets his own, learns nothing of alice's
    assert store.claim_context("project-x", ACME_ALICE)
    assert store.claim_context("project-x", ALICE)  # still alice's too
    store.save(task(TaskState.COMPLETED, "t-a", "project-x"), status_ms=1, scope=ALICE)
    store.save(task(TaskState.COMPLETED, "t-b", "project-x"), status_ms=2, scope=BOB)
    assert [t.id for t in store.page(scope=ALICE, context_id="project-x").tasks] == ["t-a"]
    assert [t.id for t in store.page(scope=BOB, context_id="project-x").tasks] == ["t-b"]
    with store.store.transaction() as db:
        rows = db.execute("SELECT tenant, owner, context_id FROM a2a_contexts ORDER BY 1, 2").fetchall()
    assert [tuple(r) for r in rows] == [
        ("", "alice", "project-x"),
        ("", "bob", "project-x"),
        ("acme", "alice", "project-x"),
    ]


def test_a_version_2_database_is_migrated_to_contexts_per_caller(tmp_path):
    path = tmp_path / "v2.sqlite3"
    old = Store(path)
    old.ensure_schema("a2a", 2, {1: _SCHEMA_V1, 2: _SCHEMA_V2})
    with old.transaction() as db:
        db.execute(
            "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body, tenant, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                "t-a",
                "c-a",
                "TASK_STATE_COMPLETED",
                5,
                task(TaskState.COMPLETED, "t-a", "c-a").model_dump_json(by_alias=True),
                "",
                "alice",
            ),
        )
        db.execute("INSERT INTO a2a_contexts (context_id, tenant, owner) VALUES ('c-a', '', 'alice')")
        db.execute("INSERT INTO a2a_contexts (context_id, tenant, owner) VALUES ('c-z', 'acme', '')")
    old.close()

    store = TaskStore(str(path))
    assert store.found_version == 2 and A2A_SCHEMA_VERSION == 3
    assert store.store.schema_version("a2a") == 3
    with store.store.transaction() as db:
        rows = db.execute("SELECT tenant, owner, context_id FROM a2a_contexts ORDER BY 1").fetchall()
    assert [tuple(r) for r in rows] == [("", "alice", "c-a"), ("acme", "", "c-z")]
    assert store.load("t-a", ALICE) is not None
    assert store.claim_context("c-a", ALICE) and store.claim_context("c-a", BOB)
    store.close()
    again = TaskStore(str(path))  # opening a migrated database again changes nothing
    assert again.found_version == 3
    again.close()


def test_a_version_1_database_still_reaches_the_current_version(tmp_path):
    path = tmp_path / "v1.sqlite3"
    old = Store(path)
    old.ensure_schema("a2a", 1, {1: _SCHEMA_V1})
    with old.transaction() as db:
        db.execute(
            "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body) VALUES (?, ?, ?, ?, ?)",
            (
                "t-old",
                "c-old",
                "TASK_STATE_COMPLETED",
                5,
                task(TaskState.COMPLETED, "t-old", "c-old").model_dump_json(by_alias=True),
            ),
        )
    old.close()
    store = TaskStore(str(path))
    assert store.found_version == 1 and store.store.schema_version("a2a") == A2A_SCHEMA_VERSION
    assert store.load("t-old", ANONYMOUS) is not None
    assert store.claim_context("c-old", ANONYMOUS) and store.claim_context("c-old", BOB)
    store.close()

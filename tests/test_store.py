"""The SQLite store: what a server restart must not lose, and what must happen only once."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from agentproto.agui._threadstore import AGUI_SCHEMA_VERSION, RunIdReusedError
from agentproto.agui._threadstore import ThreadStore as Store
from agentproto.clock import FakeClock
from agentproto.store import StoreError

INTERRUPT = {"id": "int-1", "reason": "tool_call", "toolCallId": "tc-1"}


@pytest.fixture
def store():
    s = Store(":memory:", clock=FakeClock())
    yield s
    s.close()


def test_pending_interrupt_survives_closing_and_reopening_the_file(tmp_path):
    path = tmp_path / "agentproto.sqlite3"
    with Store(path) as first:
        first.start_run("t-1", "run-1")
        first.add_interrupts("t-1", "run-1", [INTERRUPT])
        first.finish_run(
            "t-1", "run-1", status="interrupt", outcome={"type": "interrupt", "interrupts": [INTERRUPT]}
        )
    with Store(path) as second:
        record = second.thread_record("t-1")
        assert [r.interrupt for r in record.pending] == [INTERRUPT]
        assert record.last_interrupted_run_id == "run-1"


def test_idempotency_key_runs_the_action_once_and_replays_the_recorded_result(store):
    calls = []

    def act():
        calls.append(1)
        return {"refundId": f"R-{len(calls)}"}

    assert store.idempotent("k", act) == ({"refundId": "R-1"}, False)
    assert store.idempotent("k", act) == ({"refundId": "R-1"}, True)
    assert calls == [1]
    assert store.recorded("k") == (True, {"refundId": "R-1"})
    assert store.recorded("other") == (False, None)


def test_an_action_that_raises_records_nothing(store):
    def boom():
        raise RuntimeError("downstream failed")

    with pytest.raises(RuntimeError):
        store.idempotent("k", boom)
    assert store.recorded("k") == (False, None)
    assert store.idempotent("k", lambda: 42) == (42, False)


def test_idempotency_holds_under_concurrent_callers(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    calls = []
    results = []

    def worker():
        results.append(store.idempotent("same-key", lambda: calls.append(1) or len(calls)))

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert {r[0] for r in results} == {1}
    assert sorted(r[1] for r in results) == [False] + [True] * 19
    store.close()


def test_a_run_id_must_not_be_reused_on_a_thread(store):
    store.start_run("t-1", "run-1")
    with pytest.raises(RunIdReusedError) as info:
        store.start_run("t-1", "run-1")
    assert info.value.code == "run_id_reused"
    store.start_run("t-2", "run-1")  # another thread may use the same id


def test_messages_snapshot_reconciliation_replaces_in_place_and_appends_new_ids(store):
    a = {"id": "m1", "role": "user", "content": "hi"}
    b = {"id": "m2", "role": "assistant", "content": "hello"}
    store.save_messages("t", [a, b])
    store.save_messages(
        "t",
        [
            {"id": "m2", "role": "assistant", "content": "hello!"},
            a,
            {"id": "m3", "role": "user", "content": "x"},
        ],
    )
    # m2 keeps its position after m1 (replace in place); m3 is appended.
    assert [m["id"] for m in store.messages("t")] == ["m1", "m2", "m3"]
    assert store.messages("t")[1]["content"] == "hello!"
    store.save_messages("t", [a])
    assert [m["id"] for m in store.messages("t")] == ["m1"]


def test_append_messages_adds_only_unseen_ids(store):
    store.save_messages("t", [{"id": "m1", "role": "user", "content": "a"}])
    added = store.append_messages(
        "t",
        [{"id": "m1", "role": "user", "content": "changed"}, {"id": "m2", "role": "user", "content": "b"}],
    )
    assert added == 1
    assert [m["content"] for m in store.messages("t")] == ["a", "b"]


def test_state_is_replaced_wholesale_and_null_is_a_value(store):
    store.ensure_thread("t", state={"a": 1})
    store.save_state("t", {"b": 2})
    assert store.thread_state("t") == {"b": 2}
    store.save_state("t", None)
    assert store.thread_state("t") is None


def test_settling_an_interrupt_happens_once_even_when_two_resumes_race(store):
    store.add_interrupts("t", "run-1", [INTERRUPT])
    entry = {"interruptId": "int-1", "status": "resolved", "payload": {"approved": True}}
    assert store.settle_interrupts("t", [entry], "run-2") == 1
    assert store.settle_interrupts("t", [entry], "run-3") == 0
    (record,) = store.thread_record("t").interrupts
    assert (record.status, record.settled_by, record.decision) == ("resolved", "run-2", entry)


def test_reopening_puts_a_failed_resumes_interrupts_back_to_pending(store):
    store.start_run("t", "run-1")
    store.add_interrupts("t", "run-1", [INTERRUPT])
    store.finish_run("t", "run-1", status="interrupt")
    store.settle_interrupts("t", [{"interruptId": "int-1", "status": "cancelled"}], "run-2")
    assert store.thread_record("t").pending == []
    assert store.reopen_interrupts("t", "run-2") == 1
    assert [r.id for r in store.thread_record("t").pending] == ["int-1"]


def test_interrupt_thread_finds_the_owner_of_an_interrupt_id(store):
    store.add_interrupts("t-1", "run-1", [INTERRUPT])
    assert store.interrupt_thread("int-1") == "t-1"
    assert store.interrupt_thread("int-404") is None


def test_run_records_keep_outcome_result_and_error(store):
    store.start_run("t", "run-1")
    store.finish_run("t", "run-1", status="success", outcome={"type": "success"}, result={"refundId": "R-1"})
    store.start_run("t", "run-2")
    store.finish_run("t", "run-2", status="error", error={"message": "boom", "code": "X"})
    one, two = store.runs("t")
    assert (one.status, one.result, one.finished) == ("success", {"refundId": "R-1"}, True)
    assert (two.status, two.error) == ("error", {"message": "boom", "code": "X"})
    assert one.to_json()["runId"] == "run-1" and "error" not in one.to_json()


def test_event_log_keeps_arrival_order(store):
    for n in range(3):
        store.append_event("t", "run-1", {"type": "CUSTOM", "name": "n", "value": n})
    assert [e["value"] for e in store.events("t", "run-1")] == [0, 1, 2]


def test_snapshot_of_an_unknown_thread_is_none(store):
    assert store.snapshot("nope") is None


def test_schema_is_versioned_and_other_components_can_add_tables(store):
    assert store.schema_version("agui") == AGUI_SCHEMA_VERSION
    assert store.ensure_schema("a2a", 1, ["CREATE TABLE a2a_x (id TEXT)"]) == 0
    assert store.ensure_schema("a2a", 1, ["CREATE TABLE a2a_x (id TEXT)"]) == 1  # no-op
    assert store.schema_version("a2a") == 1


def test_a_database_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "db.sqlite3"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_versions SET version = 99 WHERE component = 'agui'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_connect_opens_an_independent_connection_to_a_file_store(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    store.ensure_thread("t")
    other = store.connect()
    assert other.execute("SELECT thread_id FROM agui_threads").fetchone()[0] == "t"
    other.close()
    store.close()
    with pytest.raises(StoreError):
        Store(":memory:").connect()


def test_transaction_rolls_back_on_error(store):
    with pytest.raises(ValueError):
        with store.transaction() as conn:
            conn.execute("INSERT INTO idempotency_keys VALUES ('k', '1', 0)")
            raise ValueError("abort")
    assert store.recorded("k") == (False, None)


def test_runs_left_running_by_a_dead_process_are_failed_and_give_interrupts_back(store):
    store.start_run("t", "run-1")
    store.add_interrupts("t", "run-1", [INTERRUPT])
    store.finish_run("t", "run-1", status="interrupt")
    store.start_run("t", "run-2", kind="resume")
    store.settle_interrupts("t", [{"interruptId": "int-1", "status": "cancelled"}], "run-2")
    (stale,) = store.abandon_running_runs()
    assert stale.run_id == "run-2"
    assert store.run("t", "run-2").error["code"] == "SERVER_RESTARTED"
    assert [r.id for r in store.thread_record("t").pending] == ["int-1"]
    assert store.abandon_running_runs() == []

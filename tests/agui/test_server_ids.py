"""Client-chosen AG-UI ids: a safe, readable-back form (F17) and one namespace per caller (F15).

AG-UI 1.1 (``basic/run-input``, "Identity") only requires ``threadId`` and ``runId``; the
character set and length are the kit's own limit (``agentproto.agui.server.ID_PATTERN``).
"""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from agentproto.agui._threadstore import ThreadStore
from agentproto.agui._threadstore_owners import AGUI_OWNERS_SCHEMA_VERSION, ThreadOwners
from agentproto.agui.server import MAX_ID_CHARS
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import RunningServer
from agentproto.store import Store
from tests.servers import SSE_HEADERS, approve, decode, interrupt_of, post_run, run_body


@pytest.fixture
def server():
    app = create_app(clock=FakeClock(), ids=IdFactory("id"), a2a_agent=None)
    with RunningServer(app) as running:
        running.app = app
        yield running


# --- F17: ids a client can always read back --------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("threadId", "a/b"),
        ("threadId", "x\r\ny"),
        ("threadId", "t" * 5000),
        ("threadId", "t" * (MAX_ID_CHARS + 1)),
        ("threadId", ".."),
        ("threadId", "."),
        ("threadId", ""),
        ("threadId", "\u202eevil"),
        ("threadId", "a b"),
        ("threadId", "a%2Fb"),
        ("runId", "r/1"),
        ("runId", "r\n1"),
    ],
)
def test_an_id_outside_the_kits_limit_is_refused_before_anything_is_stored(server, field, value):
    body = run_body("ok-thread", "ok-run")
    body[field] = value
    answer = post_run(server.url, body)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_input" and error["path"] == f"/{field}"
    store = server.app.state.store
    assert not store.has_thread(value) and not store.has_thread("ok-thread")
    assert httpx.get(f"{server.url}/ag-ui/threads/ok-thread").status_code == 404


@pytest.mark.parametrize(
    "thread_id",
    ["t-1", "a:b", "~x", "...", ".x", "A.B_c-d~e:f", "0", "x" * MAX_ID_CHARS, "urn:uuid:1-2"],
)
def test_every_accepted_thread_id_can_be_read_back(server, thread_id):
    answer = post_run(server.url, run_body(thread_id, "r-1"))
    assert answer.status_code == 200, answer.text
    assert decode(answer.content)[0]["threadId"] == thread_id
    back = httpx.get(f"{server.url}/ag-ui/threads/{quote(thread_id, safe='')}")
    assert back.status_code == 200 and back.json()["threadId"] == thread_id
    events = httpx.get(f"{server.url}/ag-ui/threads/{quote(thread_id, safe='')}/runs/r-1/events")
    assert events.status_code == 200 and events.json()["run"]["runId"] == "r-1"


# --- F15: one namespace of thread ids per caller ----------------------------------------------


def _as(name: str) -> dict[str, str]:
    return {"X-Test-Subject": name}


def post_as(url: str, name: str, body: dict) -> httpx.Response:
    return httpx.post(f"{url}/ag-ui/agent", json=body, headers={**SSE_HEADERS, **_as(name)}, timeout=30)


def _with_subjects(app):
    """Stand-in for the bearer gate: the caller named in a header is the verified subject."""
    from types import SimpleNamespace

    async def gate(scope, receive, send):
        if scope["type"] == "http":
            name = dict(scope["headers"]).get(b"x-test-subject")
            if name:
                scope.setdefault("state", {})["claims"] = SimpleNamespace(subject=name.decode())
        await app(scope, receive, send)

    return gate


@pytest.fixture
def shared():
    app = create_app(clock=FakeClock(), ids=IdFactory("id"), a2a_agent=None)
    with RunningServer(_with_subjects(app)) as running:
        yield running.url


def test_another_caller_using_the_same_thread_id_gets_a_thread_of_its_own(shared):
    """No existence oracle: bob on alice's id is answered exactly like bob on a fresh id."""
    alice = post_as(shared, "alice", run_body("t-1", "r-1"))
    interrupt = interrupt_of(decode(alice.content))
    bob_on_hers = post_as(shared, "bob", run_body("t-1", "r-1"))
    bob_on_new = post_as(shared, "bob", run_body("t-unused", "r-1"))
    assert alice.status_code == bob_on_hers.status_code == bob_on_new.status_code == 200
    shape = [e["type"] for e in decode(bob_on_hers.content)]
    assert shape == [e["type"] for e in decode(bob_on_new.content)]
    hers = httpx.get(f"{shared}/ag-ui/threads/t-1", headers=_as("alice")).json()
    his = httpx.get(f"{shared}/ag-ui/threads/t-1", headers=_as("bob")).json()
    assert hers["threadId"] == his["threadId"] == "t-1"
    assert [p["id"] for p in hers["pendingInterrupts"]] == [interrupt["id"]]
    assert interrupt["id"] not in [p["id"] for p in his["pendingInterrupts"]]
    assert [r["runId"] for r in hers["runs"]] == [r["runId"] for r in his["runs"]] == ["r-1"]
    # the anonymous caller has no thread t-1 at all, and carol none either
    assert httpx.get(f"{shared}/ag-ui/threads/t-1").status_code == 404
    assert httpx.get(f"{shared}/ag-ui/threads/t-1", headers=_as("carol")).status_code == 404


def test_bob_cannot_answer_alices_interrupt_from_his_thread_of_the_same_id(shared):
    alice = post_as(shared, "alice", run_body("t-2", "r-1"))
    interrupt = interrupt_of(decode(alice.content))
    bob = post_as(shared, "bob", run_body("t-2", "r-2", messages=[], resume=approve(interrupt["id"])))
    assert bob.status_code == 200  # his own new thread: the foreign entry is dropped, with a warning
    events = decode(bob.content)
    assert "resume.unrecognised-entry" in bob.text and "TOOL_CALL_RESULT" not in [e["type"] for e in events]
    pending = httpx.get(f"{shared}/ag-ui/threads/t-2", headers=_as("alice")).json()["pendingInterrupts"]
    assert [p["id"] for p in pending] == [interrupt["id"]]
    done = post_as(shared, "alice", run_body("t-2", "r-2", messages=[], resume=approve(interrupt["id"])))
    assert done.status_code == 200 and decode(done.content)[-1]["type"] == "RUN_FINISHED"


def test_a_refused_request_reserves_no_thread_id(shared):
    refused = post_as(shared, "alice", {**run_body("t-3", "r-1"), "runId": "bad/run"})
    assert refused.status_code == 422
    assert httpx.get(f"{shared}/ag-ui/threads/t-3", headers=_as("alice")).status_code == 404


def test_a_cancel_reaches_only_the_callers_own_run(shared):
    headers = {**SSE_HEADERS, **_as("alice")}
    with httpx.stream(
        "POST", f"{shared}/ag-ui/agent", json=run_body("t-4", "r-1"), headers=headers, timeout=30
    ) as stream:
        stream.read()
    cancel = httpx.post(f"{shared}/ag-ui/runs/r-1/cancel?threadId=t-4", headers=_as("bob"))
    assert cancel.status_code == 404 and cancel.json()["error"]["code"] == "run_not_active"


# --- the owners table: migration and legacy threads ------------------------------------------


def test_a_version_1_owners_table_is_migrated_and_keeps_every_thread_where_it_was(tmp_path):
    path = tmp_path / "v1.sqlite3"
    old = ThreadStore(path)
    old.ensure_schema(
        "agui_owners",
        1,
        {1: ("CREATE TABLE agui_thread_owners (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL)",)},
    )
    old.start_run("th-alice", "r-1")
    old.start_run("th-legacy", "r-1")  # an anonymous thread from before the owners table
    with old.transaction() as db:
        db.execute("INSERT INTO agui_thread_owners VALUES ('th-alice', 'alice')")
    old.close()

    store = ThreadStore(path)
    owners = ThreadOwners(store)
    assert store.schema_version("agui_owners") == AGUI_OWNERS_SCHEMA_VERSION == 2
    assert owners.key("th-alice", "alice") == "th-alice"  # same rows, same storage keys
    assert owners.key("th-legacy", "") == "th-legacy"
    assert owners.key("th-alice", "bob") is None and owners.key("th-alice", "") is None
    assert owners.key("th-legacy", "alice") is None
    # the same ids, used by someone else now, get their own keys and leave the old ones alone
    assert owners.claim("th-alice", "bob") == "bob/th-alice"
    assert owners.claim("th-alice", "") == "th-alice~2"
    assert owners.claim("th-legacy", "alice") == "alice/th-legacy"
    assert owners.claim("th-legacy", "") == "th-legacy"
    assert [r.run_id for r in store.runs(owners.key("th-alice", "alice"))] == ["r-1"]
    store.close()
    again = Store(path)  # opening a migrated database again changes nothing
    assert ThreadOwners(again).key("th-alice", "bob") == "bob/th-alice"
    again.close()


def test_a_demo_database_that_kept_owners_in_demo_owners_still_migrates(tmp_path):
    """``demo.auth.OwnerTable`` v3 writes ``(thread_id, owner)`` rows into the owners table."""
    from agentproto.demo.auth import OwnerTable

    path = tmp_path / "demo.sqlite3"
    old = Store(path)
    old.ensure_schema(
        "demo_owners",
        2,
        {
            1: [
                "CREATE TABLE demo_owners (kind TEXT NOT NULL, id TEXT NOT NULL, "
                "subject TEXT NOT NULL, PRIMARY KEY (kind, id))"
            ],
            2: [],
        },
    )
    with old.transaction() as db:
        db.execute("INSERT INTO demo_owners VALUES ('thread', 'th-1', 'alice')")
    old.close()
    store = ThreadStore(path)
    OwnerTable(store)
    owners = ThreadOwners(store)
    assert owners.key("th-1", "alice") == "th-1" and owners.key("th-1", "bob") is None
    store.close()

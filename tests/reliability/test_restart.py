"""Restart safety: a server restarted on a database with history keeps working.

The demo mints refund ids from a counter that restarts with the process; it must skip the ids
the database already holds, and a pending interrupt must survive the restart.
"""

from __future__ import annotations

import json

from agentproto.demo.app import create_app
from agentproto.server import running_server
from tests.reliability.sizes import size
from tests.servers import approve, decode, interrupt_of, post_run, run_body, user, verified


def start_refund(url: str, thread: str, order: str = "A1024") -> dict:
    r = post_run(
        url,
        run_body(thread, f"{thread}-run-1", messages=[user(f"check order {order} and refund it if shipped")]),
    )
    assert r.status_code == 200, r.text
    return interrupt_of(verified(decode(r.content)))


def approve_refund(url: str, thread: str, interrupt: dict, amount: int = 100) -> dict:
    r = post_run(
        url,
        run_body(
            thread,
            f"{thread}-run-2",
            messages=[],
            # editedArgs is a full replacement of the proposed arguments (concepts/interrupts)
            resume=approve(
                interrupt["id"], editedArgs={**interrupt["metadata"]["proposedArgs"], "amountCents": amount}
            ),
        ),
    )
    assert r.status_code == 200, r.text
    events = verified(decode(r.content))
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    return json.loads(result["content"])


def test_the_first_approval_after_a_restart_on_a_db_with_refunds_succeeds(tmp_path):
    db = tmp_path / "demo.sqlite3"
    before = size(3, 20)
    with running_server(create_app(db, a2a_agent=None)) as url:  # serve's defaults: uuid ids
        for n in range(before):
            assert (
                approve_refund(url, f"a-{n}", start_refund(url, f"a-{n}", "A1024"), amount=1)["status"]
                == "refunded"
            )
        pending = start_refund(url, "pending", "A1024")  # left waiting across the restart
    app = create_app(db, a2a_agent=None)
    with running_server(app) as url:
        after = approve_refund(url, "pending", pending, amount=1)
        fresh = approve_refund(url, "b-0", start_refund(url, "b-0", "A1024"), amount=1)
    assert after["status"] == "refunded" and fresh["status"] == "refunded"
    ids = [r["refundId"] for r in app.state.tools.refunds()]
    assert len(ids) == before + 2 == len(set(ids)), ids


def test_run_and_task_ids_minted_by_serve_differ_across_restarts(tmp_path):
    db = tmp_path / "demo.sqlite3"
    minted = []
    for _ in range(2):
        app = create_app(db, a2a_agent="echo")
        with running_server(app) as url:
            import httpx

            r = httpx.post(
                url + "/a2a",
                headers={"A2A-Version": "1.0"},
                timeout=10,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "SendMessage",
                    "params": {
                        "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
                    },
                },
            )
            body = r.json()["result"]
            minted.append(
                body.get("task", body.get("message", {})).get("id")
                or body.get("message", {}).get("messageId")
            )
    assert minted[0] and minted[0] != minted[1]

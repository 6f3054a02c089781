"""Finding F4 against a real ``agentproto serve``: ListTasks over tasks with big histories. Before
the fix one answer carried every task's whole history (95 MB for 100 tasks) and two clients
listing held a third client's card fetch up for seconds (p95 3.3 s). Now a task in a ListTasks
answer has ``LIST_DEFAULT_HISTORY_LENGTH`` messages unless asked for more, and an answer stops
before ``MAX_LIST_RESPONSE_BYTES`` with a ``nextPageToken``. The card latency of the third
client is printed (``-s``) for the record; nothing here asserts a timing."""

from __future__ import annotations

import json
import statistics
import threading
import time

import httpx
import pytest

from agentproto.a2a._service_streams import MAX_LIST_RESPONSE_BYTES
from tests.reliability.sizes import size
from tests.reliability.test_streams_memory import rpc, serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _task(url: str, i: int, kb: int) -> str:
    parts = [{"text": chr(97 + i % 26) * 150_000} for _ in range(max(1, kb * 1000 // 150_000))]
    msg = {"messageId": f"tck-multi-turn-{i}", "role": "ROLE_USER", "parts": parts}
    answer = rpc(url, "SendMessage", {"message": msg, "configuration": {"historyLength": 0}})
    return answer["result"]["task"]["id"]


def test_list_answers_are_bounded_and_others_keep_being_served(tmp_path):
    n, kb = size(30, 300), size(750, 950)
    proc, url = serve(tmp_path, "--no-grpc")
    try:
        ids = {_task(url, i, kb) for i in range(n)}
        sizes_seen: list[int] = []

        def lister() -> None:
            with httpx.Client(timeout=120) as client:
                for _ in range(3):
                    body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {"pageSize": 100}}
                    r = client.post(url + "/a2a", json=body, headers={"A2A-Version": "1.0"})
                    sizes_seen.append(len(r.content))

        latencies: list[float] = []
        listers = [threading.Thread(target=lister) for _ in range(2)]
        for t in listers:
            t.start()
        with httpx.Client(timeout=60) as client:
            while any(t.is_alive() for t in listers) or len(latencies) < 5:
                start = time.perf_counter()
                assert client.get(url + "/.well-known/agent-card.json").status_code == 200
                latencies.append((time.perf_counter() - start) * 1000)
                time.sleep(0.02)
        for t in listers:
            t.join()
        p95 = statistics.quantiles(latencies, n=20, method="inclusive")[-1]
        print(
            f"\nF4: {n} tasks x {kb} KB; ListTasks answers {max(sizes_seen) / 1e6:.2f} MB max; "
            f"third client's card: median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, "
            f"max {max(latencies):.0f} ms over {len(latencies)} fetches"
        )
        assert max(sizes_seen) <= MAX_LIST_RESPONSE_BYTES + 200_000
        # every task is reachable page by page, each once, with its full history on request
        seen: list[str] = []
        token = ""
        while True:
            params = {"pageSize": 100, "pageToken": token, "historyLength": 1}
            result = rpc(url, "ListTasks", params)["result"]
            assert len(json.dumps(result)) <= MAX_LIST_RESPONSE_BYTES + 200_000
            seen += [t["id"] for t in result["tasks"]]
            token = result["nextPageToken"]
            if not token:
                break
        assert sorted(seen) == sorted(ids)
    finally:
        stop(proc)

"""The memory benchmark still runs (``--quick``: small points, the exact tracemalloc meter) and
reports what issue 23 asks for: bytes per open AG-UI run and per live A2A task, growth with
history length, and the worst case each limit allows. Never a timing, never an RSS figure
(RSS moves with whatever else the machine runs); the quick run writes into a temporary
directory, not into the checkout."""

import json
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "bench_memory.py"
COUNTS = ("agui_open_runs", "agui_consumers", "a2a_live_tasks_memory", "a2a_live_tasks_sqlite")
HISTORIES = (
    "agui_thread_history",
    "agui_run_events",
    "agui_consumer_history",
    "a2a_task_history_memory",
    "a2a_task_history_sqlite",
)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench-memory") / "memory.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "worst cases the limits allow" in proc.stdout
    return json.loads(out.read_text(encoding="utf-8"))


def scenarios(result):
    return {**result["agui"], **result["a2a"]}


def test_the_results_say_on_which_machine_with_which_versions_and_by_which_command(result):
    assert result["benchmark"] == "memory" and result["quick"] is True
    assert result["machine"]["cpu_count"] and result["machine"]["python"]
    assert result["versions"]["agentproto"] and result["versions"]["pydantic"]
    assert "bench_memory.py" in result["command"] and "--quick" in result["command"]
    assert set(scenarios(result)) == set(COUNTS) | set(HISTORIES)


def test_every_open_run_live_task_and_consumer_costs_a_positive_number_of_bytes(result):
    found = scenarios(result)
    for name in COUNTS:
        figures = found[name]["bytes_per_item"]
        assert figures["best_meter"] == "heap", name
        assert figures["best"] > 0 and figures["heap"]["in_process"] > 0, name
        (point,) = found[name]["points"]["heap"]
        assert point["n"] > 0 and point["delta"] > 0, name
    # the tasks really are live (WORKING, agent running) while they are measured
    for name in ("a2a_live_tasks_memory", "a2a_live_tasks_sqlite"):
        assert found[name]["live_tasks"] == found[name]["points"]["heap"][0]["n"]


def test_growth_with_history_length_is_reported_as_bytes_per_history_item(result):
    found = scenarios(result)
    for name in HISTORIES:
        points = found[name]["points"]["heap"]
        assert len(points) >= 2, name
        ns = [p["n"] for p in points]
        assert ns == sorted(ns) and ns[0] < ns[-1], name
        assert points[-1]["delta"] > points[0]["delta"] > 0, name  # more history, more memory
        assert found[name]["bytes_per_item"]["heap"]["slope"] > 0, name
    # the stored history and the copy an open run / a live task holds are told apart
    for name in ("agui_thread_history", "a2a_task_history_memory"):
        assert found[name]["bytes_per_item"]["heap"]["slope_run"] > 0, name
    long_task = found["a2a_task_history_memory"]
    assert long_task["history_held"] == long_task["points"]["heap"][-1]["n"] + 1  # + the follow-up


def test_each_limit_is_multiplied_into_a_worst_case_or_said_to_be_missing(result):
    rows = {row["scenario"]: row for row in result["limits"]}
    assert set(rows) == set(COUNTS) | set(HISTORIES)
    for row in rows.values():
        assert row["bytes_per_item"] > 0 and row["bound"], row
        if row["limit_value"] is None:
            assert row["worst_case_bytes"] is None, row
        else:
            assert row["worst_case_bytes"] == row["bytes_per_item"] * row["limit_value"], row
    assert rows["a2a_live_tasks_memory"]["limit"] == "ServiceLimits.max_open_tasks_per_caller"
    assert rows["a2a_live_tasks_memory"]["limit_value"] == 200
    assert rows["a2a_task_history_sqlite"]["limit"] == "ServiceLimits.max_task_history"
    assert rows["a2a_task_history_sqlite"]["limit_value"] == 1000
    assert rows["agui_thread_history"]["limit_value"] == 10_000
    assert rows["agui_open_runs"]["limit"] == "agui_routes(max_active_runs=) (MAX_ACTIVE_RUNS)"

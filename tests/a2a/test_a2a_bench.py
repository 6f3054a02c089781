"""The server benchmark runs end to end (tiny), so it cannot rot."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

pytest.importorskip("a2a.server", reason="needs the official SDK: pip install -e .[interop]")

pytestmark = [pytest.mark.interop, pytest.mark.slow]

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_a2a_server.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_a2a_server", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_benchmark_runs_both_servers_on_every_binding_and_writes_its_report(tmp_path, capsys):
    bench = _bench()
    out = tmp_path / "a2a_server.json"
    assert bench.main(["--quick", "--requests", "20", "--concurrency", "4", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["bindings"]) == {"jsonrpc", "rest", "grpc"}
    for binding in report["bindings"].values():
        assert set(binding["servers"]) == {"ours", "sdk"}
        for server in binding["servers"].values():
            assert server["requests_per_s"] > 0 and server["p99_ms"] >= server["p50_ms"] > 0
            # the load generator's own cost (0 is possible: the clock ticks every 10 ms)
            assert server["client_cpu_ms_per_request"] >= 0
        assert binding["throughput_ratio"] > 0
    assert report["throughput_ratio"] == min(b["throughput_ratio"] for b in report["bindings"].values())
    assert report["target_ratio"] == 1.5
    assert "grpc      throughput ours / a2a-sdk" in capsys.readouterr().out


def test_the_httpx_load_client_is_still_selectable(tmp_path):
    """``--http-client httpx``: the comparison run that shows httpx, not the server, set the tail."""
    bench = _bench()
    out = tmp_path / "a2a_server.json"
    argv = ["--quick", "--requests", "10", "--concurrency", "2", "--bindings", "jsonrpc,rest"]
    assert bench.main([*argv, "--http-client", "httpx", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["params"]["http_client"] == "httpx"
    assert set(report["bindings"]) == {"jsonrpc", "rest"}


def test_a_run_too_short_to_measure_server_cpu_reports_no_cpu_ratio():
    """CPU time comes in 10 ms ticks: ten fast requests can read as 0 ms, and 0 is not divided by."""
    bench = _bench()
    per = {
        kind: {"rps": [500.0], "latencies": [0.001, 0.002], "cpu_ms": [cpu], "client_cpu_ms": [0.0]}
        for kind, cpu in (("ours", 0.0), ("sdk", 2.0))
    }
    summary = bench._summarise(per, [1.6])
    assert "cpu_capacity_ratio" not in summary
    assert summary["servers"]["ours"]["one_core_capacity_per_s"] is None
    per["ours"]["cpu_ms"] = [1.0]
    assert bench._summarise(per, [1.6])["cpu_capacity_ratio"] == 2.0


BARE = BENCH.with_name("bench_a2a_bare.py")


def _bare():
    spec = importlib.util.spec_from_file_location("bench_a2a_bare", BARE)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_bare_stack_benchmark_compares_ours_bare_and_relaxed_on_every_binding(tmp_path, capsys):
    """Ours vs the bare stack vs ours with the limits relaxed, in one run: every answer checked
    (wrk's Lua ``response()`` and the Python client), the ratios in the JSON."""
    bench = _bare()
    if bench.shutil.which("wrk") is None:
        pytest.skip("wrk not installed (apt-get install wrk)")
    out = tmp_path / "a2a_bare.json"
    assert bench.main(["--quick", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["bindings"]) == {"jsonrpc", "rest", "grpc"}
    for binding in report["bindings"].values():
        assert binding["status"] == "ok"
        assert set(binding["servers"]) == {"ours", "bare", "relaxed"}
        for server in binding["servers"].values():
            assert server["requests_per_s"] > 0 and server["p99_ms"] >= server["p50_ms"] > 0
        for ratio in ("ratio_ours_bare", "ratio_relaxed_bare", "ratio_ours_relaxed"):
            assert binding[ratio] > 0
    assert report["ratio_ours_bare"] == min(b["ratio_ours_bare"] for b in report["bindings"].values())
    assert report["target_ratio"] == 0.5
    assert "grpc      ours / bare" in capsys.readouterr().out


def test_the_bare_benchmark_skips_http_without_wrk_and_still_measures_grpc(tmp_path, monkeypatch):
    bench = _bare()
    monkeypatch.setattr(bench.shutil, "which", lambda _name: None)
    out = tmp_path / "a2a_bare.json"
    assert bench.main(["--quick", "--bindings", "jsonrpc,grpc", "--seconds", "0.5", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["bindings"]["jsonrpc"] == {"status": "skipped: wrk not installed (apt-get install wrk)"}
    assert report["bindings"]["grpc"]["status"] == "ok"
    assert report["ratio_ours_bare"] == report["bindings"]["grpc"]["ratio_ours_bare"]


def test_a_wrong_answer_under_wrk_aborts_the_run(tmp_path):
    """The Lua check bites: HTTP+JSON bodies sent to the bare JSON-RPC endpoint are not tasks."""
    bench = _bare()
    if bench.shutil.which("wrk") is None:
        pytest.skip("wrk not installed (apt-get install wrk)")
    script = tmp_path / "send_message.lua"
    script.write_text(bench.WRK_SCRIPT)
    server = bench.Server("bare").start()
    try:
        server.wait_ready()
        assert bench.wrk_round("wrk", script, "jsonrpc", server.targets["jsonrpc"], 1)["rps"] > 0
        with pytest.raises(AssertionError, match="wrong answers"):
            bench.wrk_round("wrk", script, "rest", server.targets["jsonrpc"].replace("/a2a", "/a2a/x"), 1)
    finally:
        server.stop()

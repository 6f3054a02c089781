"""The benchmarks still run (tiny sizes, nothing written into the checkout), so they cannot rot.

Only the shape of the results is checked, never a timing: the numbers of a tiny run on a
shared machine mean nothing.
"""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.interop
pytest.importorskip("ag_ui.core")

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def load(name):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_the_benchmark_runs_on_a_tiny_stream_and_reports_both_sides():
    result = load("bench_agui_pipeline").run(n_events=500, repeat=1, write=False)
    assert result["events"] >= 500
    assert result["ours"]["events_per_s"] > 0 and result["official"]["events_per_s"] > 0
    assert result["result_check"]["messages"] > 0  # the stream was really applied
    assert set(result["mix_per_turn"]) == {"text_deltas", "arg_deltas", "state_deltas"}
    assert {"ratio", "ratio_median", "round_ratios"} <= set(result)


def test_the_patch_heavy_stream_has_a_two_op_delta_every_27_events_and_all_apply():
    bench = load("bench_agui_patch_stream")
    events = bench.build_stream(1000)
    kinds = [e["type"] for e in events[2:-1]]
    assert all(kinds[i] == "STATE_DELTA" for i in range(26, len(kinds), 27))
    assert all(len(e["delta"]) == 2 for e in events if e["type"] == "STATE_DELTA")
    result = bench.run(n_events=600, repeat=1, write=False)
    assert result["result_check"]["state_todos"] == result["mix"]["state_deltas"] > 0


def test_run_all_quick_writes_the_machine_versions_command_and_ratios(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "run_all.py"),
            "--quick",
            "--out-dir",
            str(tmp_path),
            "--only",
            "agui_pipeline,agui_patch_stream,startup",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "run_all.json").read_text())
    assert report["quick"] is True and "run_all.py" in report["command"]
    assert {"cpu_count", "platform", "python"} <= set(report["machine"])
    assert {"agentproto", "pydantic", "ag-ui-protocol", "a2a-sdk"} <= set(report["versions"])
    assert list(report["benchmarks"]) == ["agui_pipeline", "agui_patch_stream", "startup"]
    for name, record in report["benchmarks"].items():
        assert record["status"] == "ok", (name, record)
        assert (tmp_path / f"{name}.json").exists() and record["command"]
        assert any(key.startswith("ratio") for key in record["ratios"])
    assert report["benchmarks"]["startup"]["ratios"]["lint_cpu_s"] > 0
    summary = (tmp_path / "summary.txt").read_text()
    assert "agui_patch_stream" in summary and "QUICK" in summary


def test_run_all_refuses_an_unknown_benchmark(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "run_all.py"),
            "--quick",
            "--out-dir",
            str(tmp_path),
            "--only",
            "nope",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "unknown benchmark" in proc.stderr


def test_the_typescript_comparison_is_skipped_not_failed_without_its_package(tmp_path):
    bench = load("bench_agui_ts")
    result = bench.run(n_events=100, repeat=1, write=False, directory=tmp_path / "nothing")
    assert "skipped" in result and "streams" not in result


def test_the_lint_benchmark_lints_the_capture_through_the_cli_and_reports_both_sides(tmp_path):
    bench = load("bench_agui_lint")
    out = tmp_path / "agui_lint.json"
    profile = tmp_path / "profiles" / "agui_lint.txt"
    argv = ["--events", "500", "--repeat", "1", "--out", str(out), "--profile", str(profile)]
    assert bench.main(argv) == 0
    result = json.loads(out.read_text())
    assert result["benchmark"] == "agui_lint" and result["events"] >= 500
    assert result["result_check"]["exit_code"] == 0
    assert "conformant" in result["result_check"]["report"]
    assert result["ours"]["events_per_s"] > 0 and result["official"]["events_per_s"] > 0
    assert {"ratio", "ratio_median", "round_ratios", "target_ratio"} <= set(result)
    assert "tottime" in profile.read_text() and "cumulative" in profile.read_text()


def test_the_pipeline_benchmarks_write_a_profile_when_asked(tmp_path):
    profile = tmp_path / "agui_pipeline.txt"
    argv = ["--events", "500", "--repeat", "1", "--no-write", "--profile", str(profile)]
    assert load("bench_agui_pipeline").main(argv) == 0
    assert "feed_bytes" in profile.read_text()

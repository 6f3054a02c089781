"""The pipeline benchmark still runs (tiny size, nothing written), so it cannot rot."""

import importlib.util
import pathlib

import pytest

pytestmark = pytest.mark.interop
pytest.importorskip("ag_ui.core")

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_agui_pipeline.py"


def test_the_benchmark_runs_on_a_tiny_stream_and_reports_both_sides():
    spec = importlib.util.spec_from_file_location("bench_agui_pipeline", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.run(n_events=500, repeat=1, write=False)
    assert result["events"] >= 500
    assert result["ours"]["events_per_s"] > 0 and result["official"]["events_per_s"] > 0
    assert result["result_check"]["messages"] > 0  # the stream was really applied
    assert set(result["mix_per_turn"]) == {"text_deltas", "arg_deltas", "state_deltas"}
